"""MobileNetV2 (Sandler et al., 2018; Keras's ``keras.applications.mobilenet_v2``): the
same layers, names and weights layout, so Keras's weight files load.

Inverted residual blocks: a 1x1 expansion, a 3x3 depthwise convolution and a linear 1x1
projection, each batch-normalized, with a residual where shapes allow; ``alpha`` scales
every width.

>>> model = MobileNetV2(input_shape=(32, 32, 3), weights=None, include_top=False)
>>> model.output_shape, model.count_params()
((None, 1, 1, 1280), 2257984)
"""

from __future__ import annotations

from kgraph.applications import builder, imagenet_utils
from kgraph.layers import (Add, BatchNormalization, Conv2D, DepthwiseConv2D, ReLU,
                           ZeroPadding2D)

__all__ = ["MobileNetV2", "decode_predictions", "preprocess_input"]

_SIZES = (96, 128, 160, 192, 224)
_ALPHAS = (0.35, 0.50, 0.75, 1.0, 1.3, 1.4)
# (filters, stride, expansion) of blocks 0 .. 16
_BLOCKS = ((16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6),
           (64, 2, 6), (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6),
           (96, 1, 6), (160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6))


def _divisible(value, divisor=8):
    """``value`` rounded to a multiple of ``divisor``, never below 90% of it."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def _norm(name):
    axis = -1 if builder.channel_axis() == 3 else 1
    return BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name=name)


def _inverted_residual(inputs, filters, stride, expansion, alpha, block):
    channels = inputs.shape[builder.channel_axis()]
    width = _divisible(int(filters * alpha))
    x = inputs
    if block:
        prefix = f"block_{block}_"
        x = Conv2D(expansion * channels, 1, padding="same", use_bias=False,
                   name=f"{prefix}expand")(x)
        x = ReLU(6.0, name=f"{prefix}expand_relu")(_norm(f"{prefix}expand_BN")(x))
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = ZeroPadding2D(builder.correct_pad(x, 3), name=f"{prefix}pad")(x)
    x = DepthwiseConv2D(3, strides=stride, use_bias=False,
                        padding="same" if stride == 1 else "valid",
                        name=f"{prefix}depthwise")(x)
    x = ReLU(6.0, name=f"{prefix}depthwise_relu")(_norm(f"{prefix}depthwise_BN")(x))
    x = Conv2D(width, 1, padding="same", use_bias=False, name=f"{prefix}project")(x)
    x = _norm(f"{prefix}project_BN")(x)
    if channels == width and stride == 1:
        return Add(name=f"{prefix}add")([inputs, x])
    return x


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet",  # noqa: N802 - Keras's name
                input_tensor=None, pooling=None, classes=1000,
                classifier_activation="softmax", name=None):
    """MobileNetV2, Keras's builder and arguments (``alpha``: the width multiplier)."""
    builder.check_weights(weights, include_top, classes)
    size = builder.square_size(input_shape, input_tensor, _SIZES)
    inputs = builder.image_input(input_shape, input_tensor, include_top, weights,
                                 default_size=size)
    rows = builder.trained_side(inputs, weights, alpha, _ALPHAS, _SIZES)
    x = Conv2D(_divisible(32 * alpha), 3, strides=(2, 2), padding="same", use_bias=False,
               name="Conv1")(inputs)
    x = ReLU(6.0, name="Conv1_relu")(_norm("bn_Conv1")(x))
    for block, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_residual(x, filters, stride, expansion, alpha, block)
    last = _divisible(1280 * alpha) if alpha > 1.0 else 1280
    x = Conv2D(last, 1, use_bias=False, name="Conv_1")(x)
    x = ReLU(6.0, name="out_relu")(_norm("Conv_1_bn")(x))
    x = builder.pooled_or_classified(x, include_top, pooling, classes, classifier_activation,
                                     weights)
    stem = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}"
    files = ((f"{stem}.h5", None), (f"{stem}_no_top.h5", None))
    return builder.finish(inputs, input_tensor, x, name or f"mobilenetv2_{alpha:0.2f}_{rows}",
                          weights, include_top, files,
                          f"{builder.WEIGHTS_ORIGIN}mobilenet_v2/")


def preprocess_input(x, data_format=None):
    """Images as MobileNetV2's weights expect them (the "tf" mode: scaled to -1..1)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
