"""How models take their inputs, as Keras's: optional inputs given None, arrays cast to
their Input's dtype, structures matched (with Keras's warning and errors), an unbuilt
Sequential run layer by layer on a structure, and clone_model / export / InputLayer
arguments. Each case is run under Keras and kgraph and compared."""

import warnings

import keras
import numpy as np
import pytest

import kgraph as kg

LIBS = [keras, kg]
X = np.ones((2, 2), np.float32)


def _optional_model(lib):
    class AddIfGiven(lib.layers.Layer):
        def call(self, x, y=None):
            return x if y is None else x + y

        def compute_output_shape(self, x_shape):
            return x_shape

    a = lib.Input((2,), name="a")
    b = lib.Input((2,), name="b", optional=True)
    return lib.Model({"a": a, "b": b}, AddIfGiven()(a, b))


@pytest.mark.parametrize("lib", LIBS)
def test_optional_input_takes_none_and_a_required_one_refuses_it(lib):
    model = _optional_model(lib)
    np.testing.assert_allclose(model({"a": X, "b": None}), X)
    np.testing.assert_allclose(model({"a": X, "b": X}), 2 * X)
    np.testing.assert_allclose(model([X, None]), X)  # a list, in sorted-key order
    assert model.get_layer("b").get_config()["optional"] is True
    x = lib.Input((2,), name="x")
    required = lib.Model(x, lib.layers.Dense(1)(x))
    required.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="not optional"):
        required.fit([None], np.ones((4, 1)), epochs=1, verbose=0)


@pytest.mark.parametrize("lib", LIBS)
def test_optional_input_trains_with_none(lib):
    model = _optional_model(lib)
    model.compile(optimizer="sgd", loss="mse")
    model.fit({"a": X, "b": None}, X, epochs=1, verbose=0)
    assert model.predict({"a": X, "b": None}, verbose=0).shape == (2, 2)


def test_arrays_take_their_inputs_dtype_as_keras():
    dtypes = []
    for lib in LIBS:
        f, i = lib.Input((2,), dtype="float16"), lib.Input((2,), dtype="int32")
        model = lib.Model((f, i), (f + 2, i + 2))
        out = model((np.ones((2, 2)), np.ones((2, 2))))
        dtypes.append([str(np.dtype(t.dtype)) for t in out])
    assert dtypes[0] == dtypes[1] == ["float16", "int32"]


@pytest.mark.parametrize("lib", LIBS)
def test_input_structure_warning_and_errors_are_kerass(lib):
    a, b = lib.Input((2,), name="a"), lib.Input((2,), name="b")
    model = lib.Model({"a": a, "b": b}, lib.layers.Add()([a, b]))
    with pytest.warns(UserWarning, match="The structure of `inputs` doesn't match"):
        model([X, X])
    unsorted = lib.Model({"b": b, "a": a}, lib.layers.Add()([a, b]))
    with pytest.raises(ValueError, match="The structure of `inputs` doesn't match"):
        unsorted([X, X])
    with pytest.raises(ValueError, match=r"named input\(s\) with keys"):
        model(X)
    listed = lib.Model([a, b], lib.layers.Add()([a, b]))
    with pytest.raises(ValueError, match=r"expects 2 .*input"):
        listed(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        listed((X, X))  # a tuple for a list: no warning
    x = lib.Input((3,), name="foo")
    with pytest.raises(ValueError, match="name 'foo' .* path ''"):
        lib.Model(x, lib.layers.Dense(3)(x))(np.ones((2, 3, 4)))
    i1, i2 = lib.Input((2,), name="i1"), lib.Input((2,), name="i2")
    with pytest.raises(ValueError, match="Output with path `o2` is not connected"):
        lib.Model(i1, {"o1": i1 * 2, "o2": i2 * 3})


def test_unbuilt_sequential_runs_layer_by_layer_on_a_structure():
    results = []
    for lib in LIBS:
        class Keys(lib.layers.Layer):
            def call(self, inputs):
                return {k: v * 2 for k, v in inputs.items()}

        model = lib.Sequential([Keys()])
        out = model({"a": X, "b": 3 * X})
        results.append({k: np.asarray(v) for k, v in out.items()})
        shape = lib.Sequential([lib.layers.Dense(4), lib.layers.Dense(8)]).compute_output_shape(
            (1, 2))
        assert tuple(shape) == (1, 8)
    np.testing.assert_allclose(results[0]["b"], results[1]["b"])


@pytest.mark.parametrize("lib", LIBS)
def test_sequential_layer_without_output_shape_runs_layer_by_layer(lib):
    class Dynamic(lib.layers.Layer):
        def call(self, inputs):
            return inputs + 1.0

        def compute_output_spec(self, *args, **kwargs):
            raise NotImplementedError

    model = lib.Sequential([Dynamic()])
    np.testing.assert_allclose(model(X), X + 1)
    assert type(model._functional).__name__ == "NoneType"

    class NeedsTraining(lib.layers.Layer):
        def call(self, inputs, training):
            return inputs

    with pytest.raises(ValueError, match="can only have a single.*positional"):
        lib.Sequential([NeedsTraining()]).build((None, 2))


@pytest.mark.parametrize("lib", LIBS)
def test_clone_model_keeps_compile_and_checks_input_structure(lib):
    x, y = lib.Input((3,), name="x"), lib.Input((3,), name="y")
    model = lib.Model({"x": x, "y": y}, lib.layers.Dense(2)(x + y))
    model.compile(optimizer="adam", loss="mse")
    clone = lib.models.clone_model(model, input_tensors={"x": x, "y": y})
    assert clone.compiled and sorted(clone.input) == ["x", "y"]
    with pytest.raises(ValueError, match="must have the same structure as model.input"):
        lib.models.clone_model(model, input_tensors=(x, y))


@pytest.mark.parametrize("lib", LIBS)
def test_export_format_and_layers_setter_errors(lib):
    x = lib.Input((3,))
    model = lib.Model(x, lib.layers.Dense(2)(x))
    with pytest.raises(ValueError, match="Unrecognized format="):
        model.export("unused", format="bad_format")
    with pytest.raises(AttributeError, match="`Model.layers` attribute is reserved"):
        model.layers = []
    with pytest.raises(AttributeError, match=r"Use `add\(\)` and `pop\(\)`"):
        lib.Sequential().layers = []


def test_input_layer_arguments_are_kerass():
    for lib in LIBS:
        with pytest.warns(UserWarning, match="`input_shape` is deprecated"):
            layer = lib.layers.InputLayer(input_shape=(2, 3), batch_size=4)
        assert tuple(layer.batch_shape) == (4, 2, 3)
        assert layer.sparse is False and layer.ragged is False and layer.optional is False
        assert layer.output.sparse is False
        for kwargs, message in (({"shape": (2,), "batch_shape": (None, 2)},
                                 "cannot pass both `shape` and `batch_shape`"),
                                ({"batch_size": 2, "batch_shape": (None, 2)},
                                 "cannot pass both `batch_size` and `batch_shape`"),
                                ({}, "pass a `shape` argument")):
            with pytest.raises(ValueError, match=message):
                lib.layers.InputLayer(**kwargs)
    with pytest.raises(ValueError, match="`sparse=True` is not supported"):
        kg.layers.InputLayer(shape=(2,), sparse=True)


def test_tuple_outputs_survive_the_config_and_output_shapes_are_kerass():
    shapes = []
    for lib in LIBS:
        x = lib.Input((3,), name="x")
        model = lib.Model(x, (lib.layers.Dense(4)(x), lib.layers.Dense(5)(x)))
        restored = type(model).from_config(model.get_config())
        assert isinstance(restored(np.ones((2, 3))), tuple)
        assert isinstance(restored(lib.Input((3,))), tuple)
        shapes.append(tuple(tuple(s) for s in model.compute_output_shape((2, 3))))
    assert shapes[0] == shapes[1] == ((2, 4), (2, 5))


def _outer(lib):
    x = lib.Input((3,))
    functional = lib.Model(x, lib.layers.Dense(2, name="fd")(x), name="func")

    class Outer(lib.Model):
        def __init__(self):
            super().__init__(name="outer")
            self.seq = lib.Sequential([lib.layers.Dense(3, name="sd")], name="seq")
            self.seq_in = lib.Sequential([lib.Input((3,)), lib.layers.Dense(3, name="sid")],
                                         name="seqin")
            self.func = functional
            self.top = lib.layers.Dense(1, name="top")

        def call(self, x):
            return self.top(self.func(self.seq_in(self.seq(x))))

    model = Outer()
    model(np.ones((2, 3), np.float32))
    model.compile(optimizer="sgd", loss="mse")
    return model


def _paths(tree, prefix=""):
    return sorted(p for k, v in tree.items()
                  for p in (_paths(v, f"{prefix}{k}/") if isinstance(v, dict) else [prefix + k]))


def test_subclassed_models_layers_and_nested_models_variable_paths_are_kerass():
    theirs, ours = _outer(keras), _outer(kg)
    assert [layer.name for layer in ours.layers] == [layer.name for layer in theirs.layers]
    with pytest.raises(AttributeError, match="`Model.layers` attribute is reserved"):
        ours.layers = []
    assert (_paths(ours.get_state_tree()["trainable_variables"])
            == _paths(theirs.get_state_tree()["trainable_variables"]))


@pytest.mark.parametrize("lib", LIBS)
def test_deferred_sequential_keeps_its_masks_when_compiled(lib):
    # a Sequential built on first use still runs its graph (and its masks) when compiled
    model = lib.Sequential([lib.layers.Embedding(2, 2, mask_zero=True,
                                                 embeddings_initializer="ones")])
    model.compile(loss="mse")
    targets = np.array([[[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [1.0, 1.0]]])
    assert model.evaluate(np.array([[1, 0, 0, 1]]), targets, verbose=0) == pytest.approx(0.0)
