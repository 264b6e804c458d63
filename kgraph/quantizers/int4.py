"""Keras's int4 packing: two signed 4-bit values per byte, along one axis.

>>> import numpy as np
>>> packed, packed_shape, length = pack_int4(np.array([[-3, 7], [2, -8], [1, 0]], "int8"))
>>> packed.tolist(), packed_shape, length
([[45, -121], [1, 0]], (2, 2), 3)
>>> unpack_int4(packed, length).tolist()
[[-3, 7], [2, -8], [1, 0]]
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

__all__ = ["pack_int4", "unpack_int4"]


def _check_dtype(dtype):
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Expected dtype to be 'int8' or 'uint8', but got '{dtype}'.")


def pack_int4(arr, axis=0, dtype="int8"):
    """``(packed, packed_shape, orig_len)``: ``arr`` (int8 or uint8 values in ``[-8, 7]``)
    with each two consecutive entries along ``axis`` in one byte, the first in the low
    nibble (an odd length is padded with a zero). Packing runs on the host (NumPy), as
    Keras's, since it happens once when a layer is quantized.

    >>> pack_int4(np.array([[-3, 7, 2], [-8, 1, 0]], "int8"), axis=1)[0].tolist()
    [[125, 2], [24, 0]]
    """
    _check_dtype(dtype)
    if jnp.dtype(arr.dtype).name != dtype:
        raise TypeError(f"Expected {dtype} tensor for packing, got {jnp.dtype(arr.dtype).name}.")
    values = np.asarray(arr)
    axis = axis + values.ndim if axis < 0 else axis
    values = np.moveaxis(values, axis, 0)
    length = values.shape[0]
    if length % 2:
        values = np.concatenate([values, np.zeros((1,) + values.shape[1:], values.dtype)])
    kind = np.dtype(dtype)
    mask = np.array(0x0F, dtype=kind)
    low = np.bitwise_and(values[::2].astype(kind), mask)
    high = np.bitwise_and(values[1::2].astype(kind), mask)
    packed = np.bitwise_or(low, np.left_shift(high, np.array(4, dtype=kind))).astype(kind)
    packed = np.moveaxis(packed, 0, axis)
    return jnp.asarray(packed), tuple(packed.shape), length


def unpack_int4(packed, orig_len, axis=0, dtype="int8"):
    """The int8 (``dtype="int8"``: values in ``[-8, 7]``) or uint8 (``[0, 15]``) array
    that ``pack_int4`` packed along ``axis``, its padding removed (``orig_len`` entries).
    Runs in JAX (inside a call, on a layer's packed weight).

    >>> unpack_int4(np.array([[125, 2], [24, 0]], "int8"), 3, axis=1).tolist()
    [[-3, 7, 2], [-8, 1, 0]]
    """
    _check_dtype(dtype)
    if jnp.dtype(packed.dtype).name not in ("int8", "uint8"):
        raise TypeError(f"Expected int8 or uint8 tensor for unpacking, got {packed.dtype}")
    packed = jnp.asarray(packed)
    rank = packed.ndim
    axis = axis + rank if axis < 0 else axis
    order = [axis] + [i for i in range(rank) if i != axis]
    front = jnp.transpose(packed, order)
    mask = jnp.asarray(0x0F, packed.dtype)
    low = jnp.bitwise_and(front, mask)
    high = jnp.bitwise_and(jnp.right_shift(front, 4), mask)
    if dtype == "int8":  # nibbles [0, 15] to [-8, 7]: (x ^ 8) - 8
        eight = jnp.asarray(8, low.dtype)
        low = jnp.subtract(jnp.bitwise_xor(low, eight), eight)
        high = jnp.subtract(jnp.bitwise_xor(high, eight), eight)
    pairs = jnp.stack([low.astype(dtype), high.astype(dtype)], axis=1)
    unpacked = jnp.reshape(pairs, (-1,) + front.shape[1:])[:orig_len]
    return jnp.transpose(unpacked, [order.index(i) for i in range(rank)])
