"""Colour augmentation layers: Keras's numbers where the transform is fixed (degenerate
factors, AutoContrast), the right frequencies otherwise, Keras's configs, off in inference."""


import keras
import numpy as np
import pytest

import kgraph as kg

_img = (np.random.default_rng(0).random((4, 9, 7, 3)) * 255).astype("float32")
_unit = _img / 255

FIXED = [  # (name, kwargs, images): the transform is the same for every draw
    ("RandomGrayscale", {"factor": 1.0}, _img),
    ("RandomGrayscale", {"factor": 1.0, "data_format": "channels_first"},
     np.moveaxis(_img, -1, 1)),
    ("RandomInvert", {"factor": (1.0, 1.0)}, _img),
    ("RandomInvert", {"factor": (1.0, 1.0), "value_range": (0, 1)}, _unit),
    ("Solarization", {}, _img),  # addition 0, threshold 0: every pixel inverted
    ("Solarization", {"value_range": (0, 1)}, _unit),
    ("AutoContrast", {}, _img), ("AutoContrast", {"value_range": (0, 1)}, _unit * 0.5 + 0.2),
    ("RandomColorDegeneration", {"factor": (0.3, 0.3)}, _img),
    ("RandomColorDegeneration", {"factor": (1.0, 1.0), "value_range": (0, 1)}, _unit),
    ("RandomSharpness", {"factor": (0.9, 0.9)}, _img),
    ("RandomSharpness", {"factor": (0.1, 0.1), "data_format": "channels_first"},
     np.moveaxis(_img, -1, 1)),
    ("RandomPosterization", {"factor": (3, 3)}, _img),
    ("RandomPosterization", {"factor": (1, 1), "value_range": (0, 1)}, _unit),
]


@pytest.mark.parametrize("name, kwargs, images", FIXED, ids=[f"{c[0]}-{i}"
                                                          for i, c in enumerate(FIXED)])
def test_fixed_transforms_match_keras(name, kwargs, images):
    ours, theirs = getattr(kg.layers, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    np.testing.assert_allclose(np.asarray(ours(images, training=True)),
                               np.asarray(theirs(images, training=True)), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(np.asarray(ours(images, training=False)),
                               np.asarray(theirs(images, training=False)), rtol=1e-5, atol=1e-4)
    ours_config, theirs_config = ours.get_config(), theirs.get_config()
    assert set(ours_config) <= set(theirs_config) | {"data_format"}
    rebuilt = getattr(kg.layers, name).from_config(ours_config)
    assert rebuilt.get_config() == ours_config


def test_random_choices_happen_at_keras_rates_per_image():
    images = np.random.default_rng(1).random((2000, 2, 2, 3)).astype("float32") * 255
    grey = np.asarray(kg.layers.RandomGrayscale(0.3, seed=1)(images))
    is_grey = np.all(np.isclose(grey, grey[..., :1], atol=1e-3), axis=(1, 2, 3))
    assert 0.26 < is_grey.mean() < 0.34
    inverted = np.asarray(kg.layers.RandomInvert(1.0, seed=1)(images))
    flipped = np.all(np.isclose(inverted, 255 - images), axis=(1, 2, 3))
    kept = np.all(inverted == images, axis=(1, 2, 3))
    assert np.all(flipped | kept) and 0.45 < flipped.mean() < 0.55  # Keras: p ~ U(0, 1)


def test_solarization_stays_in_range_and_bad_factors_are_refused():
    out = np.asarray(kg.layers.Solarization(addition_factor=0.5, threshold_factor=0.5,
                                            seed=0)(_img))
    assert out.min() >= 0 and out.max() <= 255 and not np.allclose(out, _img)
    with pytest.raises(ValueError, match="within"):
        kg.layers.Solarization(addition_factor=2.0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        kg.layers.RandomGrayscale(1.5)
    with pytest.raises(ValueError, match="value_range"):
        kg.layers.AutoContrast(value_range=(0, 1, 2))


@pytest.mark.parametrize("name, args", [
    ("Solarization", ()), ("AutoContrast", ()), ("RandomGrayscale", ()), ("RandomInvert", ()),
    ("RandomColorDegeneration", (0.5,)), ("RandomSharpness", (0.5,)),
    ("RandomPosterization", (4,)), ("RandomSaturation", (0.5,)), ("RandomHue", (0.5,)),
    ("RandomGaussianBlur", ())])
def test_kerass_files_with_the_layer_load(name, args, tmp_path):
    x = keras.Input((9, 7, 3))
    model = keras.Model(x, getattr(keras.layers, name)(*args)(x))
    model.save(tmp_path / "m.keras")
    loaded = kg.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(np.asarray(loaded(_img, training=False)),
                               np.asarray(model(_img, training=False)), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("value_range, images", [((0, 255), _img), ((0, 1), _unit)])
def test_hue_and_saturation_transforms_match_kerass(value_range, images):
    """The transforms themselves, for given per-image amounts (Keras draws them with its
    own generator): Keras's ``transform_images`` against kgraph's."""
    deltas = np.array([-0.4, -0.05, 0.2, 0.45], "float32")
    ours = kg.layers.RandomHue(0.5, value_range=value_range)
    theirs = keras.layers.RandomHue(0.5, value_range=value_range)
    np.testing.assert_allclose(
        np.asarray(ours._turn(images, deltas)),
        np.asarray(theirs.transform_images(images, {"factor": deltas})), rtol=1e-5, atol=1e-3)
    scales = np.array([0.0, 0.5, 1.0, 3.0], "float32")
    ours = kg.layers.RandomSaturation(0.5, value_range=value_range)
    theirs = keras.layers.RandomSaturation(0.5, value_range=value_range)
    np.testing.assert_allclose(
        np.asarray(ours._saturate(images, scales)),
        np.asarray(theirs.transform_images(images, {"factor": scales})), rtol=1e-5, atol=1e-3)


def test_hue_and_saturation_change_images_only_in_training():
    for layer in (kg.layers.RandomHue(0.8, seed=1), kg.layers.RandomSaturation(0.9, seed=1)):
        assert not np.allclose(np.asarray(layer(_img, training=True)), _img, atol=1e-2)
        np.testing.assert_array_equal(np.asarray(layer(_img, training=False)), _img)


@pytest.mark.parametrize("kwargs", [{}, {"kernel_size": (3, 5), "value_range": (0, 300)}])
def test_gaussian_blur_matches_kerass_transform(kwargs):
    apply = np.array([True, False, True, True])
    sigma = np.array([0.7, 0.3], "float32")
    ours = kg.layers.RandomGaussianBlur(**kwargs)
    theirs = keras.layers.RandomGaussianBlur(**kwargs)
    np.testing.assert_allclose(
        np.asarray(ours._blur(_img, apply, sigma)),
        np.asarray(theirs.transform_images(_img, {"should_apply_blur": apply,
                                                   "blur_factor": sigma})),
        rtol=1e-5, atol=1e-3)
    assert ours.get_config().keys() <= theirs.get_config().keys() | {"data_format"}
    blurred = np.asarray(kg.layers.RandomGaussianBlur(factor=(1.0, 1.0), seed=0)(_img))
    assert not np.allclose(blurred, _img)
    with pytest.raises(ValueError, match="odd"):
        kg.layers.RandomGaussianBlur(kernel_size=4)
