"""Adaptive pooling (Keras 3): pool to a fixed ``output_size`` whatever the input size.

Output position ``i`` of an axis of length ``L`` pools input positions
``floor(i * L / O) .. ceil((i + 1) * L / O) - 1`` (PyTorch's and Keras's windows). Both
pools are separable, so each spatial axis is pooled in turn.

>>> import jax.numpy as jnp
>>> AdaptiveAveragePooling1D(2)(jnp.arange(5.0).reshape(1, 5, 1))[0, :, 0].tolist()
[1.0, 3.0]
>>> AdaptiveMaxPooling2D(3)(jnp.ones((1, 7, 8, 2))).shape
(1, 3, 3, 2)
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.layers import conv_utils as cu


def _windows(length, size):
    """``(index (size, width), valid (size, width))`` of each output's input positions."""
    starts = np.floor(np.arange(size) * length / size).astype(int)
    ends = np.ceil(np.arange(1, size + 1) * length / size).astype(int)
    width = int((ends - starts).max())
    index = starts[:, None] + np.arange(width)[None, :]
    valid = index < ends[:, None]
    return np.minimum(index, length - 1), valid


class _AdaptivePooling(Layer):
    rank = None
    reduce = None  # "mean" or "max"

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.output_size = cu.standardize_tuple(output_size, self.rank, "output_size")
        self.data_format = cu.standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def call(self, inputs):
        x = inputs
        for axis, size in zip(cu.spatial_axes(self.rank, self.data_format), self.output_size):
            if x.shape[axis] is None:
                raise ValueError(f'Layer "{self.name}" needs a known size on axis {axis}.')
            index, valid = _windows(x.shape[axis], size)
            gathered = jnp.take(x, jnp.asarray(index), axis=axis)  # axis -> (size, width)
            mask = jnp.asarray(valid).reshape(valid.shape + (1,) * (x.ndim - axis - 1))
            if self.reduce == "max":
                low = jnp.asarray(-jnp.inf, x.dtype) if jnp.issubdtype(
                    x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min
                x = jnp.max(jnp.where(mask, gathered, low), axis=axis + 1)
            else:
                counts = mask.sum(axis=1, keepdims=True).astype(x.dtype)
                x = jnp.sum(jnp.where(mask, gathered, 0), axis=axis + 1) / jnp.squeeze(
                    counts, 1)
        return x

    def compute_output_shape(self, input_shape):
        if self.data_format == "channels_last":
            return (input_shape[0], *self.output_size, input_shape[-1])
        return (input_shape[0], input_shape[1], *self.output_size)

    def get_config(self):
        return {**super().get_config(), "output_size": self.output_size,
                "data_format": self.data_format}


class AdaptiveAveragePooling1D(_AdaptivePooling):
    """Average-pool ``(batch, steps, channels)`` to ``output_size`` steps."""

    rank, reduce = 1, "mean"


class AdaptiveAveragePooling2D(_AdaptivePooling):
    """Average-pool images to ``output_size`` (an int or (height, width))."""

    rank, reduce = 2, "mean"


class AdaptiveAveragePooling3D(_AdaptivePooling):
    """Average-pool volumes to ``output_size`` (an int or (depth, height, width))."""

    rank, reduce = 3, "mean"


class AdaptiveMaxPooling1D(_AdaptivePooling):
    """Max-pool ``(batch, steps, channels)`` to ``output_size`` steps."""

    rank, reduce = 1, "max"


class AdaptiveMaxPooling2D(_AdaptivePooling):
    """Max-pool images to ``output_size`` (an int or (height, width))."""

    rank, reduce = 2, "max"


class AdaptiveMaxPooling3D(_AdaptivePooling):
    """Max-pool volumes to ``output_size`` (an int or (depth, height, width))."""

    rank, reduce = 3, "max"
