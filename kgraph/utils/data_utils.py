"""Keras's array utilities: one-hot labels, padding sequences, normalizing, batch tuples.

>>> to_categorical([0, 2], 3).tolist()
[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
>>> pad_sequences([[1, 2, 3], [4]], maxlen=2).tolist()
[[2, 3], [0, 4]]
"""

from __future__ import annotations

import numpy as np

from kgraph.graph.keras_tensor import KerasTensor

__all__ = [
    "get_source_inputs", "normalize", "pack_x_y_sample_weight", "pad_sequences",
    "to_categorical", "unpack_x_y_sample_weight"
]


def to_categorical(x, num_classes=None):
    """One-hot rows (float64, as Keras) for integer labels; a trailing axis of 1 is dropped.

    Labels outside ``[0, num_classes)`` are an error naming the first bad label.
    """
    x = np.asarray(x)
    if x.dtype.kind not in "iub" and not (x.dtype.kind == "f" and np.all(x == np.round(x))):
        raise ValueError(f"to_categorical expects integer class labels, received dtype "
                         f"{x.dtype}.")
    x = x.astype("int64")
    shape = x.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    if not num_classes:
        num_classes = int(np.max(x)) + 1 if x.size else 0
    bad = (x < 0) | (x >= num_classes)
    if bad.any():
        raise ValueError(f"to_categorical: label {int(x[bad][0])} is outside the "
                         f"{num_classes} classes [0, {num_classes}).")
    categorical = np.zeros((x.shape[0], num_classes))
    categorical[np.arange(x.shape[0]), x] = 1
    return categorical.reshape(shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    """``x`` divided by its ``order``-norm along ``axis`` (zero norms left as 1)."""
    if isinstance(x, np.ndarray) or not hasattr(x, "shape"):
        x = np.asarray(x)
        norm = np.atleast_1d(np.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        return x / np.expand_dims(norm, axis)
    import jax.numpy as jnp

    norm = jnp.linalg.norm(x, ord=order, axis=axis, keepdims=True)
    return x / jnp.where(norm == 0, 1, norm)


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
    """A ``(len(sequences), maxlen, ...)`` array of the sequences, padded with ``value`` and
    truncated to ``maxlen`` (default: the longest), at the start ("pre") or end ("post")."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    for name, side in (("padding", padding), ("truncating", truncating)):
        if side not in ("pre", "post"):
            raise ValueError(f'{name} type "{side}" not understood')
    lengths, sample_shape, first = [], (), True
    for s in sequences:
        try:
            lengths.append(len(s))
        except TypeError as error:
            raise ValueError("`sequences` must be a list of iterables. Found non-iterable: "
                             f"{s!r}") from error
        if first and len(s):
            sample_shape, first = np.asarray(s).shape[1:], False
    maxlen = int(np.max(lengths)) if maxlen is None and lengths else (maxlen or 0)
    is_text = np.issubdtype(np.dtype(dtype), np.str_) or np.dtype(dtype) == object
    if isinstance(value, str) and np.dtype(dtype) != object and not is_text:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: "
                         f"{type(value)}\nYou should set `dtype=object` for variable length "
                         "strings.")
    out = np.full((len(lengths), maxlen) + sample_shape, value, dtype=dtype)
    for i, s in enumerate(sequences):
        if not len(s):
            continue
        kept = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        kept = np.asarray(kept, dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {i} "
                             f"is different from expected shape {sample_shape}")
        if padding == "post":
            out[i, :len(kept)] = kept
        elif len(kept):
            out[i, -len(kept):] = kept
    return out


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from a batch ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, w)``."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found: {data}")


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The shortest batch tuple for ``x``, ``y``, ``sample_weight``."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def get_source_inputs(tensor):
    """The ``Input`` tensors a symbolic tensor was computed from."""
    if not isinstance(tensor, KerasTensor) or tensor._keras_history is None:
        raise ValueError(f"get_source_inputs expects a KerasTensor, received {tensor!r}.")
    found, seen, stack = [], set(), [tensor]
    while stack:
        t = stack.pop()
        layer = t._keras_history.layer
        node = layer._inbound_nodes[t._keras_history.node_index]
        if node.is_input:
            if id(t) not in seen:
                seen.add(id(t))
                found.append(t)
            continue
        stack.extend(reversed(node._keras_inputs))
    return found
