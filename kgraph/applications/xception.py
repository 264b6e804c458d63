"""Xception (Chollet, 2017; Keras's ``keras.applications.xception``): the same layers,
names and weights layout, so Keras's weight files load.

Depthwise separable convolutions throughout: an entry flow that downsamples three
times, eight residual middle blocks of three separable convolutions at 728 channels, and
an exit flow. Images of 299x299 by default, at least 71x71.

>>> model = Xception(weights=None, include_top=False, input_shape=(71, 71, 3))
>>> model.output_shape, model.count_params()
((None, 3, 3, 2048), 20861480)
"""

from __future__ import annotations

from kgraph.applications import builder, imagenet_utils
from kgraph.layers import (Activation, Add, BatchNormalization, Conv2D, MaxPooling2D,
                           SeparableConv2D)

__all__ = ["Xception", "decode_predictions", "preprocess_input"]

_HASHES = ("0a58e3b7378bc2990ea3b43d5981f1f6", "b0042744bf5b25fce3cb969f33bebb97")


def _norm(name=None):
    return BatchNormalization(axis=-1 if builder.channel_axis() == 3 else 1, name=name)


def _separable(x, filters, name, activate_first=True):
    """``relu`` (unless ``activate_first`` is False), a 3x3 separable convolution and its
    batch normalization, named as Keras names them."""
    if activate_first:
        x = Activation("relu", name=f"{name}_act")(x)
    x = SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return _norm(f"{name}_bn")(x)


def _downsampling(x, filters, block, activate_first=True):
    """Two separable convolutions and a strided max pooling, added to a strided 1x1
    convolution of the block's input (an entry or exit flow block)."""
    residual = _norm()(Conv2D(filters[1], (1, 1), strides=(2, 2), padding="same",
                              use_bias=False)(x))
    x = _separable(x, filters[0], f"block{block}_sepconv1", activate_first)
    if not activate_first:  # block 2 activates between its two convolutions only
        x = Activation("relu", name=f"block{block}_sepconv2_act")(x)
    x = _separable(x, filters[1], f"block{block}_sepconv2", activate_first)
    x = MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"block{block}_pool")(x)
    return Add()([x, residual])


def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,  # noqa: N802 - Keras's name
             pooling=None, classes=1000, classifier_activation="softmax", name="xception"):
    """Xception (Chollet, 2017), Keras's builder and arguments."""
    builder.check_weights(weights, include_top, classes)
    inputs = builder.image_input(input_shape, input_tensor, include_top, weights,
                                 default_size=299, min_size=71)
    x = Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(inputs)
    x = Activation("relu", name="block1_conv1_act")(_norm("block1_conv1_bn")(x))
    x = Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = Activation("relu", name="block1_conv2_act")(_norm("block1_conv2_bn")(x))
    x = _downsampling(x, (128, 128), 2, activate_first=False)
    x = _downsampling(x, (256, 256), 3)
    x = _downsampling(x, (728, 728), 4)
    for block in range(5, 13):
        residual = x
        for conv in (1, 2, 3):
            x = _separable(x, 728, f"block{block}_sepconv{conv}")
        x = Add()([x, residual])
    x = _downsampling(x, (728, 1024), 13)
    for conv, filters in ((1, 1536), (2, 2048)):
        x = _separable(x, filters, f"block14_sepconv{conv}", activate_first=False)
        x = Activation("relu", name=f"block14_sepconv{conv}_act")(x)
    x = builder.pooled_or_classified(x, include_top, pooling, classes, classifier_activation,
                                     weights, top_pool_name="avg_pool")
    files = tuple((f"xception_weights_tf_dim_ordering_tf_kernels{end}.h5", md5)
                  for end, md5 in zip(("", "_notop"), _HASHES))
    return builder.finish(inputs, input_tensor, x, name, weights, include_top, files,
                          f"{builder.WEIGHTS_ORIGIN}xception/")


def preprocess_input(x, data_format=None):
    """Images as Xception's weights expect them (the "tf" mode: scaled to -1..1)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
