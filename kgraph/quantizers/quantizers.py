"""Keras's quantization functions and the ``Quantizer`` / ``AbsMaxQuantizer`` classes.

Every function gives Keras 3's numbers (the JAX backend's): the same operations in the same
dtypes, and with ``to_numpy=True`` the same NumPy computation on the host.

>>> import numpy as np
>>> q, scale = abs_max_quantize(np.array([[0.5, -1.0], [0.25, 2.0]], "float32"), axis=-1)
>>> q.tolist(), q.dtype.name
([[63, -127], [16, 127]], 'int8')
>>> x = np.array([-1.0, 0.3, 2.0], "float32")
>>> fake_quant_with_min_max_vars(x, -1.0, 1.0, num_bits=8).tolist()
[-0.9960784912109375, 0.2980392277240753, 1.003921627998352]
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

from kgraph.base.layer import Layer
from kgraph.config import epsilon as _epsilon
from kgraph.graph.keras_tensor import KerasTensor

__all__ = ["AbsMaxQuantizer", "Quantizer", "abs_max_quantize",
           "abs_max_quantize_grouped_with_zero_point", "compute_float8_amax_history",
           "compute_float8_scale", "compute_quantization_parameters",
           "dequantize_with_sz_map", "dequantize_with_zero_point",
           "fake_quant_with_min_max_vars", "quantize_and_dequantize", "quantize_with_sz_map",
           "quantize_with_zero_point"]

_EPSILON = _epsilon()  # Keras's default argument: ``backend.epsilon()`` when defined


def _dtype_name(x) -> str:
    return jnp.dtype(x.dtype).name


def _axis(axis):
    """An axis argument as JAX and NumPy take it (lists become tuples)."""
    return tuple(axis) if isinstance(axis, list) else axis


class Quantizer:
    """Base class of quantizers: ``quantizer(x)`` returns the quantized ``x``.

    >>> Quantizer()(3.0), Quantizer("int4").output_dtype
    (3.0, 'int4')
    """

    def __init__(self, output_dtype="int8"):
        self.output_dtype = output_dtype

    def __call__(self, x):
        """The quantized ``x`` (the base class returns ``x``)."""
        return x

    @classmethod
    def from_config(cls, config):
        """The quantizer ``get_config`` describes."""
        return cls(**config)

    def get_config(self):
        """The quantizer's constructor arguments (subclasses define it)."""
        raise NotImplementedError(f"{self} does not implement get_config()")


def abs_max_quantize(inputs, axis, value_range=(-127, 127), dtype="int8", epsilon=_EPSILON,
                     to_numpy=False):
    """``(quantized, scale)``: ``scale = value_range[1] / (max|inputs| along axis +
    epsilon)`` (kept dims, in the inputs' dtype) and ``quantized = clip(round(inputs *
    scale), *value_range)`` as ``dtype``. ``to_numpy`` computes on the host with NumPy.

    >>> q, scale = abs_max_quantize(np.array([[1.0, -4.0]], "float32"), axis=-1)
    >>> q.tolist(), scale.shape
    ([[32, -127]], (1, 1))
    """
    axis = _axis(axis)
    if to_numpy:
        original = jnp.dtype(np.asarray(inputs).dtype)
        values = np.asarray(inputs)
        scale = np.divide(value_range[1],
                          np.add(np.max(np.abs(values), axis=axis, keepdims=True), epsilon))
        outputs = np.clip(np.round(np.multiply(values, scale)), value_range[0], value_range[1])
        return jnp.asarray(outputs.astype(dtype)), jnp.asarray(scale, dtype=original)
    inputs = jnp.asarray(inputs)
    scale = jnp.divide(value_range[1],
                       jnp.add(jnp.max(jnp.abs(inputs), axis=axis, keepdims=True), epsilon))
    scale = scale.astype(inputs.dtype)
    outputs = jnp.clip(jnp.round(jnp.multiply(inputs, scale)), value_range[0], value_range[1])
    return outputs.astype(dtype), scale


class AbsMaxQuantizer(Quantizer):
    """Symmetric quantization by the absolute maximum along an axis (``abs_max_quantize``).

    Args:
      axis: deprecated; give the axis when calling (default -1).
      value_range: the ``(min, max)`` of the quantized values.
      epsilon: added to the maximum, so that a zero slice does not divide by zero.
      output_dtype: the quantized values' dtype; ``"int8"`` needs a range within
        ``[-128, 127]``.

    >>> q, scale = AbsMaxQuantizer()(np.array([[2.0, -1.0]], "float32"))
    >>> q.tolist(), round(float(scale[0, 0]), 2)
    ([[127, -64]], 63.5)
    """

    def __init__(self, axis=None, value_range=(-127, 127), epsilon=_EPSILON,
                 output_dtype="int8"):
        Quantizer.__init__(self, output_dtype=output_dtype)
        if axis is not None:
            axis = (axis,) if isinstance(axis, int) else axis
            self.axis = tuple(axis)
        else:
            self.axis = None
        self.value_range = value_range
        self.epsilon = epsilon
        if output_dtype == "int8" and (value_range[0] < -128 or value_range[1] > 127):
            raise ValueError(f"Quantizer with output_dtype='int8' requires value_range to be "
                             f"within the interval [-128, 127]. Received: "
                             f"value_range={value_range}")

    def __call__(self, x, axis=None, to_numpy=False):
        """``(quantized, scale)`` of ``x`` along ``axis`` (else the constructor's, else -1)."""
        if axis is None:
            axis = self.axis
        if axis is None:
            axis = -1
        return abs_max_quantize(x, axis, self.value_range, self.output_dtype, self.epsilon,
                                to_numpy)

    def get_config(self):
        config = {"value_range": self.value_range, "epsilon": self.epsilon,
                  "output_dtype": self.output_dtype}
        if self.axis is not None:
            config["axis"] = self.axis
        return config


# ------------------------------------------------------------ grouped, with a zero point
def compute_quantization_parameters(x, *, bits, symmetric=False, per_channel=False,
                                    group_size=-1, compute_dtype="float32", epsilon=0.0,
                                    signed=False):
    """``(scale, zero, maxq)`` to quantize a ``[out_features, in_features]`` weight to
    ``bits`` bits: per tensor, per channel (a row), or per group of ``group_size`` inputs
    (then ``[out_features, n_groups]``); ``zero`` is int8 when ``signed`` else uint8.

    >>> scale, zero, maxq = compute_quantization_parameters(
    ...     np.array([[0.0, 1.5], [-1.0, 1.0]], "float32"), bits=4, per_channel=True)
    >>> scale.shape, zero.ravel().tolist(), float(maxq)
    ((2, 1), [0, 7], 15.0)
    """
    if x is None:
        raise ValueError(f"Input tensor {x} cannot be None.")
    x = jnp.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"Input weight tensor {x} must have a rank of at least 2, but got "
                         f"rank {x.ndim}.")
    if x.size == 0:
        raise ValueError("Input tensor 'x' cannot be empty.")
    out_features, in_features = x.shape[0], x.shape[1]
    n_groups = (in_features + group_size - 1) // group_size if (
        per_channel and group_size > 0) else 1
    if n_groups > 1:
        remainder = in_features % group_size
        if remainder:
            x = jnp.pad(x, [[0, 0], [0, group_size - remainder]], constant_values=0.0)
        grouped = jnp.reshape(x, (out_features, n_groups, group_size))
        low, high = jnp.min(grouped, axis=2), jnp.max(grouped, axis=2)
    else:
        rows = jnp.reshape(x, (out_features, -1) if per_channel else (1, -1))
        low, high = jnp.min(rows, axis=1), jnp.max(rows, axis=1)
    if symmetric:
        max_abs = jnp.maximum(jnp.abs(low), high)
        low = jnp.where(jnp.less(low, 0), jnp.negative(max_abs), low)
        high = max_abs
    flat = jnp.equal(low, high)
    low = jnp.where(flat, jnp.subtract(low, 1), low)
    high = jnp.where(flat, jnp.add(high, 1), high)
    maxq = (jnp.power(jnp.asarray(2, "int32"), bits) - 1).astype(compute_dtype)
    spread = jnp.subtract(high, low)
    if epsilon > 0:
        spread = jnp.add(spread, epsilon)
    scale = jnp.divide(spread, maxq)
    scale = jnp.where(jnp.less_equal(scale, 0), 1e-8, scale)
    if signed:
        qmin, qmax = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        if symmetric:
            zero = jnp.full_like(scale, jnp.divide(jnp.add(maxq, 1), 2) + qmin)
        else:
            zero = jnp.add(jnp.round(jnp.divide(jnp.negative(low), scale)), qmin)
        zero = jnp.clip(zero, qmin, qmax)
    elif symmetric:
        zero = jnp.full_like(scale, jnp.divide(jnp.add(maxq, 1), 2))
    else:
        zero = jnp.round(jnp.divide(jnp.negative(low), scale))
    if n_groups == 1 and per_channel:
        scale, zero = jnp.reshape(scale, (-1, 1)), jnp.reshape(zero, (-1, 1))
    elif n_groups == 1:
        scale = jnp.tile(jnp.reshape(scale, (1, 1)), (out_features, 1))
        zero = jnp.tile(jnp.reshape(zero, (1, 1)), (out_features, 1))
    return scale, zero.astype("int8" if signed else "uint8"), maxq


def quantize_with_zero_point(input_tensor, scale, zero, maxq):
    """``clip(round(x / scale + zero), 0, maxq)`` (a zero scale divides by 1e-8)."""
    scale = jnp.asarray(scale)
    safe = jnp.where(jnp.equal(scale, 0), jnp.asarray(1e-8, scale.dtype), scale)
    q = jnp.round(jnp.add(jnp.divide(input_tensor, safe), jnp.asarray(zero).astype(scale.dtype)))
    return jnp.clip(q, 0, maxq)


def dequantize_with_zero_point(input_tensor, scale, zero):
    """``scale * (q - zero)``."""
    scale = jnp.asarray(scale)
    return jnp.multiply(scale, jnp.subtract(input_tensor, jnp.asarray(zero).astype(scale.dtype)))


def quantize_with_sz_map(weights_matrix, scale, zero, g_idx, maxq, group_axis=-1):
    """``quantize_with_zero_point`` with each position's group parameters: ``g_idx[i]`` is
    the group of position ``i``, whose scale and zero sit at index ``g_idx[i]`` of
    ``group_axis`` in ``scale`` and ``zero``."""
    groups = jnp.asarray(g_idx).astype("int32")
    return quantize_with_zero_point(weights_matrix, jnp.take(scale, groups, axis=group_axis),
                                    jnp.take(zero, groups, axis=group_axis), maxq)


def dequantize_with_sz_map(weights_matrix, scale, zero, g_idx, group_axis=-1):
    """``(q - zero) * scale`` with each position's group parameters (see
    ``quantize_with_sz_map``).

    >>> dequantize_with_sz_map(np.array([[2, 4]]), np.array([[0.5, 2.0]]),
    ...                        np.array([[0, 1]]), np.array([0, 1])).tolist()
    [[1.0, 6.0]]
    """
    groups = jnp.asarray(g_idx).astype("int32")
    scales = jnp.take(jnp.asarray(scale), groups, axis=group_axis)
    zeros = jnp.take(jnp.asarray(zero), groups, axis=group_axis).astype(scales.dtype)
    return jnp.multiply(jnp.subtract(weights_matrix, zeros), scales)


def abs_max_quantize_grouped_with_zero_point(inputs, block_size, value_range=(-8, 7),
                                             dtype="int8", epsilon=_EPSILON, to_numpy=False):
    """``(quantized, scale, zero_point)`` of a 2D ``(input_dim, output_dim)`` tensor with
    one scale and zero point per ``block_size`` rows and column (asymmetric): ``scale`` and
    ``zero_point`` are ``(ceil(input_dim / block_size), output_dim)``, ``zero_point`` int8.

    >>> q, scale, zero = abs_max_quantize_grouped_with_zero_point(
    ...     np.arange(8, dtype="float32").reshape(4, 2), block_size=2)
    >>> q.shape, scale.shape, zero.dtype.name
    ((4, 2), (2, 2), 'int8')
    """
    if to_numpy:
        return _grouped_numpy(inputs, block_size, value_range, dtype, epsilon)
    original = _dtype_name(jnp.asarray(inputs))
    inputs = jnp.asarray(inputs)
    input_dim, output_dim = inputs.shape
    qmin, qmax = value_range
    bits = int(math.log2(qmax - qmin + 1))
    n_groups = int(math.ceil(int(input_dim) / block_size))
    scale_t, zero_t, _ = compute_quantization_parameters(
        jnp.transpose(inputs), bits=bits, symmetric=False, per_channel=True,
        group_size=block_size, compute_dtype=original, epsilon=epsilon, signed=True)
    scale, zero = jnp.transpose(scale_t), jnp.transpose(zero_t)
    pad = n_groups * block_size - int(input_dim)
    if pad > 0:
        inputs = jnp.concatenate([inputs, jnp.zeros((pad, output_dim), inputs.dtype)], axis=0)
    blocks = jnp.reshape(inputs, (n_groups, block_size, output_dim))
    outputs = jnp.add(jnp.round(jnp.divide(blocks, scale[:, None])), zero[:, None])
    outputs = jnp.clip(outputs, qmin, qmax).astype(dtype)
    outputs = jnp.reshape(outputs, (n_groups * block_size, output_dim))[:input_dim, :]
    return outputs, scale, zero


def _grouped_numpy(inputs, block_size, value_range, dtype, epsilon):
    values = np.asarray(inputs)
    original = values.dtype
    input_dim, output_dim = values.shape
    n_groups = math.ceil(input_dim / block_size)
    qmin, qmax = value_range
    padded_dim = n_groups * block_size
    if padded_dim > input_dim:
        values = np.concatenate(
            [values, np.zeros((padded_dim - input_dim, output_dim), values.dtype)], axis=0)
    blocks = values.reshape(n_groups, block_size, output_dim)
    low = np.min(blocks, axis=1, keepdims=True)
    high = np.max(blocks, axis=1, keepdims=True)
    scale = np.divide(np.subtract(high, low) + epsilon, qmax - qmin)
    zero = np.clip(np.round(np.divide(-low, scale)) + qmin, qmin, qmax)
    outputs = np.clip(np.round(np.divide(blocks, scale)) + zero, qmin, qmax).astype(dtype)
    outputs = outputs.reshape(padded_dim, output_dim)[:input_dim, :]
    return (jnp.asarray(outputs), jnp.asarray(np.squeeze(scale, axis=1), dtype=original),
            jnp.asarray(np.squeeze(zero, axis=1).astype("int8")))


# ------------------------------------------------------------------ fake quantization
def _adjust_and_nudge(min_range, max_range, num_bits, narrow_range):
    dtype = jnp.result_type(min_range.dtype, jnp.float32)
    min_range, max_range = min_range.astype(dtype), max_range.astype(dtype)
    quant_max = (1 << num_bits) - 1
    quant_min = 1 if narrow_range else 0
    spread = jnp.subtract(max_range, min_range)
    scale = jnp.divide(spread, quant_max - quant_min)
    inv_scale = jnp.divide(quant_max - quant_min, spread)
    zero_point = jnp.clip(quant_min - jnp.divide(min_range, scale), quant_min, quant_max)
    nudged_zero = jnp.round(zero_point)
    nudged_min = jnp.multiply(jnp.subtract(quant_min, nudged_zero), scale)
    nudged_max = jnp.multiply(jnp.subtract(quant_max, nudged_zero), scale)
    return nudged_min, nudged_max, scale, inv_scale


def _fake_quant(x, min_val, max_val, num_bits, narrow_range, axis):
    @jax.custom_gradient
    def run(x, min_val, max_val):
        nudged_min, nudged_max, scale, inv_scale = _adjust_and_nudge(min_val, max_val,
                                                                     num_bits, narrow_range)
        quant_zero = jnp.floor(jnp.add(jnp.multiply(-nudged_min, inv_scale), 0.5))
        clamped = jnp.clip(x.astype(nudged_min.dtype), nudged_min, nudged_max)
        shifted = jnp.subtract(clamped, nudged_min)
        result = jnp.multiply(jnp.floor(jnp.add(jnp.subtract(jnp.multiply(shifted, inv_scale),
                                                             quant_zero), 0.5)), scale)
        result = result.astype(x.dtype)
        inside = jnp.logical_and(jnp.greater_equal(x, nudged_min), jnp.less_equal(x, nudged_max))

        def grad(upstream):
            dx = jnp.where(inside, upstream, 0.0)
            others = tuple(i for i in range(dx.ndim) if i != axis)
            below = jnp.where(jnp.less_equal(x, nudged_min), upstream, 0.0)
            above = jnp.where(jnp.greater_equal(x, nudged_max), upstream, 0.0)
            if axis is not None:
                below, above = jnp.sum(below, axis=others), jnp.sum(above, axis=others)
            else:
                below, above = jnp.sum(below), jnp.sum(above)
            return (dx, jnp.reshape(below, jnp.shape(min_val)),
                    jnp.reshape(above, jnp.shape(max_val)))

        return result, grad

    return run(x, min_val, max_val)


def fake_quant_with_min_max_vars(inputs, min_vals, max_vals, num_bits=8, narrow_range=False,
                                 axis=None):
    """Quantize ``inputs`` to ``num_bits`` levels in ``[min_vals, max_vals]`` (nudged so
    that 0 is a level; ``[1, 2^bits - 1]`` with ``narrow_range``) and back to floats: per
    tensor, or per channel along ``axis``. Its gradient passes through inside the range and
    goes to ``min_vals`` / ``max_vals`` outside it, as Keras's.

    >>> jax.grad(lambda x: fake_quant_with_min_max_vars(x, -1.0, 1.0).sum())(
    ...     jnp.array([-2.0, 0.5, 3.0])).tolist()
    [0.0, 1.0, 0.0]
    """
    if isinstance(inputs, KerasTensor):
        # the ranges go by keyword: Keras's layers take only tensors positionally
        return _FakeQuantNode(num_bits, narrow_range, axis)(inputs, min_vals=min_vals,
                                                            max_vals=max_vals)
    inputs = jnp.asarray(inputs)
    min_vals, max_vals = jnp.asarray(min_vals), jnp.asarray(max_vals)
    num_bits = int(num_bits)
    if axis is not None:
        if not -inputs.ndim <= axis < inputs.ndim:
            raise ValueError(f"axis {axis} is out of bounds for an array with dimension "
                             f"{inputs.ndim}.")
        axis = axis % inputs.ndim
    return _fake_quant(inputs, min_vals, max_vals, num_bits, narrow_range, axis)


class _FakeQuantNode(Layer):
    """``fake_quant_with_min_max_vars`` called on KerasTensors: a graph node."""

    def __init__(self, num_bits=8, narrow_range=False, axis=None, **kwargs):
        super().__init__(**kwargs)
        self.num_bits, self.narrow_range, self.axis = num_bits, narrow_range, axis

    def call(self, inputs, min_vals, max_vals):
        return fake_quant_with_min_max_vars(inputs, min_vals, max_vals, self.num_bits,
                                            self.narrow_range, self.axis)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "num_bits": self.num_bits,
                "narrow_range": self.narrow_range, "axis": self.axis}


# ------------------------------------------------------------------------------ float8
def compute_float8_scale(amax, scale, dtype_max, margin=0):
    """The delayed-scaling update of a float8 scale: ``1 / (dtype_max / amax / 2^margin)``,
    or the current ``scale`` where ``amax`` is 0 or not finite.

    >>> float(compute_float8_scale(jnp.float32(2.0), jnp.float32(1.0), 448.0))
    0.004464285913854837
    """
    inverse = jnp.reciprocal(jnp.asarray(scale))
    amax = jnp.asarray(amax)
    factor = jnp.divide(jnp.divide(dtype_max, amax), 2 ** margin)
    factor = jnp.where(amax > 0.0, factor, inverse)
    factor = jnp.where(jnp.isfinite(amax), factor, inverse)
    return jnp.reciprocal(factor)


def compute_float8_amax_history(x, amax_history):
    """``amax_history`` rolled one step left with ``max|x|`` in front.

    >>> compute_float8_amax_history(jnp.array([-3.0, 1.0]), jnp.array([1.0, 2.0, 0.0])).tolist()
    [3.0, 0.0, 1.0]
    """
    amax_history = jnp.asarray(amax_history)
    update = jnp.max(jnp.abs(x)).astype(amax_history.dtype)
    return jnp.roll(amax_history, shift=-1).at[0].set(update)


def quantize_and_dequantize(inputs, scale, quantized_dtype, compute_dtype):
    """``inputs / scale`` clipped to ``quantized_dtype``'s finite range, cast to it and
    back to ``compute_dtype``, times ``scale``.

    >>> quantize_and_dequantize(jnp.array([1000.0, 0.3]), jnp.float32(1.0), "float8_e4m3fn",
    ...                         "float32").tolist()
    [448.0, 0.3125]
    """
    compute_dtype = jnp.dtype(compute_dtype)
    limit = jnp.asarray(float(ml_dtypes.finfo(quantized_dtype).max), compute_dtype)
    scale = jnp.asarray(scale).astype(compute_dtype)
    x = jnp.clip(jnp.divide(inputs, scale), -limit, limit).astype(quantized_dtype)
    return jnp.multiply(x.astype(compute_dtype), scale)
