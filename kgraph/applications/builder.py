"""What Keras's application builders share: the ``weights`` argument's checks, the image
input, the pooled or classified top, and loading Keras's weight files (``"imagenet"``
from Keras's cache, downloaded once; a path loads a local ``.h5`` / ``.weights.h5`` file).

>>> inputs = image_input(None, None, include_top=False, weights=None)
>>> inputs.shape
(None, None, None, 3)
"""

from __future__ import annotations

import os
import warnings

from kgraph import config
from kgraph.applications import imagenet_utils
from kgraph.graph.input_layer import Input
from kgraph.layers import Dense, GlobalAveragePooling2D, GlobalMaxPooling2D
from kgraph.models.functional import Functional
from kgraph.utils.data_utils import get_source_inputs
from kgraph.utils.file_utils import get_file

__all__ = ["channel_axis", "check_weights", "correct_pad", "finish", "image_input",
           "pooled_or_classified", "square_size", "trained_side"]

WEIGHTS_ORIGIN = "https://storage.googleapis.com/tensorflow/keras-applications/"


def check_weights(weights, include_top, classes, builder_name=None) -> None:
    """Keras's checks of the ``weights`` and ``classes`` arguments (messages starting
    with ``builder_name`` when given)."""
    prefix = f"{builder_name}: " if builder_name else ""
    if not (weights in ("imagenet", None) or os.path.exists(str(weights))):
        raise ValueError(f"{prefix}weights must be None (random initialization), 'imagenet' "
                         f"(pre-training on ImageNet) or the path to a weights file; "
                         f"received weights={weights!r}.")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(f"{prefix}With weights='imagenet' and include_top=True, classes "
                         f"must be 1000; received classes={classes}.")


def image_input(input_shape, input_tensor, include_top, weights, default_size=224,
                min_size=32):
    """The image tensor a builder starts from: ``input_tensor``, or a new ``Input`` of
    the shape Keras's rules give (``imagenet_utils.obtain_input_shape``)."""
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=min_size,
        data_format=config.image_data_format(), require_flatten=include_top, weights=weights)
    return input_tensor if input_tensor is not None else Input(shape=input_shape)


def channel_axis() -> int:
    """The channels' axis of an image batch in the configured data format."""
    return 3 if config.image_data_format() == "channels_last" else 1


def square_size(input_shape, input_tensor, sizes, default=224):
    """The side of the square images a builder's weights were trained at, read from
    ``input_shape`` (or ``input_tensor``'s shape): one of ``sizes``, else ``default``."""
    shape = input_shape
    if shape is None and input_tensor is not None:
        shape = tuple(input_tensor.shape[1:])
    if shape is None or len(shape) != 3:
        return default
    rows, cols = shape[1:] if config.image_data_format() == "channels_first" else shape[:2]
    return rows if rows == cols and rows in sizes else default


def trained_side(inputs, weights, alpha, alphas, sizes):
    """The side of the images whose weights a width-scaled builder (MobileNets) loads:
    the input's, when square and one of ``sizes``, else 224 (with Keras's warning);
    ``alpha`` must be one of ``alphas`` with the imagenet weights."""
    shape = tuple(inputs.shape[1:])
    rows, cols = shape[1:] if channel_axis() == 1 else shape[:2]
    if weights != "imagenet":
        return rows
    if alpha not in alphas:
        raise ValueError(f"With the imagenet weights, alpha must be one of {tuple(alphas)}; "
                         f"received alpha={alpha}.")
    if rows != cols or rows not in sizes:
        warnings.warn(f"input_shape is undefined, not square, or its side not one of "
                      f"{tuple(sizes)}: the weights for 224x224 images are loaded.",
                      UserWarning, stacklevel=3)
        return 224
    return rows


def correct_pad(x, kernel_size):
    """The zero padding before a strided ``kernel_size`` convolution with "valid"
    padding that gives "same"-like outputs on images of odd or even size (Keras's
    ``imagenet_utils.correct_pad``)."""
    axis = 2 if config.image_data_format() == "channels_first" else 1
    size = x.shape[axis:axis + 2]
    kernel = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    return tuple((k // 2 - a, k // 2) for k, a in zip(kernel, adjust))


_SAME = object()


def pooled_or_classified(x, include_top, pooling, classes, classifier_activation, weights,
                         pool_names=(None, None), top_pool_name=_SAME):
    """The end of a convolutional builder: global average pooling and the ``predictions``
    classifier with the top, else the features pooled as ``pooling`` says (``"avg"``,
    ``"max"`` or None), with Keras's layer names (``pool_names``: the average and max
    pooling layers' names; ``top_pool_name``: the top's pooling's, by default the
    average one's)."""
    if include_top:
        name = pool_names[0] if top_pool_name is _SAME else top_pool_name
        x = GlobalAveragePooling2D(name=name)(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        return Dense(classes, activation=classifier_activation, name="predictions")(x)
    if pooling == "avg":
        return GlobalAveragePooling2D(name=pool_names[0])(x)
    if pooling == "max":
        return GlobalMaxPooling2D(name=pool_names[1])(x)
    return x


def finish(inputs, input_tensor, outputs, name, weights, include_top, files, origin):
    """The model from ``inputs`` (or the inputs ``input_tensor`` comes from) to
    ``outputs``, with its weights loaded: ``files`` are Keras's ``(file name, md5)`` with
    the top and without it, published under the URL ``origin`` (``(file name, md5,
    URL)`` for a file published under another name)."""
    if input_tensor is not None:
        inputs = get_source_inputs(input_tensor)
    model = Functional(inputs, outputs, name=name)
    if weights == "imagenet":
        file_name, md5, *url = files[0 if include_top else 1]
        weights = get_file(file_name, url[0] if url else origin + file_name,
                           cache_subdir="models", file_hash=md5)
    if weights is not None:
        model.load_weights(weights)
    return model
