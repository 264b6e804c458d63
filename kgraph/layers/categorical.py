"""Keras's encoding of integer categories (``CategoryEncoding``, ``Discretization``,
``Hashing`` and the lookups share it): ``one_hot`` adds an axis of ``depth`` (a trailing
axis of 1 is replaced), ``multi_hot`` and ``count`` reduce axis 1 of a batch (axis 0 of a
single sample); a scalar counts as a sample of one. Indices outside ``[0, depth)`` (e.g. a
lookup's masked tokens) encode as zeros.

>>> encode_categorical(jnp.array([[0, 1], [3, 3]]), "count", 4).tolist()
[[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0]]
>>> encode_categorical(jnp.array([2]), "one_hot", 3).tolist()
[[0.0, 0.0, 1.0]]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["CATEGORICAL_MODES", "encode_categorical", "encoded_shape"]

CATEGORICAL_MODES = ("one_hot", "multi_hot", "count")


def encode_categorical(inputs, output_mode, depth, dtype="float32", count_weights=None):
    """``inputs`` (integer categories) as ``output_mode`` vectors of ``depth`` entries in
    ``dtype`` (``count_weights``' dtype when given: each occurrence counts its weight)."""
    inputs = jnp.asarray(inputs)
    if output_mode == "int":
        return inputs.astype(dtype)
    if inputs.ndim == 0:
        inputs = inputs[None]
    if output_mode == "one_hot":
        if inputs.ndim > 1 and inputs.shape[-1] == 1:
            inputs = inputs[..., 0]
        return jax.nn.one_hot(inputs, depth, dtype=dtype)
    axis = 1 if inputs.ndim > 1 else 0
    if count_weights is not None:
        count_weights = jnp.asarray(count_weights)
        dtype = count_weights.dtype
    hot = jax.nn.one_hot(inputs, depth, dtype=dtype)
    if output_mode == "multi_hot":
        return jnp.max(hot, axis=axis)
    if count_weights is not None:
        hot = hot * count_weights[..., None]
    return jnp.sum(hot, axis=axis)


def encoded_shape(input_shape, output_mode, depth) -> tuple:
    """The shape ``encode_categorical`` gives for inputs of ``input_shape``."""
    input_shape = tuple(input_shape)
    if output_mode == "int":
        return input_shape
    if not input_shape:
        return (depth,)
    if output_mode == "one_hot":
        if len(input_shape) > 1 and input_shape[-1] == 1:
            return input_shape[:-1] + (depth,)
        return input_shape + (depth,)
    return input_shape[:1] + input_shape[2:] + (depth,) if len(input_shape) > 1 else (depth,)

