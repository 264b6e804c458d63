"""NASNetMobile and NASNetLarge (Zoph et al., 2018; Keras's ``keras.applications.nasnet``):
the same layers, names and weights layout, so Keras's weight files load.

NASNet-A cells found by architecture search: a stem convolution, two reduction cells, then
three stacks of normal cells separated by reduction cells. Each cell combines its input
and the previous cell's (adjusted to its shape) through separable convolutions, poolings
and sums, concatenated. Channels last only, as Keras's; images of 224x224 (Mobile) or
331x331 (Large) by default, scaled to -1..1 by ``preprocess_input``.

>>> model = NASNetMobile(weights=None, include_top=False, input_shape=(32, 32, 3))
>>> model.output_shape, model.count_params()
((None, 1, 1, 1056), 4269716)
"""

from __future__ import annotations

from kgraph import config
from kgraph.applications import builder, imagenet_utils
from kgraph.layers import (Activation, AveragePooling2D, BatchNormalization, Conv2D,
                           Cropping2D, MaxPooling2D, SeparableConv2D, ZeroPadding2D, add,
                           concatenate)

__all__ = ["NASNetLarge", "NASNetMobile", "decode_predictions", "preprocess_input"]

_ORIGIN = f"{builder.WEIGHTS_ORIGIN}nasnet/"
# Keras's weight files (with the top, without it): cache name, md5, published name
_FILES = {
    "mobile": (("nasnet_mobile.h5", "020fb642bf7360b370c678b08e0adf61",
                f"{_ORIGIN}NASNet-mobile.h5"),
               ("nasnet_mobile_no_top.h5", "1ed92395b5b598bdda52abe5c0dbfd63",
                f"{_ORIGIN}NASNet-mobile-no-top.h5")),
    "large": (("nasnet_large.h5", "11577c9a518f0070763c2b964a382f17",
               f"{_ORIGIN}NASNet-large.h5"),
              ("nasnet_large_no_top.h5", "d81d89dc07e6e56530c4e77faddd61b5",
               f"{_ORIGIN}NASNet-large-no-top.h5")),
}


def _norm(name):
    return BatchNormalization(axis=-1, momentum=0.9997, epsilon=1e-3, name=name)


def _conv1x1(x, filters, name):
    return Conv2D(filters, (1, 1), padding="same", use_bias=False, name=name,
                  kernel_initializer="he_normal")(x)


def _relu(x, name=None):
    return Activation("relu", name=name)(x)


def _separable(x, filters, kernel=(3, 3), strides=(1, 1), block_id=None):
    """Twice ReLU, a separable convolution and batch normalization (the first one
    strided by ``strides``)."""
    x = _relu(x)
    padding = "same"
    if strides == (2, 2):
        x = ZeroPadding2D(builder.correct_pad(x, kernel),
                          name=f"separable_conv_1_pad_{block_id}")(x)
        padding = "valid"
    x = SeparableConv2D(filters, kernel, strides=strides, padding=padding, use_bias=False,
                        name=f"separable_conv_1_{block_id}")(x)
    x = _relu(_norm(f"separable_conv_1_bn_{block_id}")(x))
    x = SeparableConv2D(filters, kernel, padding="same", use_bias=False,
                        name=f"separable_conv_2_{block_id}")(x)
    return _norm(f"separable_conv_2_bn_{block_id}")(x)


def _adjust(p, ip, filters, block_id):
    """The previous cell's output ``p`` brought to the shape of this cell's input ``ip``
    with ``filters`` channels: halved in size by two offset strided paths, or projected."""
    if p is None:
        return ip
    if p.shape[-2] != ip.shape[-2]:
        p = _relu(p, f"adjust_relu_1_{block_id}")
        p1 = AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                              name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = _conv1x1(p1, filters // 2, f"adjust_conv_1_{block_id}")
        p2 = Cropping2D(cropping=((1, 0), (1, 0)))(ZeroPadding2D(padding=((0, 1), (0, 1)))(p))
        p2 = AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                              name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = _conv1x1(p2, filters // 2, f"adjust_conv_2_{block_id}")
        return _norm(f"adjust_bn_{block_id}")(concatenate([p1, p2], axis=-1))
    if p.shape[-1] != filters:
        p = _conv1x1(_relu(p), filters, f"adjust_conv_projection_{block_id}")
        return _norm(f"adjust_bn_{block_id}")(p)
    return p


def _pool(kind, strides, padding, name):
    pool = AveragePooling2D if kind == "avg" else MaxPooling2D
    return pool((3, 3), strides=strides, padding=padding, name=name)


def _normal_cell(ip, p, filters, block_id):
    p = _adjust(p, ip, filters, block_id)
    h = _norm(f"normal_bn_1_{block_id}")(
        _conv1x1(_relu(ip), filters, f"normal_conv_1_{block_id}"))
    x1 = add([_separable(h, filters, (5, 5), block_id=f"normal_left1_{block_id}"),
              _separable(p, filters, block_id=f"normal_right1_{block_id}")],
             name=f"normal_add_1_{block_id}")
    x2 = add([_separable(p, filters, (5, 5), block_id=f"normal_left2_{block_id}"),
              _separable(p, filters, (3, 3), block_id=f"normal_right2_{block_id}")],
             name=f"normal_add_2_{block_id}")
    x3 = add([_pool("avg", (1, 1), "same", f"normal_left3_{block_id}")(h), p],
             name=f"normal_add_3_{block_id}")
    x4 = add([_pool("avg", (1, 1), "same", f"normal_left4_{block_id}")(p),
              _pool("avg", (1, 1), "same", f"normal_right4_{block_id}")(p)],
             name=f"normal_add_4_{block_id}")
    x5 = add([_separable(h, filters, block_id=f"normal_left5_{block_id}"), h],
             name=f"normal_add_5_{block_id}")
    return concatenate([p, x1, x2, x3, x4, x5], axis=-1,
                       name=f"normal_concat_{block_id}"), ip


def _reduction_cell(ip, p, filters, block_id):
    p = _adjust(p, ip, filters, block_id)
    h = _norm(f"reduction_bn_1_{block_id}")(
        _conv1x1(_relu(ip), filters, f"reduction_conv_1_{block_id}"))
    h3 = ZeroPadding2D(builder.correct_pad(h, 3), name=f"reduction_pad_1_{block_id}")(h)
    down = (2, 2)
    x1 = add([_separable(h, filters, (5, 5), down, f"reduction_left1_{block_id}"),
              _separable(p, filters, (7, 7), down, f"reduction_right1_{block_id}")],
             name=f"reduction_add_1_{block_id}")
    x2 = add([_pool("max", down, "valid", f"reduction_left2_{block_id}")(h3),
              _separable(p, filters, (7, 7), down, f"reduction_right2_{block_id}")],
             name=f"reduction_add_2_{block_id}")
    x3 = add([_pool("avg", down, "valid", f"reduction_left3_{block_id}")(h3),
              _separable(p, filters, (5, 5), down, f"reduction_right3_{block_id}")],
             name=f"reduction_add3_{block_id}")
    x4 = add([x2, _pool("avg", (1, 1), "same", f"reduction_left4_{block_id}")(x1)])
    x5 = add([_separable(x1, filters, (3, 3), block_id=f"reduction_left4_{block_id}"),
              _pool("max", down, "valid", f"reduction_right5_{block_id}")(h3)],
             name=f"reduction_add4_{block_id}")
    return concatenate([x2, x3, x4, x5], axis=-1, name=f"reduction_concat_{block_id}"), ip


def _build_nasnet(kind, input_shape, include_top, weights, input_tensor, pooling, classes,
                  classifier_activation, name, penultimate_filters, num_blocks, stem_filters,
                  skip_reduction, default_size, multiplier=2):
    builder_name = f"NASNet{kind.capitalize()}"
    if config.image_data_format() == "channels_first":
        raise ValueError(f"{builder_name} supports only the channels_last image data "
                         "format; received channels_first (set kgraph.config."
                         "set_image_data_format('channels_last')).")
    builder.check_weights(weights, include_top, classes, builder_name)
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError(f"{builder_name}: with the imagenet weights, input_shape must be "
                         f"static (no None); received input_shape={input_shape}.")
    inputs = builder.image_input(input_shape, input_tensor, include_top, weights,
                                 default_size=default_size)
    filters = penultimate_filters // 24
    x = Conv2D(stem_filters, (3, 3), strides=(2, 2), padding="valid", use_bias=False,
               name="stem_conv1", kernel_initializer="he_normal")(inputs)
    x = _norm("stem_bn1")(x)
    x, p = _reduction_cell(x, None, filters // multiplier ** 2, "stem_1")
    x, p = _reduction_cell(x, p, filters // multiplier, "stem_2")
    for stack in range(3):
        width = filters * multiplier ** stack
        if stack:
            x, reduced = _reduction_cell(x, p, width, f"reduce_{stack * num_blocks}")
            p = p if skip_reduction else reduced
        for i in range(num_blocks):
            x, p = _normal_cell(x, p, width, f"{stack * num_blocks + i + (stack > 0)}")
    x = _relu(x)
    x = builder.pooled_or_classified(x, include_top, pooling, classes, classifier_activation,
                                     weights)
    return builder.finish(inputs, input_tensor, x, name, weights, include_top, _FILES[kind],
                          _ORIGIN)


def NASNetMobile(input_shape=None, include_top=True, weights="imagenet",  # noqa: N802 - Keras's name
                 input_tensor=None, pooling=None, classes=1000,
                 classifier_activation="softmax", name="nasnet_mobile"):
    """NASNet-A Mobile (4 @ 1056), Keras's builder and arguments (images of 224x224 by
    default, with the top or without)."""
    if not include_top and input_shape is None:
        input_shape = (224, 224, 3)
    return _build_nasnet("mobile", input_shape, include_top, weights, input_tensor, pooling,
                         classes, classifier_activation, name, penultimate_filters=1056,
                         num_blocks=4, stem_filters=32, skip_reduction=False,
                         default_size=224)


def NASNetLarge(input_shape=None, include_top=True, weights="imagenet",  # noqa: N802 - Keras's name
                input_tensor=None, pooling=None, classes=1000,
                classifier_activation="softmax", name="nasnet_large"):
    """NASNet-A Large (6 @ 4032), Keras's builder and arguments (images of 331x331 by
    default)."""
    return _build_nasnet("large", input_shape, include_top, weights, input_tensor, pooling,
                         classes, classifier_activation, name, penultimate_filters=4032,
                         num_blocks=6, stem_filters=96, skip_reduction=True,
                         default_size=331)


def preprocess_input(x, data_format=None):
    """Images as NASNet's weights expect them (the "tf" mode: scaled to -1..1)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
