"""Reshaping layers (Permute, RepeatVector, Cropping, ZeroPadding, UpSampling): values
against NumPy, symbolic shapes, argument errors."""

import jax.numpy as jnp
import numpy as np
import pytest

import kgraph as kg
from kgraph import layers


def _rand(rng, *shape):
    return rng.normal(size=shape).astype(np.float32)


def _check(layer, x, expected):
    out = np.asarray(layer(x))
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    symbolic = layer(kg.Input(shape=x.shape[1:])).shape
    assert symbolic == (None, *expected.shape[1:])


def test_permute_and_repeat_vector(rng):
    x = _rand(rng, 2, 3, 4, 5)
    _check(layers.Permute((3, 1, 2)), x, x.transpose(0, 3, 1, 2))
    v = _rand(rng, 2, 4)
    _check(layers.RepeatVector(3), v, np.repeat(v[:, None], 3, axis=1))


def test_cropping(rng):
    x = _rand(rng, 2, 6, 3)
    _check(layers.Cropping1D((1, 2)), x, x[:, 1:4])
    _check(layers.Cropping1D(0), x, x)
    img = _rand(rng, 2, 5, 6, 3)
    _check(layers.Cropping2D(((1, 0), (2, 1))), img, img[:, 1:, 2:5])
    _check(layers.Cropping2D((1, 2)), img, img[:, 1:4, 2:4])
    _check(layers.Cropping2D(1, data_format="channels_first"), img, img[:, :, 1:5, 1:2])
    vol = _rand(rng, 1, 4, 5, 6, 2)
    _check(layers.Cropping3D(), vol, vol[:, 1:3, 1:4, 1:5])
    _check(layers.Cropping3D(((0, 1), 1, (1, 0)), data_format="channels_first"), vol,
           vol[:, :, 0:4, 1:5, 1:])


def test_zero_padding(rng):
    x = _rand(rng, 2, 3, 2)
    _check(layers.ZeroPadding1D(), x, np.pad(x, [(0, 0), (1, 1), (0, 0)]))
    _check(layers.ZeroPadding1D((0, 2), data_format="channels_first"), x,
           np.pad(x, [(0, 0), (0, 0), (0, 2)]))
    img = _rand(rng, 2, 3, 4, 2)
    _check(layers.ZeroPadding2D(((1, 0), (2, 1))), img,
           np.pad(img, [(0, 0), (1, 0), (2, 1), (0, 0)]))
    _check(layers.ZeroPadding2D((1, 2), data_format="channels_first"), img,
           np.pad(img, [(0, 0), (0, 0), (1, 1), (2, 2)]))
    vol = _rand(rng, 1, 2, 2, 2, 1)
    _check(layers.ZeroPadding3D(), vol, np.pad(vol, [(0, 0), (1, 1), (1, 1), (1, 1), (0, 0)]))


def test_upsampling_nearest(rng):
    x = _rand(rng, 2, 3, 2)
    _check(layers.UpSampling1D(3), x, np.repeat(x, 3, axis=1))
    img = _rand(rng, 2, 2, 3, 2)
    _check(layers.UpSampling2D((2, 3)), img, np.repeat(np.repeat(img, 2, 1), 3, 2))
    _check(layers.UpSampling2D(2, data_format="channels_first"), img,
           np.repeat(np.repeat(img, 2, 2), 2, 3))
    vol = _rand(rng, 1, 2, 2, 2, 1)
    _check(layers.UpSampling3D((1, 2, 3)), vol,
           np.repeat(np.repeat(vol, 2, 2), 3, 3))


def test_upsampling_bilinear_interpolates():
    x = np.array([0.0, 4.0], np.float32).reshape(1, 1, 2, 1)
    out = np.asarray(layers.UpSampling2D((1, 2), interpolation="bilinear")(x))
    np.testing.assert_allclose(out[0, 0, :, 0], [0.0, 1.0, 3.0, 4.0])  # half-pixel centers
    ints = np.arange(4, dtype=np.int32).reshape(1, 2, 2, 1)
    assert layers.UpSampling2D(interpolation="bilinear")(ints).dtype == jnp.float32
    assert layers.UpSampling2D()(ints).dtype == jnp.int32


def test_unknown_dims_stay_unknown(rng):
    x = kg.Input(shape=(None, 3))
    assert layers.Cropping1D((1, 1))(x).shape == (None, None, 3)
    assert layers.ZeroPadding1D(2)(x).shape == (None, None, 3)
    assert layers.UpSampling1D(2)(x).shape == (None, None, 3)
    y = layers.Cropping1D((1, 1))(x)
    model = kg.Model(x, layers.UpSampling1D(2)(y))
    assert model(_rand(rng, 1, 5, 3)).shape == (1, 6, 3)


def test_configs():
    assert layers.Cropping1D().get_config()["cropping"] == (1, 1)
    assert "data_format" not in layers.Cropping1D().get_config()
    assert layers.Cropping2D(2).get_config()["cropping"] == ((2, 2), (2, 2))
    assert layers.ZeroPadding2D().get_config()["padding"] == ((1, 1), (1, 1))
    config = layers.UpSampling2D(3, interpolation="BILINEAR").get_config()
    assert config["size"] == (3, 3) and config["interpolation"] == "bilinear"
    assert layers.Permute([2, 1]).get_config()["dims"] == (2, 1)
    again = layers.Cropping3D.from_config(layers.Cropping3D([1, [0, 2], 3]).get_config())
    assert again.cropping == ((1, 1), (0, 2), (3, 3))


@pytest.mark.parametrize("make,error,match", [
    (lambda: layers.Permute((1, 3)), ValueError, "consecutive"),
    (lambda: layers.RepeatVector(2.0), TypeError, "integer"),
    (lambda: layers.RepeatVector(0), ValueError, "positive"),
    (lambda: layers.Cropping1D(-1), ValueError, "cropping"),
    (lambda: layers.Cropping2D((1, 2, 3)), ValueError, "cropping"),
    (lambda: layers.Cropping3D(-1), ValueError, "negative"),
    (lambda: layers.ZeroPadding2D(((1, 1), (1, 1), (1, 1))), ValueError, "padding"),
    (lambda: layers.ZeroPadding3D("x"), ValueError, "padding"),
    (lambda: layers.UpSampling1D(1.5), TypeError, "integer"),
    (lambda: layers.UpSampling1D(0), ValueError, "positive"),
    (lambda: layers.UpSampling2D(0), ValueError, "size"),
    (lambda: layers.UpSampling2D(interpolation="area"), ValueError, "interpolation"),
    (lambda: layers.UpSampling3D(data_format="x"), ValueError, "data_format"),
])
def test_invalid_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_cropping_everything_names_the_layer():
    with pytest.raises(ValueError, match='"crop".*cropping'):
        layers.Cropping1D((2, 2), name="crop")(kg.Input(shape=(4, 1)))
    with pytest.raises(ValueError, match='"crop2".*cropping'):
        layers.Cropping2D(((0, 0), (3, 0)), name="crop2")(np.zeros((1, 4, 3, 1), np.float32))


def test_rank_errors_name_the_layer():
    with pytest.raises(ValueError, match='"perm".*expected ndim=3'):
        layers.Permute((2, 1), name="perm")(kg.Input(shape=(3,)))
    with pytest.raises(ValueError, match='"rep".*expected ndim=2'):
        layers.RepeatVector(2, name="rep")(kg.Input(shape=(3, 2)))


@pytest.mark.parametrize("make", [
    lambda: layers.Cropping2D(name="fresh"), lambda: layers.ZeroPadding1D(name="fresh"),
    lambda: layers.UpSampling3D(name="fresh"), lambda: layers.UpSampling2D(name="fresh")])
def test_an_unbuilt_layer_refuses_a_wrong_rank_by_name(make):
    for value in (kg.Input(shape=(4,)), np.zeros((1, 4), np.float32)):
        with pytest.raises(ValueError, match='"fresh".*expected ndim='):
            make()(value)
