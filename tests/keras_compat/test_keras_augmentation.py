"""Augmentation layers: identities in inference (RandomCrop's centre crop as Keras), keyed
and per-image in training, the right distributions and geometry, Keras's configs."""


import jax
import keras
import numpy as np
import pytest

import kgraph as kg
from tests.support.helpers import assert_keyed_in_a_program

_img = np.random.default_rng(0).random((4, 9, 7, 3)).astype("float32") * 255

LAYERS = [
    ("RandomFlip", ("horizontal",)), ("RandomRotation", (0.2,)), ("RandomZoom", (0.3, 0.2)),
    ("RandomTranslation", (0.2, 0.1)), ("RandomContrast", (0.5,)),
    ("RandomBrightness", (0.3,)), ("RandomCrop", (5, 4)),
]


@pytest.mark.parametrize("name, args", LAYERS, ids=[c[0] for c in LAYERS])
def test_inference_matches_keras_and_configs_round_trip(name, args):
    ours, theirs = getattr(kg.layers, name)(*args), getattr(keras.layers, name)(*args)
    np.testing.assert_allclose(np.asarray(ours(_img, training=False)),
                               np.asarray(theirs(_img, training=False)), rtol=1e-5, atol=1e-3)
    config = theirs.get_config()
    assert set(ours.get_config()) <= set(config) | {"data_format"}
    rebuilt = getattr(kg.layers, name).from_config(config)
    assert rebuilt.get_config() == getattr(kg.layers, name).from_config(
        rebuilt.get_config()).get_config()


@pytest.mark.parametrize("name, args", LAYERS, ids=[c[0] for c in LAYERS])
def test_training_is_keyed_per_image_and_off_in_predict(name, args):
    x = kg.Input(shape=_img.shape[1:])
    model = kg.Model(x, getattr(kg.layers, name)(*args, seed=3)(x))
    assert_keyed_in_a_program(model, _img)
    model.compile(optimizer="sgd", loss="mse")
    np.testing.assert_allclose(model.predict(_img, verbose=0),
                               np.asarray(model.layers[1](_img, training=False)), rtol=1e-6)


def test_flip_flips_about_half_of_a_large_batch():
    images = np.arange(2000 * 2 * 2, dtype=np.float32).reshape(2000, 2, 2, 1)
    out = np.asarray(kg.layers.RandomFlip("horizontal", seed=1)(images))
    flipped = np.all(out == images[:, :, ::-1], axis=(1, 2, 3))
    kept = np.all(out == images, axis=(1, 2, 3))
    assert np.all(flipped | kept) and 0.45 < flipped.mean() < 0.55


def test_rotation_by_a_quarter_turn_is_rot90_and_zero_factors_are_identities():
    square = np.random.default_rng(1).random((1, 6, 6, 1)).astype("float32")
    quarter = kg.layers.RandomRotation((0.25, 0.25), interpolation="nearest")(square)
    assert np.allclose(np.asarray(quarter)[0, ..., 0], np.rot90(square[0, ..., 0], k=1),
                       atol=1e-5) or np.allclose(np.asarray(quarter)[0, ..., 0],
                                                 np.rot90(square[0, ..., 0], k=-1), atol=1e-5)
    for layer in (kg.layers.RandomRotation(0.0), kg.layers.RandomZoom(0.0),
                  kg.layers.RandomTranslation(0.0, 0.0)):
        np.testing.assert_allclose(np.asarray(layer(_img)), _img, atol=1e-3)


def test_contrast_brightness_stay_in_range_and_crop_has_the_size():
    for layer in (kg.layers.RandomContrast(0.9, seed=1), kg.layers.RandomBrightness(0.5, seed=1)):
        out = np.asarray(layer(_img))
        assert out.min() >= 0 and out.max() <= 255 and not np.allclose(out, _img)
    out = np.asarray(kg.layers.RandomCrop(5, 4, seed=0)(_img))
    assert out.shape == (4, 5, 4, 3)
    windows = [np.any([np.array_equal(out[i], _img[i, t:t + 5, l:l + 4])
                       for t in range(5) for l in range(4)]) for i in range(4)]
    assert all(windows)


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown mode"):
        kg.layers.RandomFlip("diagonal")
    with pytest.raises(ValueError, match=r"in the range \[-1.0, 1.0\]"):
        kg.layers.RandomTranslation(1.5, 0.1)


@pytest.mark.parametrize("factor", [0.5, (0.2, 0.4), (0.0, 1.0)])
def test_contrast_factors_are_drawn_from_kerass_range_and_applied_as_keras(factor):
    """Keras 3 reads a number ``f`` as ``(0, f)``: factors in ``[1, 1 + f]``."""
    ours, theirs = kg.layers.RandomContrast(factor), keras.layers.RandomContrast(factor)
    drawn = np.asarray(ours._draw(jax.random.PRNGKey(0), 20000))
    theirs_drawn = np.asarray(theirs.get_random_transformation(
        np.zeros((20000, 1, 1, 1), "float32"))["contrast_factor"]).ravel()
    np.testing.assert_allclose([drawn.min(), drawn.max()],
                               [theirs_drawn.min(), theirs_drawn.max()], atol=2e-3)
    factors = theirs_drawn[:4]
    np.testing.assert_allclose(
        np.asarray(ours._contrast(_img, factors)),
        np.asarray(theirs.transform_images(_img, {"contrast_factor": factors.reshape(
            4, 1, 1, 1)})), rtol=1e-5, atol=1e-3)


def test_draws_and_windows_are_kerass():
    """Keras's one draw per image for both flips, one crop position per batch, its window
    for images not larger than the crop, and the factor rules of saturation and colour
    degeneration (a number f is (-f, f))."""
    images = np.random.default_rng(3).random((400, 4, 5, 1)).astype("float32")
    both = np.asarray(kg.layers.RandomFlip(seed=0)(images))
    flipped = np.all(both == images[:, ::-1, ::-1], axis=(1, 2, 3))
    kept = np.all(both == images, axis=(1, 2, 3))
    assert np.all(flipped | kept) and 0.4 < flipped.mean() < 0.6
    crops = np.asarray(kg.layers.RandomCrop(2, 3, seed=1)(images))
    starts = {(t, l) for t in range(3) for l in range(3)
              if np.array_equal(crops, images[:, t:t + 2, l:l + 3])}
    assert len(starts) == 1  # the same window for every image of the batch
    for size, target in [((8, 12), (10, 10)), ((12, 8), (10, 10)), ((6, 6), (8, 4))]:
        small = np.random.default_rng(4).random((2, *size, 3)).astype("float32") * 255
        ours = kg.layers.RandomCrop(*target)
        theirs = keras.layers.RandomCrop(*target)
        np.testing.assert_allclose(
            np.asarray(ours(small, training=True)),
            np.asarray(theirs.transform_images(small, theirs.get_random_transformation(
                small, training=True))), rtol=1e-5, atol=1e-3)
    for name in ("RandomSaturation", "RandomColorDegeneration"):
        for factor in (0.5, (0.2, 0.6), -0.2):
            assert getattr(kg.layers, name)(factor).factor == pytest.approx(
                getattr(keras.layers, name)(factor).factor)
    jitter, keras_jitter = kg.layers.RandomColorJitter(saturation_factor=0.5), \
        keras.layers.RandomColorJitter(saturation_factor=0.5)
    assert jitter._steps[0][1].factor == pytest.approx(keras_jitter.random_saturation.factor)


def test_inference_casts_to_the_compute_dtype_and_rescaling_follows_channels_first():
    ints = (_img[:2]).astype("uint8")
    for name, args in LAYERS:
        out = getattr(kg.layers, name)(*args)(ints, training=False)
        expected = getattr(keras.layers, name)(*args)(ints, training=False)
        assert np.asarray(out).dtype == np.asarray(expected).dtype, name
    kg.config.set_image_data_format("channels_first")
    keras.config.set_image_data_format("channels_first")
    try:
        first = np.moveaxis(_img[:2, :3, :3], -1, 1)  # (2, 3, 3, 3): width == channels
        scale = [0.5, 2.0, 3.0]
        np.testing.assert_allclose(np.asarray(kg.layers.Rescaling(scale)(first)),
                                   np.asarray(keras.layers.Rescaling(scale)(first)), rtol=1e-6)
    finally:
        kg.config.set_image_data_format("channels_last")
        keras.config.set_image_data_format("channels_last")
