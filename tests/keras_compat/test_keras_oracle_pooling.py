"""Pooling layers against Keras 3 (JAX backend): outputs, output shapes, config keys."""


import numpy as np
import pytest

from kgraph import layers

keras = pytest.importorskip("keras")


def compare(rng, name, kwargs, shape, call_kwargs=None, rtol=1e-5, atol=1e-6):
    keras_layer = getattr(keras.layers, name)(**kwargs)
    kg_layer = getattr(layers, name)(**kwargs)
    x = rng.normal(size=shape).astype(np.float32)
    call_kwargs = call_kwargs or {}
    expected = np.asarray(keras_layer(x, **call_kwargs))
    got = np.asarray(kg_layer(x, **call_kwargs))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    symbolic = (None, *shape[1:])
    assert kg_layer.compute_output_shape(symbolic) == tuple(
        keras_layer.compute_output_shape(symbolic))
    kg_config, keras_config = kg_layer.get_config(), keras_layer.get_config()
    assert set(kg_config) == set(keras_config)
    for key in ("pool_size", "strides", "padding", "data_format", "keepdims"):
        if key in keras_config:
            assert kg_config[key] == keras_config[key], key


@pytest.mark.parametrize("name", ["MaxPooling2D", "AveragePooling2D"])
@pytest.mark.parametrize("pool,strides", [(2, None), (3, 2), ((3, 2), (2, 1)), (4, 3), (2, 1)])
@pytest.mark.parametrize("padding", ["valid", "same"])
def test_pooling2d(name, pool, strides, padding, rng):
    compare(rng, name, dict(pool_size=pool, strides=strides, padding=padding), (2, 7, 6, 3))


@pytest.mark.parametrize("name", ["MaxPooling2D", "AveragePooling2D"])
def test_pooling2d_channels_first_same(name, rng):
    compare(rng, name, dict(pool_size=3, strides=2, padding="same", data_format="channels_first"),
            (2, 3, 7, 6))


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_pooling1d_and_3d(padding, rng):
    for name in ("MaxPooling1D", "AveragePooling1D"):
        compare(rng, name, dict(pool_size=3, strides=2, padding=padding), (2, 8, 3))
    for name in ("MaxPooling3D", "AveragePooling3D"):
        compare(rng, name, dict(pool_size=(2, 3, 2), strides=(2, 2, 1), padding=padding),
                (1, 5, 5, 4, 2))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_global_pooling(keepdims, data_format, rng):
    kwargs = dict(keepdims=keepdims, data_format=data_format)
    for rank in (1, 2, 3):
        shape = (2, *(4, 3, 2)[:rank], 3)
        for kind in ("Max", "Average"):
            compare(rng, f"Global{kind}Pooling{rank}D", kwargs, shape)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_global_average_pooling1d_with_mask(keepdims, data_format, rng):
    mask = np.array([[True, False, True, True, False, False],
                     [False, True, True, True, True, True]])
    compare(rng, "GlobalAveragePooling1D", dict(keepdims=keepdims, data_format=data_format),
            (2, 6, 3) if data_format == "channels_last" else (2, 3, 6), dict(mask=mask))
