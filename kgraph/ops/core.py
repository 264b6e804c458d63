"""``keras.ops`` core: conversion, control flow, scatter/segment ops and custom gradients.

Control flow takes Python callables, so it runs on arrays (eagerly or under ``jit``), not
on KerasTensors: use it inside a layer's ``call``.

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
from kgraph.base.tensor_kinds import dense_only
from kgraph.ops.complex_parts import complex_parts
from kgraph.ops.registry import is_symbolic, register_op


def _arrays_only(name, *args):
    if is_symbolic(args):
        raise TypeError(f"ops.{name} takes Python functions and runs on arrays, not on "
                        "symbolic KerasTensors: call it inside a layer's call(), where the "
                        "inputs are arrays.")


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """``x`` as a JAX array (KerasTensors are returned as they are)."""
    dense_only("ops.convert_to_tensor", sparse, ragged)
    if isinstance(x, KerasTensor):
        return x
    if hasattr(x, "value") and hasattr(x, "assign"):  # a kgraph Variable
        x = x.value
    return jnp.asarray(x, dtype)


def convert_to_numpy(x):
    """``x`` as a NumPy array (KerasTensors have no values: an error)."""
    _arrays_only("convert_to_numpy", x)
    return np.asarray(x)


def is_tensor(x) -> bool:
    """True for JAX arrays (and KerasTensors)."""
    return isinstance(x, (jax.Array, KerasTensor))


def dtype(x) -> str:
    """``x``'s dtype name."""
    return jnp.dtype(x.dtype).name


def cond(pred, true_fn, false_fn):
    """``true_fn()`` if ``pred`` else ``false_fn()`` (``jax.lax.cond``)."""
    _arrays_only("cond", pred)
    return jax.lax.cond(pred, true_fn, false_fn)


def switch(index, branches, *operands):
    """``branches[index](*operands)`` (``jax.lax.switch``)."""
    _arrays_only("switch", index, operands)
    return jax.lax.switch(index, branches, *operands)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """``jax.lax.scan``: ``f(carry, x) -> (carry, y)`` over ``xs``'s leading axis."""
    _arrays_only("scan", init, xs)
    return jax.lax.scan(f, init, xs, length=length, reverse=reverse, unroll=unroll)


def associative_scan(f, elems, reverse=False, axis=0):
    """``jax.lax.associative_scan``: prefix results of an associative ``f``."""
    _arrays_only("associative_scan", elems)
    return jax.lax.associative_scan(f, elems, reverse=reverse, axis=axis)


def fori_loop(lower, upper, body_fun, init_val):
    """``body_fun(i, val)`` for ``i`` in ``[lower, upper)``."""
    _arrays_only("fori_loop", init_val)
    return jax.lax.fori_loop(lower, upper, body_fun, init_val)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Keras's ``while_loop``: ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``
    (a tuple of loop variables in, the same structure out)."""
    _arrays_only("while_loop", loop_vars)
    single = not isinstance(loop_vars, (tuple, list))
    state = (loop_vars,) if single else tuple(loop_vars)

    def as_tuple(value):
        return (value,) if single or not isinstance(value, (tuple, list)) else tuple(value)

    if maximum_iterations is None:
        final = jax.lax.while_loop(lambda s: cond(*s), lambda s: as_tuple(body(*s)), state)
    else:
        def bounded_cond(s):
            return jnp.logical_and(s[0] < maximum_iterations, cond(*s[1]))

        final = jax.lax.while_loop(bounded_cond,
                                   lambda s: (s[0] + 1, as_tuple(body(*s[1]))),
                                   (jnp.zeros((), jnp.int32), state))[1]
    return final[0] if single else type(loop_vars)(final)


def map(f, xs):  # noqa: A001 - keras.ops name
    """``f`` over the leading axis of ``xs`` (``jax.lax.map``)."""
    _arrays_only("map", xs)
    return jax.lax.map(f, xs)


def vectorized_map(function, elements):
    """``function`` over the leading axis of ``elements`` (``jax.vmap``)."""
    _arrays_only("vectorized_map", elements)
    return jax.vmap(function)(elements)


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


@register_op("saturate_cast")
def saturate_cast(x, dtype):
    """``x`` cast to ``dtype``, clipped to its range first."""
    target = jnp.dtype(dtype)
    info = jnp.iinfo(target) if jnp.issubdtype(target, jnp.integer) else jnp.finfo(target)
    return jnp.clip(x, info.min, info.max).astype(target)


@register_op("empty_like")
def empty_like(x, dtype=None):
    """An array like ``x`` (zeros: JAX has no uninitialised memory)."""
    return jnp.zeros_like(x, dtype)


@register_op("in_top_k", tensors=2)
def in_top_k(targets, predictions, k):
    """Whether each target class is among the ``k`` highest predictions of its row."""
    target_scores = jnp.take_along_axis(predictions, targets[:, None].astype(jnp.int32), 1)
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


@register_op("fft")
def fft(x):
    """FFT over the last axis of ``x = (real, imag)``; returns ``(real, imag)``."""
    out = jnp.fft.fft(_complex("fft", x))
    return jnp.real(out), jnp.imag(out)


@register_op("fft2")
def fft2(x):
    """2-D FFT over the last two axes of ``x = (real, imag)``; returns ``(real, imag)``."""
    out = jnp.fft.fft2(_complex("fft2", x, 2))
    return jnp.real(out), jnp.imag(out)


@register_op("ifft2")
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
