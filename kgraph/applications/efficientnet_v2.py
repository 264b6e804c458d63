"""EfficientNetV2B0 to B3, S, M and L (Tan & Le, 2021; Keras's
``keras.applications.efficientnet_v2``): the same layers, names and weights layout, so
Keras's weight files load.

The first stages are fused MBConv blocks (one full convolution instead of an expansion
and a depthwise convolution), the later ones MBConv blocks with squeeze-and-excitation;
B1 to B3 scale B0's width and depth. With ``include_preprocessing`` (the default) the
model takes images of 0..255 and rescales them itself (``preprocess_input`` passes them
through): B0 to B3 normalize with the ImageNet statistics, S, M and L scale to -1..1.

>>> model = EfficientNetV2B0(weights=None, include_top=False, input_shape=(32, 32, 3))
>>> model.output_shape, model.count_params()
((None, 1, 1, 1280), 5919312)
"""

from __future__ import annotations

import math

from kgraph import config
from kgraph.applications import builder, imagenet_utils
from kgraph.graph.input_layer import Input
from kgraph.layers import (Activation, BatchNormalization, Conv2D, Dense, DepthwiseConv2D,
                           Dropout, GlobalAveragePooling2D, Normalization, Rescaling, Reshape,
                           add, multiply)

__all__ = ["EfficientNetV2B0", "EfficientNetV2B1", "EfficientNetV2B2", "EfficientNetV2B3",
           "EfficientNetV2L", "EfficientNetV2M", "EfficientNetV2S", "decode_predictions",
           "preprocess_input"]

_ORIGIN = f"{builder.WEIGHTS_ORIGIN}efficientnet_v2/"
_CONV_INIT = {"class_name": "VarianceScaling",
              "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"}}
_DENSE_INIT = {"class_name": "VarianceScaling",
               "config": {"scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"}}
_MEAN = (0.485, 0.456, 0.406)
_VARIANCE = (0.229 ** 2, 0.224 ** 2, 0.225 ** 2)
_FUSED, _MB = "fused", "mb"
# per stage: block type, kernel size, repeats, filters in, filters out, expansion,
# squeeze-and-excitation ratio, strides
_STAGES = {
    "b": ((_FUSED, 3, 1, 32, 16, 1, 0, 1), (_FUSED, 3, 2, 16, 32, 4, 0, 2),
          (_FUSED, 3, 2, 32, 48, 4, 0, 2), (_MB, 3, 3, 48, 96, 4, 0.25, 2),
          (_MB, 3, 5, 96, 112, 6, 0.25, 1), (_MB, 3, 8, 112, 192, 6, 0.25, 2)),
    "s": ((_FUSED, 3, 2, 24, 24, 1, 0, 1), (_FUSED, 3, 4, 24, 48, 4, 0, 2),
          (_FUSED, 3, 4, 48, 64, 4, 0, 2), (_MB, 3, 6, 64, 128, 4, 0.25, 2),
          (_MB, 3, 9, 128, 160, 6, 0.25, 1), (_MB, 3, 15, 160, 256, 6, 0.25, 2)),
    "m": ((_FUSED, 3, 3, 24, 24, 1, 0, 1), (_FUSED, 3, 5, 24, 48, 4, 0, 2),
          (_FUSED, 3, 5, 48, 80, 4, 0, 2), (_MB, 3, 7, 80, 160, 4, 0.25, 2),
          (_MB, 3, 14, 160, 176, 6, 0.25, 1), (_MB, 3, 18, 176, 304, 6, 0.25, 2),
          (_MB, 3, 5, 304, 512, 6, 0.25, 1)),
    "l": ((_FUSED, 3, 4, 32, 32, 1, 0, 1), (_FUSED, 3, 7, 32, 64, 4, 0, 2),
          (_FUSED, 3, 7, 64, 96, 4, 0, 2), (_MB, 3, 10, 96, 192, 4, 0.25, 2),
          (_MB, 3, 19, 192, 224, 6, 0.25, 1), (_MB, 3, 25, 224, 384, 6, 0.25, 2),
          (_MB, 3, 7, 384, 640, 6, 0.25, 1)),
}
# variant: stages, width and depth coefficients, default image size, and the md5 of
# Keras's weight files (with the top, without it)
_VARIANTS = {
    "b0": ("b", 1.0, 1.0, 224, ("21ecbf6da12460d5c40bb2f29ceb2188",
                                "893217f2bb855e2983157299931e43ff")),
    "b1": ("b", 1.0, 1.1, 240, ("069f0534ff22adf035c89e2d9547a9dc",
                                "0e80663031ca32d657f9caa404b6ec37")),
    "b2": ("b", 1.1, 1.2, 260, ("424e49f28180edbde1e94797771950a7",
                                "1dfe2e7a5d45b6632553a8961ea609eb")),
    "b3": ("b", 1.2, 1.4, 300, ("1f1fc43bd98a6e4fd8fdfd551e02c7a0",
                                "f6abf7b5849ac99a89b50dd3fd532856")),
    "s": ("s", 1.0, 1.0, 384, ("e1d88a8495beba45748fedd0cecbe016",
                               "af0682fb74e8c54910f2d4393339c070")),
    "m": ("m", 1.0, 1.0, 480, ("a3bf6aa3276309f4fc6a34aa114c95cd",
                               "1b8dc055df72dde80d614482840fe342")),
    "l": ("l", 1.0, 1.0, 480, ("27e6d408b53c7ebc868fefa357689935",
                               "b0b66b5c863aef5b46e8608fe1711615")),
}
_DIVISOR = 8
_DROP_CONNECT_RATE = 0.2
_DROPOUT_RATE = 0.2
_ACTIVATION = "swish"


def _norm(name):
    return BatchNormalization(axis=builder.channel_axis(), momentum=0.9, name=name)


def _conv(filters, kernel, strides, name, **kwargs):
    return Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False,
                  kernel_initializer=_CONV_INIT, name=name, **kwargs)


def _squeeze_excite(x, filters_in, filters, ratio, name):
    se = GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
    se = Reshape((1, 1, filters) if builder.channel_axis() == 3 else (filters, 1, 1),
                 name=f"{name}se_reshape")(se)
    se = Conv2D(max(1, int(filters_in * ratio)), 1, padding="same", activation=_ACTIVATION,
                kernel_initializer=_CONV_INIT, name=f"{name}se_reduce")(se)
    se = Conv2D(filters, 1, padding="same", activation="sigmoid",
                kernel_initializer=_CONV_INIT, name=f"{name}se_expand")(se)
    return multiply([x, se], name=f"{name}se_excite")


def _block(inputs, kind, kernel, filters_in, filters_out, expansion, se_ratio, strides,
           drop_rate, name):
    """An MBConv block (1x1 expansion, depthwise convolution) or a fused one (one full
    convolution), with squeeze-and-excitation if ``se_ratio`` and a residual (dropped
    as a whole per sample in training, stochastic depth) where shapes allow."""
    filters = filters_in * expansion
    fused = kind == _FUSED
    x = inputs
    if expansion != 1:
        x = _conv(filters, kernel if fused else 1, strides if fused else 1,
                  f"{name}expand_conv")(x)
        x = Activation(_ACTIVATION, name=f"{name}expand_activation")(
            _norm(f"{name}expand_bn")(x))
    if not fused:
        x = DepthwiseConv2D(kernel, strides=strides, padding="same", use_bias=False,
                            depthwise_initializer=_CONV_INIT, name=f"{name}dwconv2")(x)
        x = Activation(_ACTIVATION, name=f"{name}activation")(_norm(f"{name}bn")(x))
    if 0 < se_ratio <= 1:
        x = _squeeze_excite(x, filters_in, filters, se_ratio, name)
    projects_all = fused and expansion == 1  # the fused block's only convolution
    x = _conv(filters_out, kernel if projects_all else 1, strides if projects_all else 1,
              f"{name}project_conv")(x)
    x = _norm(f"{name}project_bn")(x)
    if projects_all:
        x = Activation(_ACTIVATION, name=f"{name}project_activation")(x)
    if strides == 1 and filters_in == filters_out:
        if drop_rate:
            x = Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = add([x, inputs], name=f"{name}add")
    return x


def _build_efficientnet_v2(variant, include_top, weights, input_tensor, input_shape, pooling,
                           classes, classifier_activation, include_preprocessing, name):
    stages, width, depth, size, hashes = _VARIANTS[variant]
    builder.check_weights(weights, include_top, classes, f"EfficientNetV2{variant.upper()}")
    axis = builder.channel_axis()
    shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=size, min_size=32, data_format=config.image_data_format(),
        require_flatten=include_top, weights=weights)
    inputs = input_tensor if input_tensor is not None else Input(shape=shape)

    def widths(filters):
        return int(max(_DIVISOR, int(filters * width + _DIVISOR / 2) // _DIVISOR * _DIVISOR))

    def repeats(count):
        return int(math.ceil(depth * count))

    x = inputs
    if include_preprocessing:  # by the channels of input_shape, as Keras
        if stages == "b" and shape[axis - 1] == 3:  # EfficientNet's ImageNet statistics
            x = Rescaling(scale=1.0 / 255)(x)
            x = Normalization(mean=list(_MEAN), variance=list(_VARIANCE), axis=axis)(x)
        else:
            x = Rescaling(scale=1.0 / 128.0, offset=-1)(x)
    blocks = _STAGES[stages]
    x = _conv(widths(blocks[0][3]), 3, 2, "stem_conv")(x)
    x = Activation(_ACTIVATION, name="stem_activation")(_norm("stem_bn")(x))
    total = float(sum(stage[2] for stage in blocks))
    done = 0
    for stage, (kind, kernel, count, filters_in, filters_out, expansion, se_ratio,
                strides) in enumerate(blocks, start=1):
        filters_in, filters_out = widths(filters_in), widths(filters_out)
        for repeat in range(repeats(count)):
            first = repeat == 0
            x = _block(x, kind, kernel, filters_in if first else filters_out, filters_out,
                       expansion, se_ratio, strides if first else 1,
                       _DROP_CONNECT_RATE * done / total, f"block{stage}{chr(repeat + 97)}_")
            done += 1
    x = _conv(widths(1280), 1, 1, "top_conv")(x)
    x = Activation(_ACTIVATION, name="top_activation")(_norm("top_bn")(x))
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        x = Dropout(_DROPOUT_RATE, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, kernel_initializer=_DENSE_INIT,
                  bias_initializer="zeros", name="predictions")(x)
    else:
        x = builder.pooled_or_classified(x, False, pooling, classes, classifier_activation,
                                         weights, pool_names=("avg_pool", "max_pool"))
    kind = f"efficientnetv2-{variant}"
    files = tuple((f"{kind}{end}.h5", md5) for end, md5 in zip(("", "_notop"), hashes))
    return builder.finish(inputs, input_tensor, x, name, weights, include_top, files, _ORIGIN)


def _builder(variant):
    kind = f"efficientnetv2-{variant}"

    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax",
              include_preprocessing=True, name=kind):
        return _build_efficientnet_v2(variant, include_top, weights, input_tensor,
                                      input_shape, pooling, classes, classifier_activation,
                                      include_preprocessing, name)

    build.__name__ = build.__qualname__ = f"EfficientNetV2{variant.upper()}"
    build.__doc__ = (f"{build.__name__} (Tan & Le, 2021), Keras's builder and arguments "
                     "(``include_preprocessing``: whether the model rescales 0..255 images "
                     "itself).")
    return build


(EfficientNetV2B0, EfficientNetV2B1, EfficientNetV2B2, EfficientNetV2B3, EfficientNetV2S,
 EfficientNetV2M, EfficientNetV2L) = (_builder(v) for v in _VARIANTS)


def preprocess_input(x, data_format=None):
    """The images unchanged: EfficientNetV2 models rescale their inputs themselves
    (Keras's placeholder, kept for a uniform API)."""
    return x


decode_predictions = imagenet_utils.decode_predictions
