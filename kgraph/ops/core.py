"""``keras.ops`` core: conversion, control flow, scatter/segment ops and custom gradients.

Control flow (``kgraph.ops.control_flow``) takes Python callables: on arrays it runs at
once, on KerasTensors it makes a graph node (its Python functions are not serialized).

>>> from kgraph import ops
>>> ops.convert_to_numpy(ops.scan(lambda c, x: (c + x, c), 0, ops.arange(4))[1]).tolist()
[0, 0, 1, 3]
>>> ops.segment_sum(ops.array([1.0, 2.0, 3.0]), ops.array([0, 0, 1]), num_segments=2).tolist()
[3.0, 3.0]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.graph.keras_tensor import KerasTensor
from kgraph.ops.complex_parts import complex_parts
from kgraph.ops.control_flow import (associative_scan, cond, fori_loop, map,  # noqa: F401,A004
                                     scan, switch, vectorized_map, while_loop)
from kgraph.ops.registry import get_op, is_symbolic, register_op


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """``x`` as a JAX array (a KerasTensor stays one, cast to ``dtype`` if given).

    ``sparse`` and ``ragged`` say whether to keep tensors of those kinds, as Keras's: kgraph's
    tensors are all dense, so there is none to keep or to densify.
    """
    del sparse, ragged
    if isinstance(x, KerasTensor):
        if dtype is None or jnp.dtype(dtype) == x.dtype:
            return x
        return get_op("cast")(x, dtype)
    if hasattr(x, "value") and hasattr(x, "assign"):  # a kgraph Variable
        x = x.value
    return jnp.asarray(x, dtype)


def convert_to_numpy(x):
    """``x`` as a (writable) NumPy array; a KerasTensor has no values: ValueError."""
    if is_symbolic(x):
        raise ValueError("ops.convert_to_numpy: a symbolic KerasTensor has no values; "
                         "call it on arrays (inside a layer's call(), or on a model's "
                         f"outputs). Received: {x}")
    return np.array(x)


def is_tensor(x) -> bool:
    """True for JAX arrays (and KerasTensors)."""
    return isinstance(x, (jax.Array, KerasTensor))


def dtype(x) -> str:
    """``x``'s dtype name."""
    return jnp.dtype(x.dtype).name


def custom_gradient(fun):
    """Keras's ``custom_gradient``: ``fun(*args) -> (output, grad_fn)`` where
    ``grad_fn(upstream)`` gives the input gradients (``jax.custom_gradient``)."""
    return jax.custom_gradient(fun)


def _integer(indices):
    """Indices as an integer array (float indices, as a KerasTensor's default dtype gives,
    are truncated)."""
    indices = jnp.asarray(indices)
    return indices if jnp.issubdtype(indices.dtype, jnp.integer) else indices.astype("int32")


@register_op("scatter", tensors=2)
def scatter(indices, values, shape):
    """Zeros of ``shape`` with ``values`` added at ``indices`` (rows of index tuples)."""
    indices = _integer(indices)
    zeros = jnp.zeros(shape, jnp.asarray(values).dtype)
    return zeros.at[tuple(jnp.moveaxis(indices, -1, 0))].add(values)


_SCATTER_REDUCTIONS = {None: "set", "add": "add", "max": "max", "min": "min",
                       "mul": "multiply"}


@register_op("scatter_update", tensors=3)
def scatter_update(inputs, indices, updates, reduction=None):
    """``inputs`` with ``updates`` written at ``indices``, or combined with the values
    there by ``reduction`` (``"add"``, ``"max"``, ``"min"``, ``"mul"``)."""
    if reduction not in _SCATTER_REDUCTIONS:
        raise ValueError(f"ops.scatter_update: Unsupported reduction: {reduction}")
    indices = _integer(indices)
    at = jnp.asarray(inputs).at[tuple(jnp.moveaxis(indices, -1, 0))]
    return getattr(at, _SCATTER_REDUCTIONS[reduction])(updates)


@register_op("slice_update", tensors=3)
def slice_update(inputs, start_indices, updates):
    """``inputs`` with the block ``updates`` written from ``start_indices``."""
    return jax.lax.dynamic_update_slice(inputs, jnp.asarray(updates, inputs.dtype),
                                        tuple(_integer(start_indices)))


def _segment(name, reducer):
    def segment(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
        data, segment_ids = jnp.asarray(data), jnp.asarray(segment_ids)
        if segment_ids.ndim != 1:
            raise ValueError(f"ops.segment_{name}: Argument `segment_ids` should be an 1-D "
                             f"vector, got shape: {segment_ids.shape}.")
        if data.ndim < 1 or data.shape[0] != segment_ids.shape[0]:
            raise ValueError(f"ops.segment_{name}: Argument `segment_ids` and `data` should "
                             f"have same leading dimension. Got {segment_ids.shape} v.s. "
                             f"{data.shape}.")
        if num_segments is None:  # the output's size would depend on the values
            raise ValueError(f"ops.segment_{name}: Argument `num_segments` must be set when "
                             "using the JAX backend.")
        return reducer(data, segment_ids, num_segments=num_segments,
                       indices_are_sorted=sorted)

    segment.__doc__ = (f"The {name} of ``data``'s rows per segment id (``num_segments`` "
                       "segments: the output's size cannot depend on the values).")
    return segment


def _segment_spec(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """A segment reduction's output: ``num_segments`` rows (unknown when None)."""
    return KerasTensor((num_segments, *data.shape[1:]), data.dtype)


segment_sum, segment_max, segment_min, segment_prod = (
    register_op(f"segment_{name}", tensors=2, spec=_segment_spec)(_segment(name, reducer))
    for name, reducer in (("sum", jax.ops.segment_sum), ("max", jax.ops.segment_max),
                          ("min", jax.ops.segment_min), ("prod", jax.ops.segment_prod)))


def _dtype_range(dtype):
    dtype = jnp.dtype(dtype)
    if dtype == jnp.bool_:
        return 0, 1
    info = jnp.iinfo(dtype) if jnp.issubdtype(dtype, jnp.integer) else jnp.finfo(dtype)
    return info.min, info.max


@register_op("saturate_cast")
def saturate_cast(x, dtype):
    """``x`` cast to ``dtype``, clipped to its range first (bounds representable in
    ``x``'s dtype, nudged inside the range where they round outside it, as Keras's)."""
    x = jnp.asarray(x)
    target, source = jnp.dtype(dtype), x.dtype
    (in_min, in_max), (out_min, out_max) = _dtype_range(source), _dtype_range(target)
    low = np.array(np.maximum(in_min, out_min)).astype(source)
    if low < out_min:
        low = np.nextafter(low, 0, dtype=source)
    high = np.array(np.minimum(in_max, out_max)).astype(source)
    if high > out_max:
        high = np.nextafter(high, 0, dtype=source)
    return jnp.clip(x, low, high).astype(target)


@register_op("empty_like")
def empty_like(x, dtype=None):
    """An array like ``x`` (zeros: JAX has no uninitialised memory)."""
    return jnp.zeros_like(x, dtype)


@register_op("in_top_k", tensors=2)
def in_top_k(targets, predictions, k):
    """Whether each target class is among the ``k`` highest predictions of its row."""
    target_scores = jnp.take_along_axis(predictions, targets[:, None].astype(jnp.int32), 1)
    # a NaN score is not a high one (Keras's): it ranks below every number
    target_scores = jnp.where(jnp.isnan(target_scores), -jnp.inf, target_scores)
    higher = jnp.sum(predictions > target_scores, axis=1)
    return higher < k


@register_op("cdist", tensors=2)
def cdist(x, y):
    """Pairwise Euclidean distances between the rows of ``x`` and ``y``."""
    diff = x[..., :, None, :] - y[..., None, :, :]
    return jnp.sqrt(jnp.sum(diff * diff, axis=-1))


def _complex(op, x, min_rank=1):
    real, imag = complex_parts(op, x, min_rank)
    return real + 1j * imag


def _fully_defined_spec(axes, what):
    """A spec refusing unknown sizes on the transformed ``axes`` (Keras's ValueError);
    the output is then traced."""
    def spec(x, **_):
        for part in x if isinstance(x, (tuple, list)) else (x,):
            if any(part.shape[a] is None for a in axes if len(part.shape) >= -a):
                raise ValueError(f"Input should have its {what} fully-defined. Received: "
                                 f"input.shape = {part.shape}")
        return None

    return spec


@register_op("fft", spec=_fully_defined_spec((-1,), "last dimension"))
def fft(x):
    """FFT over the last axis of ``x = (real, imag)``; returns ``(real, imag)``."""
    out = jnp.fft.fft(_complex("fft", x))
    return jnp.real(out), jnp.imag(out)


@register_op("fft2", spec=_fully_defined_spec((-2, -1), "last 2 axes"))
def fft2(x):
    """2-D FFT over the last two axes of ``x = (real, imag)``; returns ``(real, imag)``."""
    out = jnp.fft.fft2(_complex("fft2", x, 2))
    return jnp.real(out), jnp.imag(out)


@register_op("ifft2", spec=_fully_defined_spec((-2, -1), "last 2 axes"))
def ifft2(x):
    """Inverse 2-D FFT of ``x = (real, imag)``; returns ``(real, imag)``."""
    out = jnp.fft.ifft2(_complex("ifft2", x, 2))
    return jnp.real(out), jnp.imag(out)


@register_op("rfft")
def rfft(x, fft_length=None):
    """FFT of a real signal over its last axis; returns ``(real, imag)``."""
    x = jnp.asarray(x)
    if x.ndim < 1:
        raise ValueError(f"ops.rfft: Input should have rank >= 1. Received: input.shape = "
                         f"{x.shape}")
    out = jnp.fft.rfft(x, n=fft_length)
    return jnp.real(out), jnp.imag(out)


@register_op("irfft")
def irfft(x, fft_length=None):
    """The real signal of the half spectrum ``x = (real, imag)``."""
    return jnp.fft.irfft(_complex("irfft", x), n=fft_length)


@register_op("view_as_complex")
def view_as_complex(x):
    """``(..., 2)`` real pairs as complex numbers."""
    x = jnp.asarray(x)
    if x.ndim < 1 or x.shape[-1] != 2:
        raise ValueError("ops.view_as_complex: Last dimension of input must be size 2 (real "
                         f"and imaginary). Received shape: {x.shape}")
    return x[..., 0] + 1j * x[..., 1]


@register_op("view_as_real")
def view_as_real(x):
    """Complex numbers as ``(..., 2)`` real pairs."""
    x = jnp.asarray(x)
    return jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)


@register_op("extract_sequences")
def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of ``sequence_length`` along the last axis, every ``sequence_stride``:
    ``(..., L)`` -> ``(..., frames, sequence_length)`` (Keras's signal framing)."""
    x = jnp.asarray(x)
    if x.ndim < 1:
        raise ValueError("ops.extract_sequences: Input should have rank >= 1. Received: "
                         f"input.shape = {x.shape}")
    if sequence_length < 1 or sequence_stride < 1:
        raise ValueError(f"extract_sequences: sequence_length and sequence_stride must be "
                         f">= 1, received {sequence_length} and {sequence_stride}.")
    frames = max((x.shape[-1] - sequence_length) // sequence_stride + 1, 0)
    index = (np.arange(frames)[:, None] * sequence_stride + np.arange(sequence_length)[None])
    return x[..., index]


__all__ = ["associative_scan", "cdist", "cond", "convert_to_numpy", "convert_to_tensor",
           "custom_gradient", "dtype", "empty_like", "extract_sequences", "fft", "fft2",
           "fori_loop", "ifft2",
           "in_top_k", "irfft", "is_tensor", "map", "rfft", "saturate_cast", "scan", "scatter",
           "scatter_update", "segment_max", "segment_min", "segment_prod", "segment_sum",
           "slice_update", "switch", "vectorized_map", "view_as_complex", "view_as_real",
           "while_loop"]
