"""Input/InputLayer, Model -> Functional, input/output structures, nested models."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers


def _data(rng, *shape):
    return rng.normal(size=shape).astype(np.float32)


def _apply(model, inputs, **kwargs):
    out, _ = compiler.compile(model).apply(*compiler.variables(model), inputs, **kwargs)
    return out


def test_model_new_returns_functional():
    x = kg.Input(shape=(3,))
    y = layers.Dense(2)(x)
    for model in (kg.Model(inputs=x, outputs=y), kg.Model(x, y), kg.Model(x, outputs=y)):
        assert type(model) is kg.Functional
        assert isinstance(model, kg.Model) and isinstance(model, kg.Layer)
        assert model.built
    assert isinstance(kg.Functional(x, y), kg.Model)


def test_input_layer_and_model_layers():
    x = kg.Input(shape=(3,), name="pixels")
    h = layers.Dense(4, name="hidden")(x)
    model = kg.Model(x, layers.Dense(2, name="logits")(h), name="net")
    assert model.name == "net"
    assert [layer.name for layer in model.layers] == ["pixels", "hidden", "logits"]
    assert isinstance(model.layers[0], kg.InputLayer)
    assert model.layers[0].batch_shape == (None, 3)
    assert model.get_layer("hidden") is model.layers[1]
    assert model.get_layer(index=-1).name == "logits"
    assert model.input_names == ["pixels"]
    with pytest.raises(ValueError, match="No such layer: 'nope'"):
        model.get_layer("nope")
    with pytest.raises(ValueError, match="out of range"):
        model.get_layer(index=3)


def test_input_layer_from_existing_tensor():
    layer = kg.InputLayer(shape=(2, 3), batch_size=4, name="explicit")
    tensor = layer._inbound_nodes[0].outputs[0]
    assert tensor.shape == (4, 2, 3) and tensor.name == "explicit"
    model = kg.Model(tensor, layers.Flatten()(tensor))
    assert model(jnp.ones((4, 2, 3))).shape == (4, 6)


def test_single_tensor_in_and_out(rng):
    x = kg.Input(shape=(3,))
    model = kg.Model(x, layers.Dense(2)(x))
    values = _data(rng, 4, 3)
    out = _apply(model, values)
    assert isinstance(out, jax.Array) and out.shape == (4, 2)
    np.testing.assert_allclose(out, model(values), rtol=1e-6)
    # a one-element list is accepted for a single-input model
    np.testing.assert_allclose(model([values]), out, rtol=1e-6)


def test_list_inputs_and_outputs(tree_allclose, rng):
    a, b = kg.Input(shape=(2,), name="a"), kg.Input(shape=(3,), name="b")
    c = layers.Concatenate()([a, b])
    d = layers.Dense(4)(c)
    model = kg.Model([a, b], [d, c])
    va, vb = _data(rng, 5, 2), _data(rng, 5, 3)
    out = _apply(model, [va, vb])
    assert isinstance(out, list) and len(out) == 2
    assert jax.tree_util.tree_structure(out) == jax.tree_util.tree_structure([0, 0])
    np.testing.assert_allclose(out[1], np.concatenate([va, vb], axis=-1))
    assert tree_allclose(out, model([va, vb]))
    # a dict keyed by input name also works for a list-input model, in any key order
    assert tree_allclose(model({"b": vb, "a": va}), out)
    with pytest.raises(ValueError, match=r"expects 2 input\(s\) \['a', 'b'\], but it received 1"):
        model([va])
    with pytest.raises(ValueError, match=r"missing input\(s\) \['b'\]"):
        model({"a": va})


def test_dict_inputs_and_outputs_keep_structure(tree_allclose, rng):
    a, b = kg.Input(shape=(2,), name="a"), kg.Input(shape=(3,), name="b")
    model = kg.Model(inputs={"b": b, "a": a},
                     outputs={"sum": layers.Dense(2)(b) + a, "both": [a, {"b": b}]})
    va, vb = _data(rng, 5, 2), _data(rng, 5, 3)
    out = _apply(model, {"a": va, "b": vb})
    assert set(out) == {"sum", "both"}
    expected_tree = jax.tree_util.tree_structure({"sum": 0, "both": [0, {"b": 0}]})
    assert jax.tree_util.tree_structure(out) == expected_tree
    np.testing.assert_array_equal(out["both"][0], va)
    np.testing.assert_array_equal(out["both"][1]["b"], vb)
    assert tree_allclose(out, model({"a": va, "b": vb}))
    with pytest.raises(ValueError, match="expects a dict of inputs"):
        model([va, vb])
    with pytest.raises(ValueError, match=r"missing input\(s\) \['b'\]"):
        model({"a": va})


def test_output_may_be_an_input(rng):
    x = kg.Input(shape=(3,))
    model = kg.Model(x, [x, layers.Dense(1)(x)])
    values = _data(rng, 2, 3)
    out = _apply(model, values)
    np.testing.assert_array_equal(out[0], values)
    assert len(compiler.compile(model).nodes) == 1


def test_unused_input_is_allowed(rng):
    a, b = kg.Input(shape=(3,)), kg.Input(shape=(3,))
    model = kg.Model([a, b], layers.Dense(2)(a))
    va = _data(rng, 2, 3)
    np.testing.assert_allclose(_apply(model, [va, _data(rng, 2, 3)]), model([va, va]), rtol=1e-6)


def test_model_needs_inputs_and_outputs():
    with pytest.raises(ValueError, match="at least one input and one output"):
        kg.Model([], [])


def _inner_model():
    i = kg.Input(shape=(3,), name="inner_in")
    h = layers.Dense(4, name="dense", activation="tanh")(i)
    return kg.Model(i, layers.Dense(3, name="dense_out")(h), name="inner")


def test_nested_model_symbolic_and_eager(tree_allclose, rng):
    inner = _inner_model()
    x = kg.Input(shape=(3,))
    h = inner(x)
    assert isinstance(h, kg.KerasTensor) and h.shape == (None, 3)
    assert h._keras_history == kg.KerasHistory(inner, 0, 0)
    outer = kg.Model(x, layers.Dense(2, name="dense")(h), name="outer")

    params, state = compiler.variables(outer)
    assert params["inner"]["dense"]["kernel"].shape == (3, 4)
    assert params["inner"]["dense_out"]["kernel"].shape == (4, 3)
    assert params["dense"]["kernel"].shape == (3, 2)  # same name at another level: fine
    init_params, _ = compiler.compile(outer).init(jax.random.PRNGKey(0))
    assert jax.tree_util.tree_structure(init_params) == jax.tree_util.tree_structure(params)

    values = _data(rng, 4, 3)
    inner_eager = inner(values)  # the inner model still works on its own
    expected = outer.get_layer("dense")(inner_eager)
    assert tree_allclose(outer(values), expected)
    assert tree_allclose(_apply(outer, values), expected)
    assert outer.count_params() == inner.count_params() + 3 * 2 + 2


def test_nested_model_called_twice_shares_weights(tree_allclose, rng):
    inner = _inner_model()
    a, b = kg.Input(shape=(3,)), kg.Input(shape=(3,))
    outer = kg.Model([a, b], layers.Add()([inner(a), inner(b)]))
    assert len(inner._inbound_nodes) == 2
    params, _ = compiler.variables(outer)
    assert set(params) == {"inner"}
    va, vb = _data(rng, 2, 3), _data(rng, 2, 3)
    assert tree_allclose(_apply(outer, [va, vb]), inner(va) + inner(vb), rtol=1e-5)


def test_nested_model_training_reaches_inner_layers(rng):
    i = kg.Input(shape=(3,))
    inner = kg.Model(i, layers.BatchNormalization(momentum=0.0, name="bn")(i), name="inner")
    x = kg.Input(shape=(3,))
    outer = kg.Model(x, inner(x))
    program = compiler.compile(outer)
    params, state = program.init(jax.random.PRNGKey(0))
    values = _data(rng, 8, 3)
    _, new_state = program.apply(params, state, values, training=True)
    np.testing.assert_allclose(new_state["inner"]["bn"]["moving_mean"], values.mean(0),
                               rtol=1e-5, atol=1e-6)


def test_mixing_symbolic_and_arrays_raises():
    a, b = kg.Input(shape=(3,)), kg.Input(shape=(3,))
    model = kg.Model([a, b], layers.Add()([a, b]), name="pair")
    with pytest.raises(TypeError, match="mix of symbolic tensors and arrays"):
        model([kg.Input(shape=(3,)), np.ones((1, 3))])
