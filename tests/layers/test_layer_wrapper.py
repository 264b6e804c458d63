"""``layers.Wrapper``: a user's wrapper layer builds, trains, nests its layer's weights and
saves like Keras's (same config keys and weights file layout as Keras's Wrapper)."""


import keras
import numpy as np
import pytest

import compiler
import kgraph as kg


def _scaled(base):
    class Scaled(base):
        """Its layer's output times a trainable scale."""

        def build(self, input_shape):
            super().build(input_shape)
            self.scale = self.add_weight(shape=(), initializer="ones", name="scale")

        def call(self, x):
            return self.scale * self.layer(x)

    return Scaled


def test_a_custom_wrapper_builds_its_layer_and_nests_its_weights(tmp_path):
    Scaled = _scaled(kg.layers.Wrapper)
    x = kg.Input((3,))
    model = kg.Model(x, Scaled(kg.layers.Dense(2), name="scaled")(x))
    params, _ = compiler.variables(model)
    assert sorted(params["scaled"]) == ["dense", "scale"]
    assert isinstance(kg.layers.TimeDistributed(kg.layers.Dense(2)), kg.layers.Wrapper)
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 3), "float32"), np.zeros((4, 2), "float32"), verbose=0)
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = kg.load_model(path, custom_objects={"Scaled": Scaled})
    for a, b in zip(loaded.get_weights(), model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_wrapper_file_loads_in_keras_with_the_same_numbers(tmp_path):
    ours_cls, theirs_cls = _scaled(kg.layers.Wrapper), _scaled(keras.layers.Wrapper)
    x = kg.Input((3,))
    model = kg.Model(x, ours_cls(kg.layers.Dense(2), name="scaled")(x))
    model.set_weights([w + 0.5 for w in model.get_weights()])
    model.save(tmp_path / "m.keras")
    theirs = keras.saving.load_model(tmp_path / "m.keras", custom_objects={"Scaled": theirs_cls})
    data = np.random.default_rng(0).normal(size=(4, 3)).astype("float32")
    np.testing.assert_allclose(np.asarray(theirs(data)), np.asarray(model(data)), rtol=1e-6)
    assert set(theirs.layers[-1].get_config()) == set(model.layers[-1].get_config())


def test_a_wrapper_needs_a_layer():
    with pytest.raises(ValueError, match="isn't a supported layer type"):
        kg.layers.Wrapper("dense")


def test_a_wrapper_infers_its_output_from_its_call_as_keras():
    class Twice(kg.layers.Wrapper):
        def call(self, x):
            y = self.layer(x)
            return kg.ops.concatenate([y, y], axis=-1)

    x = kg.Input((4, 3))
    h = Twice(kg.layers.Dense(2))(x)
    assert h.shape == (None, 4, 4)
    model = kg.Model(x, kg.layers.Dense(1)(h))
    assert model(np.ones((2, 4, 3), "float32")).shape == (2, 4, 1)
