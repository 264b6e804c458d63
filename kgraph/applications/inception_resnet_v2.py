"""InceptionResNetV2 (Szegedy et al., 2017; Keras's
``keras.applications.inception_resnet_v2``): the same layers, names and weights layout, so
Keras's weight files load.

InceptionV3's stem, then three groups of Inception-ResNet blocks (10 "block35", 20
"block17", 10 "block8") between reduction modules: each block's concatenated branches
are projected by a 1x1 convolution, scaled and added to the block's input. Convolutions
are followed by batch normalization without scale and ReLU. Images of 299x299 by default,
at least 75x75, scaled to -1..1 by ``preprocess_input``.

>>> import numpy as np
>>> float(preprocess_input(np.array([0.0, 255.0])).max())
1.0
"""

from __future__ import annotations

from kgraph.applications import builder, imagenet_utils
from kgraph.base.layer import Layer
from kgraph.layers import (Activation, AveragePooling2D, BatchNormalization, Concatenate,
                           Conv2D, MaxPooling2D)

__all__ = ["CustomScaleLayer", "InceptionResNetV2", "decode_predictions", "preprocess_input"]

_FILES = (("inception_resnet_v2_weights_tf_dim_ordering_tf_kernels.h5",
           "e693bd0210a403b3192acc6073ad2e96"),
          ("inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5",
           "d19885ff4a710c122648d3b5c3b684e4"))
# per block type: its branches, each a chain of (filters, kernel size) convolutions
_BRANCHES = {
    "block35": (((32, 1),), ((32, 1), (32, 3)), ((32, 1), (48, 3), (64, 3))),
    "block17": (((192, 1),), ((128, 1), (160, (1, 7)), (192, (7, 1)))),
    "block8": (((192, 1),), ((192, 1), (224, (1, 3)), (256, (3, 1)))),
}


class CustomScaleLayer(Layer):
    """The sum of its two inputs, the second scaled: ``inputs[0] + inputs[1] * scale``
    (Keras's layer of the same name, the residual of an Inception-ResNet block)."""

    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, inputs):
        return inputs[0] + inputs[1] * self.scale

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[0])

    def get_config(self):
        return {**super().get_config(), "scale": self.scale}


def _conv(x, filters, kernel, strides=1, padding="same", activation="relu", use_bias=False,
          name=None):
    """A convolution, batch normalization without scale (unless ``use_bias``) and the
    activation, named ``name``, ``name_bn`` and ``name_ac`` when ``name`` is given."""
    x = Conv2D(filters, kernel, strides=strides, padding=padding, use_bias=use_bias,
               name=name)(x)
    if not use_bias:
        x = BatchNormalization(axis=builder.channel_axis(), scale=False,
                               name=None if name is None else f"{name}_bn")(x)
    if activation is not None:
        x = Activation(activation, name=None if name is None else f"{name}_ac")(x)
    return x


def _chain(x, convs):
    for conv in convs:
        x = _conv(x, *conv)
    return x


def _concat(branches, name):
    return Concatenate(axis=builder.channel_axis(), name=name)(branches)


def _residual_block(x, scale, kind, index, activation="relu"):
    name = f"{kind}_{index}"
    mixed = _concat([_chain(x, branch) for branch in _BRANCHES[kind]], f"{name}_mixed")
    up = _conv(mixed, x.shape[builder.channel_axis()], 1, activation=None, use_bias=True,
               name=f"{name}_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = Activation(activation, name=f"{name}_ac")(x)
    return x


def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802 - Keras's name
                      input_shape=None, pooling=None, classes=1000,
                      classifier_activation="softmax", name="inception_resnet_v2"):
    """InceptionResNetV2 (Szegedy et al., 2017), Keras's builder and arguments."""
    builder.check_weights(weights, include_top, classes, "InceptionResNetV2")
    inputs = builder.image_input(input_shape, input_tensor, include_top, weights,
                                 default_size=299, min_size=75)
    valid = "valid"
    x = _chain(inputs, [(32, 3, 2, valid), (32, 3, 1, valid), (64, 3)])
    x = MaxPooling2D(3, strides=2)(x)
    x = _chain(x, [(80, 1, 1, valid), (192, 3, 1, valid)])
    x = MaxPooling2D(3, strides=2)(x)
    x = _concat([_conv(x, 96, 1), _chain(x, [(48, 1), (64, 5)]),
                 _chain(x, [(64, 1), (96, 3), (96, 3)]),
                 _conv(AveragePooling2D(3, strides=1, padding="same")(x), 64, 1)], "mixed_5b")
    for index in range(1, 11):
        x = _residual_block(x, 0.17, "block35", index)
    x = _concat([_conv(x, 384, 3, 2, valid), _chain(x, [(256, 1), (256, 3), (384, 3, 2, valid)]),
                 MaxPooling2D(3, strides=2, padding=valid)(x)], "mixed_6a")
    for index in range(1, 21):
        x = _residual_block(x, 0.1, "block17", index)
    x = _concat([_chain(x, [(256, 1), (384, 3, 2, valid)]),
                 _chain(x, [(256, 1), (288, 3, 2, valid)]),
                 _chain(x, [(256, 1), (288, 3), (320, 3, 2, valid)]),
                 MaxPooling2D(3, strides=2, padding=valid)(x)], "mixed_7a")
    for index in range(1, 10):
        x = _residual_block(x, 0.2, "block8", index)
    x = _residual_block(x, 1.0, "block8", 10, activation=None)
    x = _conv(x, 1536, 1, name="conv_7b")
    x = builder.pooled_or_classified(x, include_top, pooling, classes, classifier_activation,
                                     weights, top_pool_name="avg_pool")
    return builder.finish(inputs, input_tensor, x, name, weights, include_top, _FILES,
                          f"{builder.WEIGHTS_ORIGIN}inception_resnet_v2/")


def preprocess_input(x, data_format=None):
    """Images as InceptionResNetV2's weights expect them (the "tf" mode: scaled to
    -1..1)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
