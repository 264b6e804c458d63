"""Keras objects inside a layer's ``get_config`` (keras.io's serialization guide: a layer
returning its sub-layers as objects, rebuilt by ``keras.layers.deserialize`` in its
``from_config``) are serialized recursively, as Keras's ``serialize_keras_object``: the same
guide code run under Keras and kgraph gives the same configs, ``Model.from_config`` and
``.keras`` files (each library's file read by the other) rebuild the same model."""

from __future__ import annotations

import keras
import numpy as np

import kgraph as kg

X = np.random.default_rng(0).normal(size=(4, 32)).astype("float32")


def _guide_model(lib):
    """The guide's ``CustomLayer`` (registered in ``lib``) in a functional model."""
    @lib.saving.register_keras_serializable(package="NestedConfigGuide")
    class CustomLayer(lib.layers.Layer):
        def __init__(self, first_layer, second_layer=None, **kwargs):
            super().__init__(**kwargs)
            self.first_layer = first_layer
            if second_layer is not None:
                self.second_layer = second_layer
            else:
                self.second_layer = lib.layers.Dense(8)

        def get_config(self):
            config = super().get_config()
            config.update({"first_layer": self.first_layer,
                           "second_layer": self.second_layer})
            return config

        @classmethod
        def from_config(cls, config):
            config["first_layer"] = lib.layers.deserialize(config["first_layer"])
            config["second_layer"] = lib.layers.deserialize(config["second_layer"])
            return cls(**config)

        def call(self, inputs):
            return self.first_layer(self.second_layer(inputs))

    inputs = lib.Input((32,))
    outputs = CustomLayer(first_layer=lib.layers.Dense(16, name="first"), name="custom")(inputs)
    return lib.Model(inputs, outputs)


def _inner_configs(model):
    """The custom layer's nested layer configs: class and units, and the first one's given
    name (the second's is an automatic one, which depends on the layers made before)."""
    layer = model.get_config()["layers"][1]
    assert layer["class_name"] == "CustomLayer"
    inner = {key: (layer["config"][key]["class_name"], layer["config"][key]["config"]["units"])
             for key in ("first_layer", "second_layer")}
    return inner, layer["config"]["first_layer"]["config"]["name"]


def test_the_guides_nested_layers_serialize_and_rebuild_as_kerass(tmp_path):
    theirs, ours = _guide_model(keras), _guide_model(kg)
    weights = [np.asarray(w) for w in theirs.get_weights()]
    ours.set_weights(weights)
    assert _inner_configs(ours) == _inner_configs(theirs)
    expected = theirs.predict(X, verbose=0)
    np.testing.assert_allclose(ours.predict(X, verbose=0), expected, rtol=1e-5, atol=1e-6)
    rebuilt = kg.Model.from_config(ours.get_config())
    assert isinstance(rebuilt.layers[1].first_layer, kg.layers.Dense)
    rebuilt.set_weights(weights)
    np.testing.assert_allclose(rebuilt.predict(X, verbose=0), expected, rtol=1e-5, atol=1e-6)
    assert isinstance(kg.Model.from_config(kg.Model.from_config(rebuilt.get_config())
                                           .get_config()).layers[1].second_layer,
                      kg.layers.Dense)
    for lib, model in ((keras, theirs), (kg, ours)):
        model.save(str(tmp_path / f"{lib.__name__}.keras"))
    for path in ("keras.keras", "kgraph.keras"):
        for lib in (keras, kg):
            loaded = lib.saving.load_model(str(tmp_path / path))
            np.testing.assert_allclose(loaded.predict(X, verbose=0), expected, rtol=1e-5,
                                       atol=1e-6, err_msg=f"{path} loaded by {lib.__name__}")
