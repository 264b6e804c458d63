"""Convolution layers against Keras 3 (JAX backend): same weights in, same outputs out;
same output shapes, weight layouts and config keys."""


import numpy as np
import pytest

from kgraph import layers

keras = pytest.importorskip("keras")


_ARG_KEYS = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
             "groups", "use_bias", "output_padding", "depth_multiplier")


_INITIALIZERS = ("kernel_initializer", "bias_initializer", "depthwise_initializer",
                 "pointwise_initializer")


def compare(rng, name, args, kwargs, shape, rtol=1e-5, atol=1e-5):
    """Build both layers, give both the same random weights, compare outputs and shapes."""
    keras_cls = getattr(keras.layers, name)
    # Constant initializers: Keras's random ones compile anew for every weight shape (slow);
    # the weights are replaced by the same random values below anyway.
    zeros = {k: "zeros" for k in _INITIALIZERS if k in keras_cls(*args, **kwargs).get_config()}
    keras_layer = keras_cls(*args, **{**zeros, **kwargs})
    kg_layer = getattr(layers, name)(*args, **kwargs)
    x = rng.normal(size=shape).astype(np.float32)
    keras_layer.build(shape)
    kg_layer.build(shape)
    assert [tuple(w.shape) for w in kg_layer.weights] == [
        tuple(w.shape) for w in keras_layer.weights]
    weights = [rng.normal(size=w.shape).astype(np.float32) * 0.5 for w in keras_layer.weights]
    keras_layer.set_weights(weights)
    kg_layer.set_weights(weights)
    expected = np.asarray(keras_layer(x))
    got = np.asarray(kg_layer(x))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    symbolic = (None, *shape[1:])
    assert kg_layer.compute_output_shape(symbolic) == tuple(
        keras_layer.compute_output_shape(symbolic))
    kg_config, keras_config = kg_layer.get_config(), keras_layer.get_config()
    assert set(kg_config) == set(keras_config)
    for key in _ARG_KEYS:
        if key in keras_config:
            assert kg_config[key] == keras_config[key], key
    return kg_layer, keras_layer


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("strides", [1, 2])
def test_conv2d(padding, strides, rng):
    kg_layer, keras_layer = compare(rng, "Conv2D", (4, 3), dict(strides=strides, padding=padding),
                                    (2, 8, 7, 3))
    assert [w.name for w in kg_layer.weights] == [w.name for w in keras_layer.weights]


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_conv2d_dilated_grouped_channels_first(padding, rng):
    compare(rng, "Conv2D", (4, (3, 2)), dict(padding=padding, dilation_rate=(2, 1), groups=2,
                                        activation="relu"), (2, 9, 8, 4))
    compare(rng, "Conv2D", (4, 3), dict(padding=padding, dilation_rate=2,
                                   data_format="channels_first"), (2, 2, 9, 8))


@pytest.mark.parametrize("strides,dilation", [(1, 1), (1, 3), (2, 1)])
def test_conv1d_causal(strides, dilation, rng):
    compare(rng, "Conv1D", (3, 3), dict(padding="causal", strides=strides, dilation_rate=dilation,
                                   ), (2, 10, 2))


def test_conv1d_channels_first_and_conv3d(rng):
    compare(rng, "Conv1D", (3, 2), dict(padding="same", strides=2, data_format="channels_first"),
            (2, 3, 9))
    compare(rng, "Conv3D", (2, (2, 3, 2)), dict(padding="same", strides=(1, 2, 2)), (1, 4, 5, 5, 2))


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("kernel", [2, 3, 4])
def test_conv2d_transpose_strides_2(padding, kernel, rng):
    kg_layer, keras_layer = compare(rng, "Conv2DTranspose", (3, kernel),
                                    dict(strides=2, padding=padding), (2, 4, 5, 2))
    assert [w.name for w in kg_layer.weights] == [w.name for w in keras_layer.weights]


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_conv_transpose_variants(padding, rng):
    compare(rng, "Conv2DTranspose", (3, 3), dict(strides=(2, 3), padding=padding,
                                            output_padding=(1, 2)), (2, 4, 3, 2))
    compare(rng, "Conv2DTranspose", (2, 3), dict(strides=2, padding=padding,
                                            data_format="channels_first"), (2, 3, 4, 4))
    compare(rng, "Conv1DTranspose", (2, 3), dict(strides=3, padding=padding), (2, 5, 2))
    compare(rng, "Conv1DTranspose", (2, 3), dict(dilation_rate=2, padding=padding), (2, 5, 2))
    compare(rng, "Conv3DTranspose", (2, 2), dict(strides=2, padding=padding), (1, 2, 3, 2, 1))


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("strides", [1, 2])
def test_depthwise_conv2d(padding, strides, rng):
    kg_layer, keras_layer = compare(rng, "DepthwiseConv2D", (3,), dict(
        strides=strides, padding=padding, depth_multiplier=2), (2, 7, 8, 3))
    assert [w.name for w in kg_layer.weights] == [w.name for w in keras_layer.weights] \
        == ["kernel", "bias"]  # Keras 3's names


def test_depthwise_conv_dilated_and_channels_first(rng):
    compare(rng, "DepthwiseConv2D", ((3, 2),), dict(dilation_rate=2, padding="same"), (2, 8, 7, 2))
    compare(rng, "DepthwiseConv2D", (2,), dict(data_format="channels_first", depth_multiplier=3),
            (2, 2, 5, 5))
    compare(rng, "DepthwiseConv1D", (3,), dict(padding="same", strides=2, depth_multiplier=2),
            (2, 7, 3))


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("strides", [1, 2])
def test_separable_conv2d(padding, strides, rng):
    kg_layer, keras_layer = compare(rng, "SeparableConv2D", (5, 3), dict(
        strides=strides, padding=padding, depth_multiplier=2), (2, 7, 8, 3), rtol=1e-4)
    assert [w.name for w in kg_layer.weights] == [w.name for w in keras_layer.weights]


def test_separable_conv_dilated_and_1d(rng):
    compare(rng, "SeparableConv2D", (4, 3), dict(dilation_rate=2, padding="same",
                                            activation="tanh"), (2, 8, 8, 2), rtol=1e-4)
    compare(rng, "SeparableConv2D", (4, 2), dict(data_format="channels_first"), (2, 3, 5, 5),
            rtol=1e-4)
    compare(rng, "SeparableConv1D", (4, 3), dict(strides=2, padding="same", depth_multiplier=2),
            (2, 9, 3), rtol=1e-4)
