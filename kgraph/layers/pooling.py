"""Pooling layers: ``MaxPooling1D/2D/3D``, ``AveragePooling1D/2D/3D`` and the global
``GlobalMaxPooling1D/2D/3D``, ``GlobalAveragePooling1D/2D/3D``.

``padding="same"`` pads as TF/Keras (the extra pad at the end); average pooling divides
by the number of real (unpadded) elements in each window, as Keras.

>>> import kgraph as kg
>>> kg.layers.MaxPooling2D(2, padding="same")(kg.Input(shape=(5, 5, 3))).shape
(None, 3, 3, 3)
"""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.ops import conv_utils as cu

__all__ = [
    "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "BaseGlobalPooling",
    "BasePooling", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
    "GlobalAveragePooling3D", "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D",
    "MaxPooling1D", "MaxPooling2D", "MaxPooling3D"
]


def _accumulation_dtype(dtype):
    """float32 for half-precision floats (sums and means), else ``dtype``."""
    return jnp.float32 if dtype in (jnp.float16, jnp.bfloat16) else dtype


class BasePooling(Layer):
    """N-d max or average pooling over windows of ``pool_size`` every ``strides``."""

    rank = None
    pool_mode = None
    _builds_at_init = True

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.pool_size = cu.standardize_tuple(pool_size, self.rank, "pool_size")
        self.strides = cu.standardize_tuple(pool_size if strides is None else strides,
                                            self.rank, "strides")
        self.padding = cu.standardize_padding(padding)
        self.data_format = cu.standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _window(self, sizes):
        """Per-axis window (or stride) tuple over the full input rank."""
        full = [1] * (self.rank + 2)
        for axis, size in zip(cu.spatial_axes(self.rank, self.data_format), sizes):
            full[axis] = size
        return tuple(full)

    def _reduce(self, x, init, op):
        # A NumPy (not jnp) init value: JAX recognises max/add pools, which it can
        # differentiate, only when the init value is a concrete constant.
        return jax.lax.reduce_window(x, np.asarray(init, x.dtype), op,
                                     self._window(self.pool_size), self._window(self.strides),
                                     self.padding.upper())

    def call(self, inputs):
        if self.pool_mode == "max":
            if jnp.issubdtype(inputs.dtype, jnp.floating):
                init = -jnp.inf
            else:
                init = jnp.iinfo(inputs.dtype).min
            return self._reduce(inputs, init, jax.lax.max)
        x = cu.float_input(self, inputs)
        total = self._reduce(x.astype(_accumulation_dtype(x.dtype)), 0, jax.lax.add)
        if self.padding == "valid":
            return (total / math.prod(self.pool_size)).astype(x.dtype)
        # "same": divide by the count of real elements in each window (static shapes).
        spatial = [x.shape[a] for a in cu.spatial_axes(self.rank, self.data_format)]
        counts = self._reduce(jnp.ones(self._window(spatial), total.dtype), 0, jax.lax.add)
        return (total / counts).astype(x.dtype)

    def compute_output_shape(self, input_shape):
        axes = cu.spatial_axes(self.rank, self.data_format)
        lengths = [cu.conv_output_length(input_shape[a], k, s, self.padding)
                   for a, k, s in zip(axes, self.pool_size, self.strides)]
        channels = input_shape[cu.channel_axis(self.data_format)]
        return cu.spatial_output_shape(self.name, input_shape, self.data_format,
                                       channels, lengths)

    def _check_inputs(self, inputs):
        cu.check_rank(self, inputs.shape, self.rank + 2)
        super()._check_inputs(inputs)
        self.compute_output_shape(inputs.shape)  # a window larger than the input: an error

    def compute_output_dtype(self, input_dtype):
        if self.pool_mode == "average" and not jnp.issubdtype(input_dtype, jnp.floating):
            return self.compute_dtype
        return input_dtype

    def get_config(self):
        return {**super().get_config(), "pool_size": self.pool_size, "padding": self.padding,
                "strides": self.strides, "data_format": self.data_format}


class MaxPooling1D(BasePooling):
    """Max over windows of ``pool_size`` steps of ``(batch, steps, channels)``."""

    rank, pool_mode = 1, "max"

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class MaxPooling2D(BasePooling):
    """Max over ``pool_size`` windows of ``(batch, height, width, channels)``.

    >>> import kgraph as kg
    >>> kg.layers.MaxPooling2D()(kg.Input(shape=(6, 6, 1))).shape
    (None, 3, 3, 1)
    """

    rank, pool_mode = 2, "max"

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class MaxPooling3D(BasePooling):
    """Max over ``pool_size`` windows of ``(batch, d1, d2, d3, channels)``."""

    rank, pool_mode = 3, "max"

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling1D(BasePooling):
    """Mean over windows of ``pool_size`` steps of ``(batch, steps, channels)``."""

    rank, pool_mode = 1, "average"

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling2D(BasePooling):
    """Mean over ``pool_size`` windows of ``(batch, height, width, channels)``."""

    rank, pool_mode = 2, "average"

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling3D(BasePooling):
    """Mean over ``pool_size`` windows of ``(batch, d1, d2, d3, channels)``."""

    rank, pool_mode = 3, "average"

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class BaseGlobalPooling(Layer):
    """Max or mean over all spatial axes; ``keepdims`` keeps them with size 1."""

    rank = None
    _builds_at_init = True

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = cu.standardize_data_format(data_format)
        self.keepdims = bool(keepdims)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _axes(self):
        return cu.spatial_axes(self.rank, self.data_format)

    def compute_output_shape(self, input_shape):
        axes = self._axes()
        if self.keepdims:
            return tuple(1 if i in axes else d for i, d in enumerate(input_shape))
        return tuple(d for i, d in enumerate(input_shape) if i not in axes)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format,
                "keepdims": self.keepdims}


def _warn_mask_dropped(layer, mask) -> None:
    """Keras's warning when a layer that does not support masking receives a mask: the
    layer computes on every position and its output carries no mask."""
    if mask is not None:
        warnings.warn(f"Layer '{layer.name}' (of type {type(layer).__name__}) was passed an "
                      "input with a mask attached to it. However, this layer does not support "
                      "masking and will therefore destroy the mask information. Downstream "
                      "layers will not see the mask.", UserWarning, stacklevel=2)


class _GlobalMax(BaseGlobalPooling):
    """Max over every position, as Keras: an input mask is not applied (masked steps
    count), and the output has no mask (Keras's warning says so)."""

    def call(self, inputs):
        return jnp.max(inputs, axis=self._axes(), keepdims=self.keepdims)

    def compute_mask(self, inputs, mask=None):
        _warn_mask_dropped(self, mask)
        return None


class _GlobalAverage(BaseGlobalPooling):
    def call(self, inputs):
        x = cu.float_input(self, inputs)
        mean = jnp.mean(x, axis=self._axes(), keepdims=self.keepdims,
                        dtype=_accumulation_dtype(x.dtype))
        return mean.astype(x.dtype)

    def compute_output_dtype(self, input_dtype):
        if not jnp.issubdtype(input_dtype, jnp.floating):
            return self.compute_dtype
        return input_dtype

    def compute_mask(self, inputs, mask=None):
        # 2D / 3D: no masking (Keras's warning); 1D overrides this and uses the mask
        _warn_mask_dropped(self, mask)
        return None


def _step_mask(layer, mask):
    """A (batch, steps) mask as a bool array broadcastable against the inputs."""
    mask = jnp.asarray(mask).astype(bool)
    return jnp.expand_dims(mask, 2 if layer.data_format == "channels_last" else 1)


class GlobalMaxPooling1D(_GlobalMax):
    """Max over the steps of ``(batch, steps, features)``.

    As Keras 3, a mask (from ``Embedding(mask_zero=True)`` / ``Masking``) is not applied:
    the max is over every step, padding included, with Keras's warning that the mask is
    dropped. ``GlobalAveragePooling1D`` does use the mask.

    >>> import numpy as np
    >>> x = np.array([[[1.0], [3.0], [100.0]]], np.float32)
    >>> GlobalMaxPooling1D()(x).tolist()
    [[100.0]]
    """

    rank = 1


class GlobalMaxPooling2D(_GlobalMax):
    """Max over height and width of ``(batch, height, width, channels)``."""

    rank = 2


class GlobalMaxPooling3D(_GlobalMax):
    """Max over the three spatial axes of ``(batch, d1, d2, d3, channels)``."""

    rank = 3


class GlobalAveragePooling1D(_GlobalAverage):
    """Mean over the steps of ``(batch, steps, features)``.

    With a ``mask`` ``(batch, steps)``, the mean of the unmasked steps; a sequence with no
    unmasked step gives NaN (0 / 0), as Keras. The output has no mask.

    >>> import numpy as np
    >>> x = np.array([[[1.0], [3.0], [100.0]]], np.float32)
    >>> GlobalAveragePooling1D()(x, mask=np.array([[True, True, False]])).tolist()
    [[2.0]]
    """

    rank = 1
    supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        x = cu.float_input(self, inputs)
        mask = _step_mask(self, mask)
        axis = self._axes()
        acc = _accumulation_dtype(x.dtype)
        total = jnp.sum(jnp.where(mask, x, jnp.zeros((), x.dtype)).astype(acc), axis=axis,
                        keepdims=self.keepdims)
        count = jnp.sum(mask.astype(acc), axis=axis, keepdims=self.keepdims)
        return (total / count).astype(x.dtype)

    def compute_mask(self, inputs, mask=None):
        return None


class GlobalAveragePooling2D(_GlobalAverage):
    """Mean over height and width of ``(batch, height, width, channels)``."""

    rank = 2


class GlobalAveragePooling3D(_GlobalAverage):
    """Mean over the three spatial axes of ``(batch, d1, d2, d3, channels)``."""

    rank = 3
