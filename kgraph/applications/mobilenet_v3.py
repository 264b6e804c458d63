"""MobileNetV3Small and MobileNetV3Large (Howard et al., 2019; Keras's
``keras.applications.mobilenet_v3``): the same layers, names and weights layout, so
Keras's weight files load.

Inverted residual blocks (a 1x1 expansion, a depthwise convolution, an optional
squeeze-and-excitation with a hard sigmoid gate, a linear 1x1 projection) with ReLU or
hard swish; ``minimalistic`` models keep 3x3 kernels and ReLU and drop the
squeeze-and-excitation. The top is convolutional (a pooled 1x1 convolution, dropout, the
``logits`` convolution). With ``include_preprocessing`` (the default) the model scales
0..255 images to -1..1 itself (a ``Rescaling`` layer; ``preprocess_input`` passes them
through); without it, it takes images already in -1..1.

>>> model = MobileNetV3Small(input_shape=(32, 32, 3), weights=None, include_top=False)
>>> model.output_shape, model.count_params()
((None, 1, 1, 576), 939120)
"""

from __future__ import annotations

import warnings

from kgraph import config
from kgraph.applications import builder, imagenet_utils
from kgraph.graph.input_layer import Input
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.layers import (Activation, Add, BatchNormalization, Conv2D, DepthwiseConv2D,
                           Dropout, Flatten, GlobalAveragePooling2D, Multiply, ReLU,
                           Rescaling, ZeroPadding2D)

__all__ = ["MobileNetV3Large", "MobileNetV3Small", "decode_predictions", "preprocess_input"]

_ORIGIN = f"{builder.WEIGHTS_ORIGIN}mobilenet_v3/"
# md5 of Keras's weight files (with the top, without it), by model type and width
_HASHES = {
    "large_224_0.75_float": ("765b44a33ad4005b3ac83185abf1d0eb",
                             "40af19a13ebea4e2ee0c676887f69a2e"),
    "large_224_1.0_float": ("59e551e166be033d707958cf9e29a6a7",
                            "07fb09a5933dd0c8eaafa16978110389"),
    "large_minimalistic_224_1.0_float": ("675e7b876c45c57e9e63e6d90a36599c",
                                         "ec5221f64a2f6d1ef965a614bdae7973"),
    "small_224_0.75_float": ("cb65d4e5be93758266aa0a7f2c6708b7",
                             "ebdb5cc8e0b497cd13a7c275d475c819"),
    "small_224_1.0_float": ("8768d4c2e7dee89b9d02b2d03d65d862",
                            "d3e8ec802a04aa4fc771ee12a9a9b836"),
    "small_minimalistic_224_1.0_float": ("99cd97fb2fcdad2bf028eb838de69e37",
                                         "cde8136e733e811080d9fcd8a252f7e4"),
}
_SE, _ANY = True, None
# per block: expansion, filters, kernel, stride, squeeze-and-excitation, activation;
# _ANY kernel / activation: the model's (5 / hard swish, or 3 / ReLU if minimalistic)
_SMALL = ((1, 16, 3, 2, _SE, "relu"), (72 / 16, 24, 3, 2, False, "relu"),
          (88 / 24, 24, 3, 1, False, "relu"), (4, 40, _ANY, 2, _SE, _ANY),
          (6, 40, _ANY, 1, _SE, _ANY), (6, 40, _ANY, 1, _SE, _ANY),
          (3, 48, _ANY, 1, _SE, _ANY), (3, 48, _ANY, 1, _SE, _ANY),
          (6, 96, _ANY, 2, _SE, _ANY), (6, 96, _ANY, 1, _SE, _ANY),
          (6, 96, _ANY, 1, _SE, _ANY))
_LARGE = ((1, 16, 3, 1, False, "relu"), (4, 24, 3, 2, False, "relu"),
          (3, 24, 3, 1, False, "relu"), (3, 40, _ANY, 2, _SE, "relu"),
          (3, 40, _ANY, 1, _SE, "relu"), (3, 40, _ANY, 1, _SE, "relu"),
          (6, 80, 3, 2, False, _ANY), (2.5, 80, 3, 1, False, _ANY),
          (2.3, 80, 3, 1, False, _ANY), (2.3, 80, 3, 1, False, _ANY),
          (6, 112, 3, 1, _SE, _ANY), (6, 112, 3, 1, _SE, _ANY),
          (6, 160, _ANY, 2, _SE, _ANY), (6, 160, _ANY, 1, _SE, _ANY),
          (6, 160, _ANY, 1, _SE, _ANY))


def _depth(value, divisor=8):
    """``value`` rounded to a multiple of ``divisor``, never below 90% of it."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def _norm(name):
    axis = -1 if builder.channel_axis() == 3 else 1
    return BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name=name)


def _activate(x, activation):
    if activation == "relu":
        return ReLU()(x)
    return Activation("hard_swish")(x)


def _squeeze_excite(inputs, filters, se_ratio, prefix):
    x = GlobalAveragePooling2D(keepdims=True, name=f"{prefix}squeeze_excite_avg_pool")(inputs)
    x = Conv2D(_depth(filters * se_ratio), 1, padding="same",
               name=f"{prefix}squeeze_excite_conv")(x)
    x = ReLU(name=f"{prefix}squeeze_excite_relu")(x)
    x = Conv2D(filters, 1, padding="same", name=f"{prefix}squeeze_excite_conv_1")(x)
    x = ReLU(6.0)(x + 3.0) * (1.0 / 6.0)  # the hard sigmoid gate
    return Multiply(name=f"{prefix}squeeze_excite_mul")([inputs, x])


def _inverted_residual(inputs, expansion, filters, kernel, stride, se_ratio, activation,
                       block):
    channels = inputs.shape[builder.channel_axis()]
    expanded = _depth(channels * expansion)
    x = inputs
    if block:
        prefix = f"expanded_conv_{block}_"
        x = Conv2D(expanded, 1, padding="same", use_bias=False, name=f"{prefix}expand")(x)
        x = _activate(_norm(f"{prefix}expand_bn")(x), activation)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = ZeroPadding2D(builder.correct_pad(x, kernel), name=f"{prefix}depthwise_pad")(x)
    x = DepthwiseConv2D(kernel, strides=stride, padding="same" if stride == 1 else "valid",
                        use_bias=False, name=f"{prefix}depthwise")(x)
    x = _activate(_norm(f"{prefix}depthwise_bn")(x), activation)
    if se_ratio:
        x = _squeeze_excite(x, expanded, se_ratio, prefix)
    x = Conv2D(filters, 1, padding="same", use_bias=False, name=f"{prefix}project")(x)
    x = _norm(f"{prefix}project_bn")(x)
    if stride == 1 and channels == filters:
        x = Add(name=f"{prefix}add")([inputs, x])
    return x


def _input_side(builder_name, input_shape, input_tensor, weights, alpha, minimalistic):
    """Keras's MobileNetV3 input rules: any image size of at least 32x32 (None sides
    too, even with the top); with the imagenet weights, ``alpha`` must be 0.75 or 1.0
    (1.0 only if minimalistic) and the weights of 224x224 images are loaded."""
    channels_first = config.image_data_format() == "channels_first"
    if input_tensor is not None and not isinstance(input_tensor, KerasTensor):
        raise ValueError(f"{builder_name}: input_tensor must be a KerasTensor (the output "
                         f"of an Input); received {type(input_tensor).__name__}.")
    if input_shape is not None and input_tensor is not None:
        given = input_tensor.shape[1] if channels_first else input_tensor.shape[2]
        if given != input_shape[1]:
            raise ValueError(f"{builder_name}: input_shape must match input_tensor's "
                             f"shape; received input_shape={input_shape} and "
                             f"input_tensor.shape={tuple(input_tensor.shape)}.")
    if input_shape is None and input_tensor is not None:
        rows, cols = input_tensor.shape[-2:] if channels_first else input_tensor.shape[1:3]
        input_shape = (3, rows, cols) if channels_first else (rows, cols, 3)
    if input_shape is None:
        input_shape = (3, None, None) if channels_first else (None, None, 3)
    rows, cols = input_shape[1:] if channels_first else input_shape[:2]
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(f"{builder_name}: the input size must be at least 32x32; "
                         f"received input_shape={input_shape}.")
    if weights == "imagenet":
        if alpha not in ((1.0,) if minimalistic else (0.75, 1.0)):
            raise ValueError(f"{builder_name}: with the imagenet weights, alpha must be "
                             f"{'1.0 when minimalistic' if minimalistic else '0.75 or 1.0'}"
                             f"; received alpha={alpha}.")
        if rows != cols or rows != 224:
            warnings.warn(f"{builder_name}: input_shape is undefined, not square, or its "
                          "side is not 224: the weights for 224x224 images are loaded.",
                          UserWarning, stacklevel=4)
    return input_shape


def _build_mobilenet_v3(kind, blocks, last_point, input_shape, alpha, minimalistic,
                        include_top, weights, input_tensor, classes, pooling, dropout_rate,
                        classifier_activation, include_preprocessing, name):
    builder_name = f"MobileNetV3{kind.capitalize()}"
    builder.check_weights(weights, include_top, classes, builder_name)
    input_shape = _input_side(builder_name, input_shape, input_tensor, weights, alpha,
                              minimalistic)
    inputs = input_tensor if input_tensor is not None else Input(shape=input_shape)
    kernel, activation, se_ratio = (3, "relu", None) if minimalistic else \
        (5, "hard_swish", 0.25)
    x = inputs
    if include_preprocessing:
        x = Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = Conv2D(16, 3, strides=(2, 2), padding="same", use_bias=False, name="conv")(x)
    x = _activate(_norm("conv_bn")(x), activation)
    for block, (expansion, filters, size, stride, se, act) in enumerate(blocks):
        x = _inverted_residual(x, expansion, _depth(filters * alpha), size or kernel, stride,
                               se_ratio if se else None, act or activation, block)
    last_conv = _depth(x.shape[builder.channel_axis()] * 6)
    if alpha > 1.0:
        last_point = _depth(last_point * alpha)
    x = Conv2D(last_conv, 1, padding="same", use_bias=False, name="conv_1")(x)
    x = _activate(_norm("conv_1_bn")(x), activation)
    if include_top:
        x = GlobalAveragePooling2D(keepdims=True)(x)
        x = _activate(Conv2D(last_point, 1, padding="same", name="conv_2")(x), activation)
        if dropout_rate > 0:
            x = Dropout(dropout_rate)(x)
        x = Flatten()(Conv2D(classes, 1, padding="same", name="logits")(x))
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Activation(classifier_activation, name="predictions")(x)
    else:
        x = builder.pooled_or_classified(x, False, pooling, classes, classifier_activation,
                                         weights, pool_names=("avg_pool", "max_pool"))
    stem = f"{kind}{'_minimalistic' if minimalistic else ''}_224_{float(alpha)}_float"
    hashes = _HASHES.get(stem, (None, None))
    files = ((f"weights_mobilenet_v3_{stem}.h5", hashes[0]),
             (f"weights_mobilenet_v3_{stem}_no_top_v2.h5", hashes[1]))
    return builder.finish(inputs, input_tensor, x, name, weights, include_top, files, _ORIGIN)


def MobileNetV3Small(input_shape=None, alpha=1.0, minimalistic=False,  # noqa: N802 - Keras's name
                     include_top=True, weights="imagenet", input_tensor=None, classes=1000,
                     pooling=None, dropout_rate=0.2, classifier_activation="softmax",
                     include_preprocessing=True, name="MobileNetV3Small"):
    """MobileNetV3Small, Keras's builder and arguments (``alpha``: the width multiplier;
    ``minimalistic``: without squeeze-and-excitation, hard swish and 5x5 kernels;
    ``include_preprocessing``: whether the model scales 0..255 images to -1..1)."""
    return _build_mobilenet_v3("small", _SMALL, 1024, input_shape, alpha, minimalistic,
                               include_top, weights, input_tensor, classes, pooling,
                               dropout_rate, classifier_activation, include_preprocessing,
                               name)


def MobileNetV3Large(input_shape=None, alpha=1.0, minimalistic=False,  # noqa: N802 - Keras's name
                     include_top=True, weights="imagenet", input_tensor=None, classes=1000,
                     pooling=None, dropout_rate=0.2, classifier_activation="softmax",
                     include_preprocessing=True, name="MobileNetV3Large"):
    """MobileNetV3Large, Keras's builder and arguments (as ``MobileNetV3Small``'s)."""
    return _build_mobilenet_v3("large", _LARGE, 1280, input_shape, alpha, minimalistic,
                               include_top, weights, input_tensor, classes, pooling,
                               dropout_rate, classifier_activation, include_preprocessing,
                               name)


def preprocess_input(x, data_format=None):
    """The images unchanged: MobileNetV3 models rescale their inputs themselves (Keras's
    placeholder, kept for a uniform API)."""
    return x


decode_predictions = imagenet_utils.decode_predictions
