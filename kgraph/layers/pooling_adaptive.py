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
from kgraph.ops import conv_utils as cu
from kgraph.ops.nn_windows import _adaptive_pool

__all__ = [
    "AdaptiveAveragePooling1D", "AdaptiveAveragePooling2D", "AdaptiveAveragePooling3D",
    "AdaptiveMaxPooling1D", "AdaptiveMaxPooling2D", "AdaptiveMaxPooling3D"
]


class _AdaptivePooling(Layer):
    rank = None
    reduce = None  # "mean" or "max"

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.output_size = cu.standardize_tuple(output_size, self.rank, "output_size")
        self.data_format = cu.standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def call(self, inputs):
        return _adaptive_pool(inputs, self.output_size, self.data_format, self.reduce,
                             f'Layer "{self.name}"')

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
