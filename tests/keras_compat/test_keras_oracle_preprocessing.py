"""Preprocessing layers against Keras 3 (JAX backend): Normalization after adapt (statistics,
weights, outputs), Resizing, CenterCrop, Rescaling; same output shapes and config keys."""


import numpy as np
import pytest

from kgraph import layers

keras = pytest.importorskip("keras")


def _config_keys_match(keras_layer, kg_layer):
    assert set(kg_layer.get_config()) == set(keras_layer.get_config())


@pytest.mark.parametrize("kwargs, shape", [
    ({}, (40, 3)),
    ({"axis": (1, 2)}, (30, 2, 3)),
    ({"axis": None}, (20, 4)),
    ({"axis": 1, "invert": True}, (25, 3, 2)),
])
def test_normalization_after_adapt(kwargs, shape, rng):
    data = rng.normal(3.0, 2.0, size=shape).astype(np.float32)
    keras_layer = keras.layers.Normalization(**kwargs)
    kg_layer = layers.Normalization(**kwargs)
    keras_layer.adapt(data)
    kg_layer.adapt(data)
    assert [w.name for w in kg_layer.weights] == [w.name for w in keras_layer.weights]
    for expected, got in zip(keras_layer.get_weights()[:2], kg_layer.get_weights()[:2]):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    x = rng.normal(3.0, 2.0, size=(4, *shape[1:])).astype(np.float32)
    np.testing.assert_allclose(kg_layer(x), keras_layer(x), rtol=1e-5, atol=1e-5)
    # Keras's weights load into an un-adapted layer
    restored = layers.Normalization(**kwargs)
    restored.build(shape)
    restored.set_weights(keras_layer.get_weights())
    np.testing.assert_allclose(restored(x), keras_layer(x), rtol=1e-5, atol=1e-5)
    _config_keys_match(keras_layer, kg_layer)


def test_normalization_with_given_mean_and_variance(rng):
    kwargs = {"axis": -1, "mean": [1.0, -2.0, 0.5], "variance": [4.0, 1.0, 0.25]}
    keras_layer, kg_layer = keras.layers.Normalization(**kwargs), layers.Normalization(**kwargs)
    x = rng.normal(size=(2, 4, 3)).astype(np.float32)
    np.testing.assert_allclose(kg_layer(x), keras_layer(x), rtol=1e-6, atol=1e-6)
    assert kg_layer.get_config()["mean"] == keras_layer.get_config()["mean"]


@pytest.mark.parametrize("kwargs, shape", [
    ({"height": 4, "width": 6}, (2, 7, 9, 3)),
    ({"height": 10, "width": 5}, (2, 7, 9, 3)),
    ({"height": 4, "width": 4, "crop_to_aspect_ratio": True}, (2, 7, 9, 1)),
    ({"height": 5, "width": 3, "pad_to_aspect_ratio": True, "fill_value": 0.5}, (2, 7, 9, 2)),
    ({"height": 3, "width": 5, "data_format": "channels_first"}, (2, 3, 8, 8)),
    ({"height": 4, "width": 5, "interpolation": "nearest"}, (2, 7, 9, 3)),
    ({"height": 4, "width": 5, "interpolation": "bicubic"}, (2, 7, 9, 3)),
    ({"height": 4, "width": 5, "interpolation": "lanczos3", "antialias": True}, (2, 7, 9, 3)),
    ({"height": 4, "width": 5}, (7, 9, 3)),  # one unbatched image
])
def test_resizing(kwargs, shape, rng):
    keras_layer, kg_layer = keras.layers.Resizing(**kwargs), layers.Resizing(**kwargs)
    images = rng.random(shape).astype(np.float32)
    expected = np.asarray(keras_layer(images))
    np.testing.assert_allclose(kg_layer(images), expected, rtol=1e-5, atol=1e-5)
    symbolic = (None, *shape[1:]) if len(shape) == 4 else shape
    assert kg_layer.compute_output_shape(symbolic) == tuple(
        keras_layer.compute_output_shape(symbolic))
    _config_keys_match(keras_layer, kg_layer)


def test_resizing_integer_images(rng):
    pixels = (rng.random((2, 7, 9, 3)) * 255).astype(np.uint8)
    expected = np.asarray(keras.layers.Resizing(4, 5)(pixels))
    got = np.asarray(layers.Resizing(4, 5)(pixels))
    assert got.dtype == expected.dtype == np.uint8
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("kwargs, shape", [
    ({"height": 3, "width": 4}, (2, 7, 9, 3)),
    ({"height": 3, "width": 4, "data_format": "channels_first"}, (2, 3, 7, 9)),
    ({"height": 10, "width": 12}, (2, 7, 9, 1)),  # larger than the image: crop + resize
    ({"height": 5, "width": 12}, (2, 7, 9, 1)),  # mixed
])
def test_center_crop(kwargs, shape, rng):
    keras_layer, kg_layer = keras.layers.CenterCrop(**kwargs), layers.CenterCrop(**kwargs)
    images = rng.random(shape).astype(np.float32)
    np.testing.assert_allclose(kg_layer(images), keras_layer(images), rtol=1e-5, atol=1e-5)
    _config_keys_match(keras_layer, kg_layer)


@pytest.mark.parametrize("scale, offset, dtype", [
    (1 / 255, 0.0, np.uint8), (2.0, -1.0, np.float32), ([0.5, 2.0, 1.0], 0.25, np.float32),
])
def test_rescaling(scale, offset, dtype, rng):
    keras_layer = keras.layers.Rescaling(scale, offset=offset)
    kg_layer = layers.Rescaling(scale, offset=offset)
    x = (rng.random((2, 4, 3)) * 255).astype(dtype)
    np.testing.assert_allclose(kg_layer(x), keras_layer(x), rtol=1e-6, atol=1e-6)
    _config_keys_match(keras_layer, kg_layer)
