"""InceptionV3 (Szegedy et al., 2016; Keras's ``keras.applications.inception_v3``): the
same layers, in the same order, and weights layout, so Keras's weight files load.

A stem of plain convolutions, then eleven "mixed" modules that run parallel branches of
factorized convolutions (1x7 then 7x1, ...) and a pooling branch, concatenated. Every
convolution is followed by batch normalization without scale and ReLU. Images of 299x299
by default, at least 75x75.

>>> model = InceptionV3(weights=None, include_top=False, input_shape=(75, 75, 3))
>>> model.output_shape, model.count_params()
((None, 1, 1, 2048), 21802784)
"""

from __future__ import annotations

from kgraph.applications import builder, imagenet_utils
from kgraph.layers import (Activation, AveragePooling2D, BatchNormalization, Concatenate,
                           Conv2D, MaxPooling2D)

__all__ = ["InceptionV3", "decode_predictions", "preprocess_input"]

_HASHES = ("9a0d58056eeedaa3f26cb7ebd46da564", "bcbd6486424b2319ff4ef7d526e38f63")


def _conv(x, filters, rows, cols, strides=(1, 1), padding="same"):
    """A convolution without bias, batch normalization without scale, and ReLU."""
    x = Conv2D(filters, (rows, cols), strides=strides, padding=padding, use_bias=False)(x)
    x = BatchNormalization(axis=builder.channel_axis(), scale=False)(x)
    return Activation("relu")(x)


def _chain(x, convs):
    for conv in convs:
        x = _conv(x, *conv)
    return x


def _concat(branches, name=None):
    return Concatenate(axis=builder.channel_axis(), name=name)(branches)


def _average_pooled(x, filters):
    return _conv(AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x), filters, 1, 1)


def _module_a(x, pool_filters, name):
    return _concat([_chain(x, [(64, 1, 1)]),
                    _chain(x, [(48, 1, 1), (64, 5, 5)]),
                    _chain(x, [(64, 1, 1), (96, 3, 3), (96, 3, 3)]),
                    _average_pooled(x, pool_filters)], name)


def _module_c(x, width, name):  # factorized 7x7 convolutions
    return _concat([_chain(x, [(192, 1, 1)]),
                    _chain(x, [(width, 1, 1), (width, 1, 7), (192, 7, 1)]),
                    _chain(x, [(width, 1, 1), (width, 7, 1), (width, 1, 7), (width, 7, 1),
                               (192, 1, 7)]),
                    _average_pooled(x, 192)], name)


def _split(x, name=None):  # a 1x3 and a 3x1 convolution of the same input, concatenated
    return _concat([_conv(x, 384, 1, 3), _conv(x, 384, 3, 1)], name)


def _module_e(x, index):
    branch1x1 = _conv(x, 320, 1, 1)
    branch3x3 = _split(_conv(x, 384, 1, 1), f"mixed9_{index}")
    branch3x3dbl = _split(_chain(x, [(448, 1, 1), (384, 3, 3)]))
    return _concat([branch1x1, branch3x3, branch3x3dbl, _average_pooled(x, 192)],
                   f"mixed{9 + index}")


def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,  # noqa: N802 - Keras's name
                pooling=None, classes=1000, classifier_activation="softmax",
                name="inception_v3"):
    """InceptionV3 (Szegedy et al., 2016), Keras's builder and arguments."""
    builder.check_weights(weights, include_top, classes)
    inputs = builder.image_input(input_shape, input_tensor, include_top, weights,
                                 default_size=299, min_size=75)
    valid = "valid"
    x = _chain(inputs, [(32, 3, 3, (2, 2), valid), (32, 3, 3, (1, 1), valid), (64, 3, 3)])
    x = MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _chain(x, [(80, 1, 1, (1, 1), valid), (192, 3, 3, (1, 1), valid)])
    x = MaxPooling2D((3, 3), strides=(2, 2))(x)
    for index, pool_filters in enumerate((32, 64, 64)):
        x = _module_a(x, pool_filters, f"mixed{index}")
    x = _concat([_conv(x, 384, 3, 3, (2, 2), valid),
                 _chain(x, [(64, 1, 1), (96, 3, 3), (96, 3, 3, (2, 2), valid)]),
                 MaxPooling2D((3, 3), strides=(2, 2))(x)], "mixed3")
    for index, width in enumerate((128, 160, 160, 192), start=4):
        x = _module_c(x, width, f"mixed{index}")
    x = _concat([_chain(x, [(192, 1, 1), (320, 3, 3, (2, 2), valid)]),
                 _chain(x, [(192, 1, 1), (192, 1, 7), (192, 7, 1),
                            (192, 3, 3, (2, 2), valid)]),
                 MaxPooling2D((3, 3), strides=(2, 2))(x)], "mixed8")
    for index in range(2):
        x = _module_e(x, index)
    x = builder.pooled_or_classified(x, include_top, pooling, classes, classifier_activation,
                                     weights, top_pool_name="avg_pool")
    files = tuple((f"inception_v3_weights_tf_dim_ordering_tf_kernels{end}.h5", md5)
                  for end, md5 in zip(("", "_notop"), _HASHES))
    return builder.finish(inputs, input_tensor, x, name, weights, include_top, files,
                          f"{builder.WEIGHTS_ORIGIN}inception_v3/")


def preprocess_input(x, data_format=None):
    """Images as InceptionV3's weights expect them (the "tf" mode: scaled to -1..1)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
