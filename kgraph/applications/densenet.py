"""DenseNet121, DenseNet169 and DenseNet201 (Huang et al., 2017; Keras's
``keras.applications.densenet``): the same layers, names and weights layout, so Keras's
weight files load.

Dense blocks concatenate each layer's 32 new feature maps to all that came before;
transition layers halve the channels and the resolution between blocks.

>>> model = DenseNet121(weights=None, include_top=False, input_shape=(32, 32, 3))
>>> model.output_shape, model.count_params()
((None, 1, 1, 1024), 7037504)
"""

from __future__ import annotations

from kgraph import config
from kgraph.applications import builder, imagenet_utils
from kgraph.layers import (Activation, AveragePooling2D, BatchNormalization, Concatenate,
                           Conv2D, MaxPooling2D, ZeroPadding2D)

__all__ = ["DenseNet121", "DenseNet169", "DenseNet201", "decode_predictions",
           "preprocess_input"]

_GROWTH = 32
_EPSILON = 1.001e-5
# layers per dense block, and Keras's published weights' md5 (with the top, without it)
_KINDS = {"densenet121": ((6, 12, 24, 16), ("9d60b8095a5708f2dcce2bca79d332c7",
                                             "30ee3e1110167f948a6b9946edeeb738")),
          "densenet169": ((6, 12, 32, 32), ("d699b8f76981ab1b30698df4c175e90b",
                                             "b8c4d4c20dd625c148057b9ff1c1176b")),
          "densenet201": ((6, 12, 48, 32), ("1ceb130c1ea1b78c3bf6114dbdfd8807",
                                             "c13680b51ded0fb44dff2d8f86ac8bb1"))}


def _norm(name):
    return BatchNormalization(axis=builder.channel_axis(), epsilon=_EPSILON, name=name)


def _dense_layer(x, name):
    h = Activation("relu", name=f"{name}_0_relu")(_norm(f"{name}_0_bn")(x))
    h = Conv2D(4 * _GROWTH, 1, use_bias=False, name=f"{name}_1_conv")(h)
    h = Activation("relu", name=f"{name}_1_relu")(_norm(f"{name}_1_bn")(h))
    h = Conv2D(_GROWTH, 3, padding="same", use_bias=False, name=f"{name}_2_conv")(h)
    return Concatenate(axis=builder.channel_axis(), name=f"{name}_concat")([x, h])


def _transition(x, name):
    x = Activation("relu", name=f"{name}_relu")(_norm(f"{name}_bn")(x))
    x = Conv2D(int(x.shape[builder.channel_axis()] * 0.5), 1, use_bias=False,
               name=f"{name}_conv")(x)
    return AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def _build_densenet(kind, include_top=True, weights="imagenet", input_tensor=None,
                   input_shape=None, pooling=None, classes=1000,
                   classifier_activation="softmax", name=None):
    """The ``kind`` ("densenet121", "densenet169" or "densenet201") network, as Keras
    builds it (channels last only, as Keras's)."""
    if config.image_data_format() == "channels_first":
        raise ValueError("DenseNet does not support the channels_first image data format: "
                         "set kgraph.config.set_image_data_format('channels_last').")
    builder.check_weights(weights, include_top, classes)
    inputs = builder.image_input(input_shape, input_tensor, include_top, weights)
    x = ZeroPadding2D(((3, 3), (3, 3)))(inputs)
    x = Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = Activation("relu", name="conv1_relu")(_norm("conv1_bn")(x))
    x = ZeroPadding2D(((1, 1), (1, 1)))(x)
    x = MaxPooling2D(3, strides=2, name="pool1")(x)
    blocks, hashes = _KINDS[kind]
    for stage, layers in enumerate(blocks, start=2):
        for layer in range(1, layers + 1):
            x = _dense_layer(x, f"conv{stage}_block{layer}")
        if stage < 5:
            x = _transition(x, f"pool{stage}")
    x = Activation("relu", name="relu")(_norm("bn")(x))
    x = builder.pooled_or_classified(x, include_top, pooling, classes, classifier_activation,
                                     weights, pool_names=("avg_pool", "max_pool"))
    files = tuple((f"{kind}_weights_tf_dim_ordering_tf_kernels{end}.h5", md5)
                  for end, md5 in zip(("", "_notop"), hashes))
    return builder.finish(inputs, input_tensor, x, name or kind, weights, include_top, files,
                          f"{builder.WEIGHTS_ORIGIN}densenet/")


def _builder(kind):
    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name=kind):
        return _build_densenet(kind, include_top, weights, input_tensor, input_shape, pooling,
                              classes, classifier_activation, name)

    build.__name__ = build.__qualname__ = f"DenseNet{kind[len('densenet'):]}"
    build.__doc__ = f"{build.__name__} (Huang et al., 2017), Keras's builder and arguments."
    return build


DenseNet121, DenseNet169, DenseNet201 = (_builder(kind) for kind in _KINDS)


def preprocess_input(x, data_format=None):
    """Images as DenseNet's weights expect them (the "torch" mode: scaled to 0..1, then
    normalized by the ImageNet channel means and deviations)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="torch")


decode_predictions = imagenet_utils.decode_predictions
