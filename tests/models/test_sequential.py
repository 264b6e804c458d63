"""kg.Sequential: a stack of layers built into a functional graph (now or when the input
shape is first known), compiled, summarised and trained like any Functional."""

import jax
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers


def _data(shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _mlp_reference(model, x):
    """Dense layers computed with NumPy from the model's own weights."""
    h = x
    for layer in model.layers:
        h = h @ np.asarray(layer.kernel) + np.asarray(layer.bias)
        if layer.get_config()["activation"] == "relu":
            h = np.maximum(h, 0)
    return h


def test_with_input_builds_at_once_and_computes_like_numpy():
    model = kg.Sequential([kg.Input(shape=(4,)), layers.Dense(8, activation="relu"),
                           layers.Dense(2)], name="mlp")
    assert model.built and isinstance(model, kg.Functional) and isinstance(model, kg.Model)
    assert [layer.name for layer in model.layers] == ["dense", "dense_1"]  # no InputLayer
    assert model.inputs[0].shape == (None, 4) and model.outputs[0].shape == (None, 2)
    assert len(model.weights) == 4 and model.count_params() == 4 * 8 + 8 + 8 * 2 + 2
    x = _data((3, 4))
    np.testing.assert_allclose(model(x), _mlp_reference(model, x), rtol=1e-5, atol=1e-6)


def test_compiles_like_functional_with_params_keyed_by_layer_name():
    model = kg.Sequential([kg.Input(shape=(4,)), layers.Dense(8, name="hidden"),
                           layers.Dense(2, name="out")])
    program = compiler.compile(model)
    assert [node.layer.name for node in program.nodes] == ["hidden", "out"]
    params, state = program.init(jax.random.PRNGKey(0))
    assert set(params) == {"hidden", "out"} and params["out"]["kernel"].shape == (8, 2)
    x = _data((5, 4))
    out, _ = jax.jit(program.apply)(params, state, x)
    compiler.assign(model, params, state)
    np.testing.assert_allclose(out, model(x), rtol=1e-6)


def test_deferred_build_on_first_call_on_arrays():
    model = kg.Sequential([layers.Dense(8, activation="relu"), layers.Dense(3)])
    assert not model.built and model.weights == []
    with pytest.raises(AttributeError, match="no defined inputs yet"):
        model.inputs
    with pytest.raises(ValueError, match="not built"):
        compiler.compile(model)
    y = model(_data((7, 5)))
    assert y.shape == (7, 3) and model.built
    assert model.inputs[0].shape == (None, 5)  # any batch size, not the first call's 7
    assert model(_data((2, 5))).shape == (2, 3)
    x = _data((4, 5))
    np.testing.assert_allclose(model(x), _mlp_reference(model, x), rtol=1e-5, atol=1e-6)


def test_deferred_build_on_keras_tensor_nests_in_a_functional_model():
    block = kg.Sequential([layers.Dense(6, name="d1"), layers.Dense(2, name="d2")],
                          name="block")
    x = kg.Input(shape=(4,), name="x")
    y = block(x)
    assert block.built and y.shape == (None, 2)
    outer = kg.Model(x, layers.Dense(1, name="head")(y))
    params, _ = compiler.variables(outer)
    assert set(params) == {"block", "head"} and set(params["block"]) == {"d1", "d2"}
    assert params["block"]["d1"]["kernel"].shape == (4, 6)


def test_explicit_build_and_input_dtype():
    model = kg.Sequential([layers.Dense(3)])
    model.build((None, 6))
    assert model.built and model.layers[0].kernel.shape == (6, 3)
    with pytest.raises(ValueError, match="no input shape"):
        kg.Sequential([layers.Dense(3)]).build()
    fixed = kg.Sequential([kg.Input(shape=(6,)), layers.Dense(3)])
    with pytest.raises(ValueError, match="already been configured to use input shape"):
        fixed.build((None, 7))


def test_add_and_pop_rebuild_the_graph():
    model = kg.Sequential([kg.Input(shape=(4,))])
    assert not model.built  # an Input alone is not a model yet
    model.add(layers.Dense(8, name="a"))
    assert model.built and model.outputs[0].shape == (None, 8)
    model.add(layers.Dense(2, name="b"))
    assert model.outputs[0].shape == (None, 2)
    assert [n.layer.name for n in compiler.compile(model).nodes] == ["a", "b"]
    popped = model.pop()
    assert popped.name == "b" and [layer.name for layer in model.layers] == ["a"]
    assert model.outputs[0].shape == (None, 8) and model(_data((3, 4))).shape == (3, 8)
    assert set(compiler.variables(model)[0]) == {"a"}
    model.pop()
    assert model.layers == [] and not model.built
    with pytest.raises(TypeError, match="no layers"):
        model.pop()


def test_add_accepts_an_input_tensor_and_a_nested_model():
    inner = kg.Sequential([kg.Input(shape=(3,)), layers.Dense(4, name="inner_dense")],
                          name="inner")
    model = kg.Sequential(name="outer")
    model.add(kg.Input(shape=(3,)))
    model.add(inner)
    model.add(layers.Dense(1, name="top"))
    assert model.outputs[0].shape == (None, 1)
    params, _ = compiler.variables(model)
    assert set(params) == {"inner", "top"} and set(params["inner"]) == {"inner_dense"}
    starts_with_model = kg.Sequential([inner, layers.Dense(2, name="t2")])
    assert starts_with_model.built  # built from the first model's input shape


class _TwoOutputs(kg.Layer):
    def call(self, inputs):
        return inputs, inputs * 2


def test_clear_errors():
    model = kg.Sequential([kg.Input(shape=(4,)), layers.Dense(2, name="d")])
    with pytest.raises(ValueError, match="Only instances of kg.Layer"):
        model.add("dense")
    with pytest.raises(ValueError, match="single output tensor.*two_outputs.*2 outputs"):
        model.add(_TwoOutputs())
    assert [layer.name for layer in model.layers] == ["d"]  # the failed add is undone
    assert model(_data((2, 4))).shape == (2, 2)
    with pytest.raises(ValueError, match="unique names.*'d'"):
        model.add(layers.Dense(3, name="d"))
    with pytest.raises(ValueError, match="already been configured"):
        model.add(kg.Input(shape=(4,)))
    with pytest.raises(ValueError, match="only tensor that can be added"):
        model.add(kg.Input(shape=(2,)) * 2)
    unbuilt = kg.Sequential([layers.Dense(2)], name="lazy")
    with pytest.raises(ValueError, match="'lazy' was called without an input"):
        unbuilt()
    with pytest.raises(ValueError, match="no layers"):
        kg.Sequential()(_data((2, 3)))
    # as Keras: an unbuilt model called on a structure runs its layers one by one, and
    # its first layer (a Dense) refuses a list of two tensors
    with pytest.raises(ValueError, match=r'"dense.*" expects 1 input\(s\)'):
        unbuilt([_data((2, 3)), _data((2, 3))])
    with pytest.raises(AttributeError, match="read-only"):
        unbuilt.layers = []


@pytest.mark.slow
def test_fit_builds_a_deferred_model_and_add_after_fit_recompiles():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    model = kg.Sequential([layers.Dense(1, name="linear")])
    model.compile(optimizer="adam", loss="mse")
    first = model.fit(x, y, batch_size=16, epochs=3, verbose=0).history["loss"]
    assert model.built and model.inputs[0].shape == (None, 3)
    assert first[-1] < first[0]
    assert model.predict(x[:5]).shape == (5, 1)
    model.add(layers.Dense(1, name="extra"))  # the compiled step is rebuilt for the new graph
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0).history["loss"]
    assert np.isfinite(history).all()
    assert model.predict(x[:4]).shape == (4, 1)
    assert set(compiler.variables(model)[0]) == {"linear", "extra"}


def test_trainable_flag_reaches_layers_added_before_build():
    model = kg.Sequential([layers.Dense(2), layers.Dense(1)])
    model.trainable = False
    assert all(not layer.trainable for layer in model.layers)
    model(_data((2, 3)))
    assert model.trainable_weights == [] and len(model.non_trainable_weights) == 4


def test_summary_of_built_and_unbuilt_sequential():
    lines = []
    model = kg.Sequential([layers.Dense(4, name="first")], name="lazy")
    model.summary(print_fn=lines.append)
    assert "first (Dense)" in lines[0] and "0 (unbuilt)" in lines[0]
    assert "not built yet" in lines[0]
    model.build((None, 3))
    lines.clear()
    model.summary(print_fn=lines.append)
    row = [line for line in lines[0].splitlines() if line.startswith("first (Dense)")][0]
    assert "(None, 4)" in row and "16" in row and "not built" not in lines[0]



def test_built_on_data_takes_other_shapes_as_keras():
    """Built on its first batch, a Sequential takes batches of other shapes (its layers check
    them), in calls, predict and fit; one started with an Input is held to that Input."""
    def batches():
        yield (np.ones((3, 5, 7), np.float32),)
        yield (np.ones((2, 7, 5), np.float32),)

    model = kg.Sequential([layers.Flatten()])
    out = model.predict(batches(), verbose=0)
    assert out.shape == (5, 35)
    assert model(np.ones((1, 4, 2), np.float32)).shape == (1, 8)

    fitted = kg.Sequential([layers.Reshape((-1, 8))])
    fitted.compile(loss="mse")
    fitted.fit(iter([(np.ones((1, 12, 2), np.float32), np.zeros((1, 3, 8), np.float32)),
                     (np.ones((1, 20, 2), np.float32), np.zeros((1, 5, 8), np.float32))]),
               steps_per_epoch=2, epochs=1, verbose=0)
    assert fitted(np.ones((1, 24, 2), np.float32)).shape == (1, 6, 8)

    fixed = kg.Sequential([kg.Input(shape=(5, 7)), layers.Flatten()])
    with pytest.raises(ValueError, match=r"expected shape=\(None, 5, 7\)"):
        fixed.predict(np.ones((2, 7, 5), np.float32), verbose=0)
