"""What Keras's ImageNet applications share: input preprocessing ("caffe", "tf", "torch"
modes), ``decode_predictions`` (the class index file from Keras's cache, downloaded once),
and the checks of a builder's arguments (``obtain_input_shape``, ``validate_activation``).

>>> import numpy as np
>>> float(preprocess_input(np.full((1, 2, 2, 3), 127.5, "float32"), mode="tf").max())
0.0
"""

from __future__ import annotations

import json
import warnings

import jax.numpy as jnp
import numpy as np

from kgraph import activations, config, ops
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.ops.conv_utils import standardize_data_format
from kgraph.utils.file_utils import get_file

__all__ = ["CLASS_INDEX_PATH", "decode_predictions", "obtain_input_shape", "preprocess_input",
           "validate_activation"]

CLASS_INDEX_PATH = ("https://storage.googleapis.com/download.tensorflow.org/"
                    "data/imagenet_class_index.json")
_CLASS_INDEX_HASH = "c2c37ea517e94d9795004a39431a14cb"
_MEANS = {"caffe": ((103.939, 116.779, 123.68), None),
          "torch": ((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))}


def preprocess_input(x, data_format=None, mode="caffe"):
    """Images (a batch or one, 0..255) as the ImageNet weights expect them: "caffe" flips
    RGB to BGR and subtracts the channel means, "tf" scales to -1..1, "torch" scales to
    0..1 and normalizes each channel. NumPy in, NumPy out; JAX arrays stay JAX arrays, and
    on a KerasTensor (``preprocess_input(inputs)`` in a functional model) these are graph
    nodes."""
    if mode not in ("caffe", "tf", "torch"):
        raise ValueError(f'mode must be "caffe", "tf" or "torch", received {mode!r}.')
    data_format = standardize_data_format(data_format)
    is_numpy = isinstance(x, np.ndarray)
    if not isinstance(x, KerasTensor):
        x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        x = ops.cast(x, config.floatx())
    if mode == "tf":
        out = x / 127.5 - 1.0
        return np.asarray(out) if is_numpy else out
    axis = -1 if data_format == "channels_last" else -3
    x = x / 255.0 if mode == "torch" else ops.flip(x, axis=axis)  # "caffe": RGB -> BGR
    mean, std = _MEANS[mode]
    shape = [1] * len(x.shape)
    shape[axis] = 3
    out = x - np.asarray(mean, x.dtype).reshape(shape)
    if std is not None:
        out = out / np.asarray(std, x.dtype).reshape(shape)
    return np.asarray(out) if is_numpy else out


_class_index = None


def decode_predictions(preds, top=5):
    """The ``top`` ImageNet classes of each row of ``preds`` (``(samples, 1000)``), as
    ``(class_name, description, score)`` tuples, best first."""
    global _class_index
    preds = np.asarray(preds)
    if preds.ndim != 2 or preds.shape[1] != 1000:
        raise ValueError("decode_predictions expects a batch of ImageNet predictions, an "
                         f"array of shape (samples, 1000); received shape {preds.shape}.")
    if _class_index is None:
        path = get_file("imagenet_class_index.json", CLASS_INDEX_PATH, cache_subdir="models",
                        file_hash=_CLASS_INDEX_HASH)
        with open(path) as file:
            _class_index = json.load(file)
    results = []
    for row in preds:
        best = row.argsort()[-top:][::-1]  # best first
        results.append([tuple(_class_index[str(i)]) + (row[i],) for i in best])
    return results


def obtain_input_shape(input_shape, default_size, min_size, data_format, require_flatten,
                       weights=None):
    """The image shape a builder uses (Keras's rules): ``input_shape`` checked, or the
    default (``default_size`` square, 3 channels; any size without the top)."""
    channels_first = data_format == "channels_first"
    given_channels = input_shape and len(input_shape) == 3 and (
        input_shape[0] if channels_first else input_shape[-1])
    if weights != "imagenet" and given_channels:
        if given_channels not in (1, 3):
            warnings.warn(f"This model usually expects 1 or 3 input channels; input_shape "
                          f"{input_shape} has {given_channels}.", UserWarning, stacklevel=3)
        channels = given_channels
    else:
        channels = 3
    default = ((channels, default_size, default_size) if channels_first
               else (default_size, default_size, channels))
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default:
            raise ValueError(f"With include_top=True and the imagenet weights, input_shape "
                             f"must be {default}; received {input_shape}.")
        return default
    if input_shape:
        if len(input_shape) != 3:
            raise ValueError(f"input_shape must be a tuple of three integers, received "
                             f"{input_shape}.")
        spatial = input_shape[1:] if channels_first else input_shape[:2]
        if weights == "imagenet" and given_channels != 3:
            raise ValueError(f"The input must have 3 channels; received input_shape="
                             f"{input_shape}.")
        if any(d is not None and d < min_size for d in spatial):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; received "
                             f"input_shape={input_shape}.")
        input_shape = tuple(input_shape)
    elif require_flatten:
        input_shape = default
    else:
        input_shape = (3, None, None) if channels_first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(f"With include_top=True, input_shape must be static; received "
                         f"{input_shape}.")
    return input_shape


def validate_activation(classifier_activation, weights):
    """With the imagenet weights, the classifier's activation must be None or softmax."""
    if weights is None:
        return
    classifier_activation = activations.get(classifier_activation)
    if classifier_activation not in (activations.softmax, activations.linear):
        raise ValueError("With pretrained weights, classifier_activation must be None or "
                         f'"softmax"; received {classifier_activation!r}.')
