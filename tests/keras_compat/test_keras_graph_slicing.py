"""A Functional made on intermediate tensors of a graph (its own ``Input`` for each,
Keras's ``clone_graph_nodes``), a layer's ``input`` / ``output`` after several calls
(its first call's), and Functional configs in Keras 2's ``inbound_nodes`` form, as
Keras 3 reads them."""

import keras
import numpy as np
import pytest

import kgraph as kg

_X = np.random.default_rng(0).normal(size=(2, 5, 2)).astype("float32")


def _slices(lib):
    inputs = lib.Input(shape=(None, 2), name="input")
    x1 = lib.layers.Dense(3, name="dense1", kernel_initializer="ones")(inputs)
    x2 = lib.layers.Dense(4, name="dense2", kernel_initializer="ones")(x1)
    outputs = lib.layers.Dense(5, name="dense3", kernel_initializer="ones")(x2)
    full = lib.Model(inputs, outputs)
    return full, [lib.Model(x2, outputs), lib.Model(x1, x2),
                  lib.Model(full.get_layer("dense2").input, outputs),
                  lib.Model(full.get_layer("dense1").input, full.get_layer("dense2").output)]


def test_models_on_intermediate_tensors_as_keras():
    (full, ours), (_, theirs) = _slices(kg), _slices(keras)
    for mine, keras_model in zip(ours, theirs):
        assert [type(layer).__name__ for layer in mine.layers] == \
            [type(layer).__name__ for layer in keras_model.layers]
        assert [layer.name for layer in mine.layers[1:]] == \
            [layer.name for layer in keras_model.layers[1:]]
        x = np.ones((2, 5) + tuple(mine.inputs[0].shape[2:]), "float32")
        np.testing.assert_allclose(np.asarray(mine(x)), np.asarray(keras_model(x)), rtol=1e-6)
    # the original graph is left as it was
    assert [layer.name for layer in full.layers] == ["input", "dense1", "dense2", "dense3"]
    np.testing.assert_allclose(np.asarray(full(_X)), np.asarray(_slices(keras)[0](_X)),
                               rtol=1e-6)


def test_a_layer_called_twice_gives_its_first_calls_tensors():
    for lib in (kg, keras):
        layer = lib.layers.Dense(2)
        x = lib.Input(shape=(3,))
        y = layer(x)
        layer(lib.Input(shape=(3,)))
        assert layer.input is x and layer.output is y


def _legacy_config(output="c", loop=False):
    def dense(name, units, *calls):
        return {"class_name": "Dense", "name": name, "config": {"units": units, "name": name},
                "inbound_nodes": [list(calls)]}

    layers = [{"class_name": "InputLayer", "name": "input_1", "inbound_nodes": [],
               "config": {"batch_input_shape": [None, 3], "dtype": "float32",
                          "name": "input_1"}},
              dense("a", 2, ["b" if loop else "input_1", 0, 0, {}]),
              dense("b", 2, ["a" if loop else "input_1", 0, 0]),
              {"class_name": "Add", "name": "add", "config": {"name": "add"},
               "inbound_nodes": [[["a", 0, 0, {}], ["b", 0, 0, {}]]]},
              dense("c", 1, ["add", 0, 0, {}])]
    return {"name": "legacy", "layers": layers, "input_layers": [["input_1", 0, 0]],
            "output_layers": [[output, 0, 0]]}


def test_keras_2_inbound_nodes_load_as_keras_3_loads_them():
    ours, theirs = kg.Model.from_config(_legacy_config()), \
        keras.Model.from_config(_legacy_config())
    assert [layer.name for layer in ours.layers] == [layer.name for layer in theirs.layers]
    ours.set_weights(theirs.get_weights())
    x = np.ones((2, 3), "float32")
    np.testing.assert_allclose(np.asarray(kg.tree.flatten(ours(x))[0]),
                               np.asarray(theirs(x)), rtol=1e-6)


@pytest.mark.parametrize("config, message", [
    (_legacy_config(loop=True), "loop"),
    ({**_legacy_config(), "layers": _legacy_config()["layers"][:1] + [
        {**_legacy_config()["layers"][1], "inbound_nodes": [[["ghost", 0, 0, {}]]]}],
      "output_layers": [["a", 0, 0]]}, "Missing node: ghost")])
def test_broken_keras_2_configs_are_refused_as_keras_refuses_them(config, message):
    for lib in (kg, keras):
        with pytest.raises(ValueError, match=message):
            lib.Model.from_config(config)


def test_a_slice_whose_output_is_not_connected_is_refused_as_keras():
    for lib in (kg, keras):
        first = lib.Sequential([lib.Input(shape=(6,)), lib.layers.Dense(3)])
        second = lib.Sequential([lib.Input(shape=(3,)), lib.layers.Dense(2)])
        with pytest.raises(ValueError, match="Output .* is not connected to `inputs`"):
            lib.Model(first(lib.Input(shape=(6,))), second(lib.Input(shape=(3,))))
