"""VGG16 and VGG19 (Keras's ``keras.applications.vgg16`` / ``vgg19``): the same layers,
names and weights layout, so Keras's ``.h5`` weight files load (``weights="imagenet"``
downloads them into Keras's cache once; a path loads a local file).

>>> model = VGG16(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg")
>>> model.output_shape, model.count_params()
((None, 512), 14714688)
"""

from __future__ import annotations

from kgraph.applications import builder, imagenet_utils
from kgraph.layers import Conv2D, Dense, Flatten, MaxPooling2D

__all__ = ["VGG16", "VGG19", "build_vgg", "decode_predictions", "preprocess_input"]

_WEIGHTS = {  # (file name, md5) with the top, and without it
    "vgg16": (("vgg16_weights_tf_dim_ordering_tf_kernels.h5",
               "64373286793e3c8b2b4e3219cbf3544b"),
              ("vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5",
               "6d6bbae143d832006294945121d1f1fc")),
    "vgg19": (("vgg19_weights_tf_dim_ordering_tf_kernels.h5",
               "cbe5617147190e668d6c5d5026f83318"),
              ("vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5",
               "253f8cb515780f3b799900260a226db6")),
}
_BLOCKS = {"vgg16": (2, 2, 3, 3, 3), "vgg19": (2, 2, 4, 4, 4)}
_WIDTHS = (64, 128, 256, 512, 512)


def build_vgg(kind, include_top=True, weights="imagenet", input_tensor=None,
              input_shape=None, pooling=None, classes=1000,
              classifier_activation="softmax", name=None):
    """The ``kind`` ("vgg16" or "vgg19") network, as Keras builds it."""
    builder.check_weights(weights, include_top, classes)
    inputs = builder.image_input(input_shape, input_tensor, include_top, weights)
    x = inputs
    for block, (convs, width) in enumerate(zip(_BLOCKS[kind], _WIDTHS), start=1):
        for conv in range(1, convs + 1):
            x = Conv2D(width, (3, 3), activation="relu", padding="same",
                       name=f"block{block}_conv{conv}")(x)
        x = MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = Flatten(name="flatten")(x)
        x = Dense(4096, activation="relu", name="fc1")(x)
        x = Dense(4096, activation="relu", name="fc2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = builder.pooled_or_classified(x, False, pooling, classes, classifier_activation,
                                         weights)
    return builder.finish(inputs, input_tensor, x, name or kind, weights, include_top,
                          _WEIGHTS[kind], f"{builder.WEIGHTS_ORIGIN}{kind}/")


def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,  # noqa: N802 - Keras's name
          pooling=None, classes=1000, classifier_activation="softmax", name="vgg16"):
    """VGG16 (Simonyan & Zisserman, 2015), Keras's builder and arguments."""
    return build_vgg("vgg16", include_top, weights, input_tensor, input_shape, pooling,
                     classes, classifier_activation, name)


def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,  # noqa: N802 - Keras's name
          pooling=None, classes=1000, classifier_activation="softmax", name="vgg19"):
    """VGG19 (Simonyan & Zisserman, 2015), Keras's builder and arguments."""
    return build_vgg("vgg19", include_top, weights, input_tensor, input_shape, pooling,
                     classes, classifier_activation, name)


def preprocess_input(x, data_format=None):
    """Images as VGG's weights expect them (the "caffe" mode: BGR, mean subtracted)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


decode_predictions = imagenet_utils.decode_predictions
