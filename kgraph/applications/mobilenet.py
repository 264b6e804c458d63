"""MobileNet (Howard et al., 2017; Keras's ``keras.applications.mobilenet``): the same
layers, names and weights layout, so Keras's weight files load.

Thirteen depthwise separable blocks (a 3x3 depthwise convolution, then a 1x1 pointwise
one, each batch-normalized and clipped by ReLU6); ``alpha`` scales the widths and
``depth_multiplier`` the depthwise channels. The classifier is a 1x1 convolution.

>>> model = MobileNet(input_shape=(32, 32, 3), weights=None, include_top=False)
>>> model.output_shape, model.count_params()
((None, 1, 1, 1024), 3228864)
"""

from __future__ import annotations

from kgraph.applications import builder, imagenet_utils
from kgraph.layers import (Activation, BatchNormalization, Conv2D, DepthwiseConv2D, Dropout,
                           GlobalAveragePooling2D, ReLU, Reshape, ZeroPadding2D)

__all__ = ["MobileNet", "decode_predictions", "preprocess_input"]

_SIZES = (128, 160, 192, 224)
_ALPHAS = {1.0: "1_0", 0.75: "7_5", 0.50: "5_0", 0.25: "2_5"}  # as the weight files say
# (pointwise filters, stride) of blocks 1 .. 13
_BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
           (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1))


def _norm(name):
    return BatchNormalization(axis=-1 if builder.channel_axis() == 3 else 1, name=name)


def _separable_block(x, filters, stride, depth_multiplier, block):
    if stride != 1:
        x = ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block}")(x)
    x = DepthwiseConv2D((3, 3), padding="same" if stride == 1 else "valid",
                        depth_multiplier=depth_multiplier, strides=stride, use_bias=False,
                        name=f"conv_dw_{block}")(x)
    x = ReLU(6.0, name=f"conv_dw_{block}_relu")(_norm(f"conv_dw_{block}_bn")(x))
    x = Conv2D(filters, (1, 1), padding="same", use_bias=False, name=f"conv_pw_{block}")(x)
    return ReLU(6.0, name=f"conv_pw_{block}_relu")(_norm(f"conv_pw_{block}_bn")(x))


def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3,  # noqa: N802 - Keras's name
              include_top=True, weights="imagenet", input_tensor=None, pooling=None,
              classes=1000, classifier_activation="softmax", name=None):
    """MobileNet, Keras's builder and arguments (``alpha``: the width multiplier)."""
    builder.check_weights(weights, include_top, classes)
    size = builder.square_size(input_shape, None, _SIZES)
    inputs = builder.image_input(input_shape, input_tensor, include_top, weights,
                                 default_size=size)
    if weights == "imagenet" and depth_multiplier != 1:
        raise ValueError(f"With the imagenet weights, depth_multiplier must be 1; "
                         f"received depth_multiplier={depth_multiplier}.")
    rows = builder.trained_side(inputs, weights, alpha, _ALPHAS, _SIZES)
    x = Conv2D(int(32 * alpha), (3, 3), padding="same", use_bias=False, strides=(2, 2),
               name="conv1")(inputs)
    x = ReLU(6.0, name="conv1_relu")(_norm("conv1_bn")(x))
    for block, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = _separable_block(x, int(filters * alpha), stride, depth_multiplier, block)
    if include_top:
        x = GlobalAveragePooling2D(keepdims=True)(x)
        x = Dropout(dropout, name="dropout")(x)
        x = Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = Reshape((classes,), name="reshape_2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Activation(classifier_activation, name="predictions")(x)
    else:
        x = builder.pooled_or_classified(x, False, pooling, classes, classifier_activation,
                                         weights)
    stem = f"mobilenet_{_ALPHAS.get(alpha, '2_5')}_{rows}_tf"
    files = ((f"{stem}.h5", None), (f"{stem}_no_top.h5", None))
    return builder.finish(inputs, input_tensor, x, name or f"mobilenet_{alpha:0.2f}_{rows}",
                          weights, include_top, files,
                          f"{builder.WEIGHTS_ORIGIN}mobilenet/")


def preprocess_input(x, data_format=None):
    """Images as MobileNet's weights expect them (the "tf" mode: scaled to -1..1)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
