"""ResNet and ResNetV2 (Keras's ``keras.applications.resnet``, ``resnet50`` and
``resnet_v2``, which re-export them): the same layers, names and weights layout, so
Keras's weight files load.

ResNet (He et al., 2015) stacks bottleneck blocks (1x1, 3x3, 1x1 convolutions, each
batch-normalized, around a shortcut); ResNetV2 (He et al., 2016) normalizes and activates
before each convolution ("pre-activation") and downsamples at the end of a stack.

>>> model = ResNet50(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg")
>>> model.output_shape, model.count_params()
((None, 2048), 23587712)
"""

from __future__ import annotations

from kgraph.applications import builder, imagenet_utils
from kgraph.layers import (Activation, Add, BatchNormalization, Conv2D, MaxPooling2D,
                           ZeroPadding2D)

__all__ = ["ResNet50", "ResNet101", "ResNet152", "ResNet50V2", "ResNet101V2", "ResNet152V2",
           "decode_predictions", "preprocess_input", "preprocess_input_v2"]

_EPSILON = 1.001e-5
# Keras's published weights: (file with the top, md5), (file without it, md5)
_HASHES = {
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}
# blocks per stack (conv2 .. conv5); every stack's bottleneck widths are 64, 128, 256, 512
_DEPTHS = {"50": (3, 4, 6, 3), "101": (3, 4, 23, 3), "152": (3, 8, 36, 3)}


def _norm(name):
    return BatchNormalization(axis=builder.channel_axis(), epsilon=_EPSILON, name=name)


def _block_v1(x, filters, stride, conv_shortcut, name):
    if conv_shortcut:
        shortcut = _norm(f"{name}_0_bn")(
            Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x))
    else:
        shortcut = x
    x = Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = Activation("relu", name=f"{name}_1_relu")(_norm(f"{name}_1_bn")(x))
    x = Conv2D(filters, 3, padding="same", name=f"{name}_2_conv")(x)
    x = Activation("relu", name=f"{name}_2_relu")(_norm(f"{name}_2_bn")(x))
    x = _norm(f"{name}_3_bn")(Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x))
    return Activation("relu", name=f"{name}_out")(Add(name=f"{name}_add")([shortcut, x]))


def _block_v2(x, filters, stride, conv_shortcut, name):
    preact = Activation("relu", name=f"{name}_preact_relu")(_norm(f"{name}_preact_bn")(x))
    if conv_shortcut:
        shortcut = Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    else:
        shortcut = MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = Conv2D(filters, 1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = Activation("relu", name=f"{name}_1_relu")(_norm(f"{name}_1_bn")(x))
    x = ZeroPadding2D(((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = Conv2D(filters, 3, strides=stride, use_bias=False, name=f"{name}_2_conv")(x)
    x = Activation("relu", name=f"{name}_2_relu")(_norm(f"{name}_2_bn")(x))
    x = Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return Add(name=f"{name}_out")([shortcut, x])


def _stacks_v1(x, depths):
    for stack, (blocks, filters) in enumerate(zip(depths, (64, 128, 256, 512)), start=2):
        for block in range(1, blocks + 1):  # the first block of a stack downsamples
            stride = (1 if stack == 2 else 2) if block == 1 else 1
            x = _block_v1(x, filters, stride, block == 1, f"conv{stack}_block{block}")
    return x


def _stacks_v2(x, depths):
    for stack, (blocks, filters) in enumerate(zip(depths, (64, 128, 256, 512)), start=2):
        for block in range(1, blocks + 1):  # the last block of a stack downsamples
            stride = 2 if block == blocks and stack != 5 else 1
            x = _block_v2(x, filters, stride, block == 1, f"conv{stack}_block{block}")
    return x


def _build_resnet(depth, v2, include_top=True, weights="imagenet", input_tensor=None,
                 input_shape=None, pooling=None, classes=1000,
                 classifier_activation="softmax", name=None):
    """ResNet``depth`` ("50", "101" or "152"; V2 if ``v2``), as Keras builds it."""
    builder.check_weights(weights, include_top, classes)
    inputs = builder.image_input(input_shape, input_tensor, include_top, weights)
    x = ZeroPadding2D(((3, 3), (3, 3)), name="conv1_pad")(inputs)
    x = Conv2D(64, 7, strides=2, name="conv1_conv")(x)
    if not v2:
        x = Activation("relu", name="conv1_relu")(_norm("conv1_bn")(x))
    x = ZeroPadding2D(((1, 1), (1, 1)), name="pool1_pad")(x)
    x = MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = (_stacks_v2 if v2 else _stacks_v1)(x, _DEPTHS[depth])
    if v2:
        x = Activation("relu", name="post_relu")(_norm("post_bn")(x))
    x = builder.pooled_or_classified(x, include_top, pooling, classes, classifier_activation,
                                     weights, pool_names=("avg_pool", "max_pool"))
    kind = f"resnet{depth}{'v2' if v2 else ''}"
    files = tuple((f"{kind}_weights_tf_dim_ordering_tf_kernels{end}.h5", md5)
                  for end, md5 in zip(("", "_notop"), _HASHES[kind]))
    return builder.finish(inputs, input_tensor, x, name or kind, weights, include_top, files,
                          f"{builder.WEIGHTS_ORIGIN}resnet/")


def _builder(depth, v2):
    kind = f"resnet{depth}{'v2' if v2 else ''}"

    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name=kind):
        return _build_resnet(depth, v2, include_top, weights, input_tensor, input_shape,
                            pooling, classes, classifier_activation, name)

    build.__name__ = build.__qualname__ = f"ResNet{depth}{'V2' if v2 else ''}"
    paper = "He et al., 2016" if v2 else "He et al., 2015"
    build.__doc__ = f"{build.__name__} ({paper}), Keras's builder and arguments."
    return build


ResNet50, ResNet101, ResNet152 = (_builder(d, False) for d in ("50", "101", "152"))
ResNet50V2, ResNet101V2, ResNet152V2 = (_builder(d, True) for d in ("50", "101", "152"))


def preprocess_input(x, data_format=None):
    """Images as ResNet's weights expect them (the "caffe" mode: BGR, mean subtracted)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def preprocess_input_v2(x, data_format=None):
    """Images as ResNetV2's weights expect them (the "tf" mode: scaled to -1..1)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
