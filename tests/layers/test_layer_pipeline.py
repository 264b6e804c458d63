"""``layers.Pipeline``: Keras's chain of preprocessing layers, with ``training`` reaching
the augmentation layers; the same numbers, config and files as Keras."""


import keras
import numpy as np
import pytest

import kgraph as kg

IMAGES = (np.random.default_rng(0).random((2, 8, 8, 3)) * 255).astype("float32")


def _pipeline(lib):
    return lib.layers.Pipeline([lib.layers.RandomFlip("horizontal"),
                                lib.layers.Rescaling(1 / 255),
                                lib.layers.CenterCrop(4, 6)], name="prep")


def test_pipeline_in_inference_matches_keras_and_files_go_both_ways(tmp_path):
    ours, theirs = _pipeline(kg), _pipeline(keras)
    np.testing.assert_allclose(np.asarray(ours(IMAGES, training=False)),
                               np.asarray(theirs(IMAGES, training=False)), rtol=1e-6)
    assert ours.get_config().keys() == theirs.get_config().keys()
    assert [type(layer).__name__ for layer in kg.layers.Pipeline.from_config(
        theirs.get_config()).layers] == ["RandomFlip", "Rescaling", "CenterCrop"]

    x = kg.Input((8, 8, 3))
    model = kg.Model(x, kg.layers.Dense(2)(_pipeline(kg)(x)))
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(np.asarray(loaded(IMAGES, training=False)),
                               np.asarray(model(IMAGES, training=False)), rtol=1e-5, atol=1e-6)
    loaded.save(tmp_path / "keras.keras")
    again = kg.load_model(tmp_path / "keras.keras")
    np.testing.assert_allclose(np.asarray(again(IMAGES, training=False)),
                               np.asarray(model(IMAGES, training=False)), rtol=1e-5, atol=1e-6)


def test_training_reaches_the_augmentation_layers():
    flip = kg.layers.Pipeline([kg.layers.RandomFlip("horizontal", seed=0)])
    batch = np.repeat(IMAGES[:1], 64, axis=0)
    trained = np.asarray(flip(batch, training=True))
    assert not np.array_equal(trained, batch)
    np.testing.assert_array_equal(np.asarray(flip(batch, training=False)), batch)


def test_a_pipeline_needs_layers():
    with pytest.raises(ValueError, match="takes a list of layers"):
        kg.layers.Pipeline(["flip"])
