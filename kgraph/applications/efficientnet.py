"""EfficientNetB0 to B7 (Tan & Le, 2019; Keras's ``keras.applications.efficientnet``):
the same layers, names and weights layout, so Keras's weight files load.

Mobile inverted bottleneck blocks with squeeze-and-excitation, scaled in width and depth
by each variant's coefficients. As Keras's, the model takes images of 0..255: it rescales
and normalizes them itself (``preprocess_input`` passes them through).

>>> model = EfficientNetB0(weights=None, include_top=False, input_shape=(32, 32, 3))
>>> model.output_shape, model.count_params()
((None, 1, 1, 1280), 4049571)
"""

from __future__ import annotations

import math

import numpy as np

from kgraph.applications import builder, imagenet_utils
from kgraph.layers import (Activation, Add, BatchNormalization, Conv2D, Dense, DepthwiseConv2D,
                           Dropout, GlobalAveragePooling2D, Multiply, Normalization, Rescaling,
                           Reshape, ZeroPadding2D)

__all__ = ["EfficientNetB0", "EfficientNetB1", "EfficientNetB2", "EfficientNetB3",
           "EfficientNetB4", "EfficientNetB5", "EfficientNetB6", "EfficientNetB7",
           "decode_predictions", "preprocess_input"]

_CONV_INIT = {"class_name": "VarianceScaling",
              "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"}}
_DENSE_INIT = {"class_name": "VarianceScaling",
               "config": {"scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"}}
_IMAGENET_STDDEV_RGB = (0.229, 0.224, 0.225)
# per stage: kernel size, repeats, filters in, filters out, expansion, strides
_STAGES = ((3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2),
           (3, 3, 40, 80, 6, 2), (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2),
           (3, 1, 192, 320, 6, 1))
_SE_RATIO = 0.25
# variant: width and depth coefficients, default image size, dropout rate, and the md5
# of Keras's weight files (with the top, without it)
_VARIANTS = {
    "b0": (1.0, 1.0, 224, 0.2, ("902e53a9f72be733fc0bcb005b3ebbac",
                                "50bc09e76180e00e4465e1a485ddc09d")),
    "b1": (1.0, 1.1, 240, 0.2, ("1d254153d4ab51201f1646940f018540",
                                "74c4e6b3e1f6a1eea24c589628592432")),
    "b2": (1.1, 1.2, 260, 0.3, ("b15cce36ff4dcbd00b6dd88e7857a6ad",
                                "111f8e2ac8aa800a7a99e3239f7bfb39")),
    "b3": (1.2, 1.4, 300, 0.3, ("ffd1fdc53d0ce67064dc6a9c7960ede0",
                                "af6d107764bb5b1abb91932881670226")),
    "b4": (1.4, 1.8, 380, 0.4, ("18c95ad55216b8f92d7e70b3a046e2fc",
                                "ebc24e6d6c33eaebbd558eafbeedf1ba")),
    "b5": (1.6, 2.2, 456, 0.4, ("ace28f2a6363774853a83a0b21b9421a",
                                "38879255a25d3c92d5e44e04ae6cec6f")),
    "b6": (1.8, 2.6, 528, 0.5, ("165f6e37dce68623721b423839de8be5",
                                "9ecce42647a20130c1f39a5d4cb75743")),
    "b7": (2.0, 3.1, 600, 0.5, ("8c03f828fec3ef71311cd463b6759d99",
                                "cbcfe4450ddf6f3ad90b1b398090fe4a")),
}


def _norm(name):
    return BatchNormalization(axis=builder.channel_axis(), name=name)


def _block(inputs, kernel, filters_in, filters_out, expansion, strides, drop_rate, name,
           activation):
    filters = filters_in * expansion
    x = inputs
    if expansion != 1:
        x = Conv2D(filters, 1, padding="same", use_bias=False, kernel_initializer=_CONV_INIT,
                   name=f"{name}expand_conv")(x)
        x = Activation(activation, name=f"{name}expand_activation")(
            _norm(f"{name}expand_bn")(x))
    if strides == 2:
        x = ZeroPadding2D(builder.correct_pad(x, kernel), name=f"{name}dwconv_pad")(x)
    x = DepthwiseConv2D(kernel, strides=strides, padding="valid" if strides == 2 else "same",
                        use_bias=False, depthwise_initializer=_CONV_INIT,
                        name=f"{name}dwconv")(x)
    x = Activation(activation, name=f"{name}activation")(_norm(f"{name}bn")(x))
    squeezed = max(1, int(filters_in * _SE_RATIO))  # squeeze and excitation
    se = GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    se = Reshape((1, 1, filters) if builder.channel_axis() == 3 else (filters, 1, 1),
                 name=f"{name}se_reshape")(se)
    se = Conv2D(squeezed, 1, padding="same", activation=activation,
                kernel_initializer=_CONV_INIT, name=f"{name}se_reduce")(se)
    se = Conv2D(filters, 1, padding="same", activation="sigmoid",
                kernel_initializer=_CONV_INIT, name=f"{name}se_expand")(se)
    x = Multiply(name=f"{name}se_excite")([x, se])
    x = Conv2D(filters_out, 1, padding="same", use_bias=False, kernel_initializer=_CONV_INIT,
               name=f"{name}project_conv")(x)
    x = _norm(f"{name}project_bn")(x)
    if strides == 1 and filters_in == filters_out:
        if drop_rate > 0:  # drops whole blocks of a sample (stochastic depth)
            x = Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = Add(name=f"{name}add")([x, inputs])
    return x


def _build_efficientnet(variant, include_top=True, weights="imagenet", input_tensor=None,
                       input_shape=None, pooling=None, classes=1000,
                       classifier_activation="softmax", name=None, drop_connect_rate=0.2,
                       depth_divisor=8, activation="swish"):
    """EfficientNet``variant`` ("b0" .. "b7"), as Keras builds it."""
    width, depth, size, dropout_rate, hashes = _VARIANTS[variant]
    builder.check_weights(weights, include_top, classes)
    inputs = builder.image_input(input_shape, input_tensor, include_top, weights,
                                 default_size=size)

    def widths(filters):
        scaled = filters * width
        rounded = max(depth_divisor, int(scaled + depth_divisor / 2) // depth_divisor *
                      depth_divisor)
        return int(rounded + depth_divisor if rounded < 0.9 * scaled else rounded)

    def repeats(count):
        return int(math.ceil(depth * count))

    x = Rescaling(1.0 / 255.0)(inputs)
    normalization = Normalization(axis=builder.channel_axis())
    x = normalization(x)
    # as Keras's: mean 0 and variance 1 until a weights file replaces them
    mean, variance, count = normalization.get_weights()
    normalization.set_weights([np.zeros_like(mean), np.ones_like(variance), count])
    if weights == "imagenet":  # the weights' normalization divides by the variance
        x = Rescaling([1.0 / math.sqrt(std) for std in _IMAGENET_STDDEV_RGB])(x)
    x = ZeroPadding2D(builder.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = Conv2D(widths(32), 3, strides=2, padding="valid", use_bias=False,
               kernel_initializer=_CONV_INIT, name="stem_conv")(x)
    x = Activation(activation, name="stem_activation")(_norm("stem_bn")(x))
    total = float(sum(repeats(stage[1]) for stage in _STAGES))
    done = 0
    for stage, (kernel, count, filters_in, filters_out, expansion, strides) in enumerate(
            _STAGES, start=1):
        filters_in, filters_out = widths(filters_in), widths(filters_out)
        for repeat in range(repeats(count)):
            first = repeat == 0
            x = _block(x, kernel, filters_in if first else filters_out, filters_out,
                       expansion, strides if first else 1, drop_connect_rate * done / total,
                       f"block{stage}{chr(repeat + 97)}_", activation)
            done += 1
    x = Conv2D(widths(1280), 1, padding="same", use_bias=False, kernel_initializer=_CONV_INIT,
               name="top_conv")(x)
    x = Activation(activation, name="top_activation")(_norm("top_bn")(x))
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, kernel_initializer=_DENSE_INIT,
                  name="predictions")(x)
    else:
        x = builder.pooled_or_classified(x, False, pooling, classes, classifier_activation,
                                         weights, pool_names=("avg_pool", "max_pool"))
    kind = f"efficientnet{variant}"
    files = tuple((f"{kind}{end}.h5", md5) for end, md5 in zip(("", "_notop"), hashes))
    return builder.finish(inputs, input_tensor, x, name or kind, weights, include_top, files,
                          "https://storage.googleapis.com/keras-applications/")


def _builder(variant):
    kind = f"efficientnet{variant}"

    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name=kind):
        return _build_efficientnet(variant, include_top, weights, input_tensor, input_shape,
                                  pooling, classes, classifier_activation, name)

    build.__name__ = build.__qualname__ = f"EfficientNet{variant.upper()}"
    build.__doc__ = f"{build.__name__} (Tan & Le, 2019), Keras's builder and arguments."
    return build


(EfficientNetB0, EfficientNetB1, EfficientNetB2, EfficientNetB3, EfficientNetB4,
 EfficientNetB5, EfficientNetB6, EfficientNetB7) = (_builder(v) for v in _VARIANTS)


def preprocess_input(x, data_format=None):
    """The images unchanged: EfficientNet models rescale and normalize their inputs
    themselves (Keras's placeholder, kept for a uniform API)."""
    return x


decode_predictions = imagenet_utils.decode_predictions
