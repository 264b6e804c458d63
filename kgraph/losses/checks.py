"""Static checks of targets against predictions, by shape and dtype only.

They run on anything with ``.shape`` and ``.dtype`` (arrays, ``jax.ShapeDtypeStruct``),
before any computation, and raise a ``ValueError`` naming the loss, what was expected and
what was received. They accept everything Keras accepts: a missing or extra trailing axis
of size 1 (``(batch,)`` targets for ``(batch, 1)`` predictions), ``(batch, 1)`` integer
labels for sparse crossentropy. Unknown dimensions (None or symbolic) match anything.

>>> import jax, jax.numpy as jnp
>>> labels, scores = jax.ShapeDtypeStruct((8, 1), jnp.int32), jnp.zeros((8, 10))
>>> check_sparse("sparse_categorical_crossentropy", labels, scores)
>>> check_sparse("sparse_categorical_crossentropy",
...              jnp.zeros((8, 10)), jnp.zeros((8, 10)))  # doctest: +ELLIPSIS
Traceback (most recent call last):
ValueError: ...did you mean categorical_crossentropy?
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

__all__ = [
    "aligned_shapes", "check_categorical", "check_elementwise", "check_numeric",
    "check_same_shape", "check_sparse"
]


def _spec(x):
    """``(shape, dtype)`` of an array-like (lists become NumPy arrays)."""
    if not (hasattr(x, "shape") and hasattr(x, "dtype")):
        x = np.asarray(x)
    return tuple(x.shape), x.dtype


def _describe(x):
    shape, dtype = _spec(x)
    return f"shape {shape}, dtype {np.dtype(dtype).name if _is_numpy(dtype) else dtype}"


def _is_numpy(dtype):
    try:
        np.dtype(dtype)
        return True
    except TypeError:
        return False


def _same(a, b):
    """Dimensions equal, or at least one unknown."""
    return not (isinstance(a, int) and isinstance(b, int)) or a == b


def _shapes_match(a, b):
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))


def _broadcastable(a, b):
    for x, y in zip(reversed(a), reversed(b)):
        if isinstance(x, int) and isinstance(y, int) and 1 not in (x, y) and x != y:
            return False
    return True


def aligned_shapes(t, p):
    """Keras's ``squeeze_or_expand_to_same_rank`` on shapes: ``(y_true, y_pred)`` shapes."""
    if len(t) == len(p) + 1 and t[-1] == 1:
        return (t, p + (1,)) if len(p) == 1 else (t[:-1], p)
    if len(p) == len(t) + 1 and p[-1] == 1:
        return (t + (1,), p) if len(t) == 1 else (t, p[:-1])
    return t, p


def check_numeric(name, y_true, y_pred):
    """Both arrays must hold numbers (or booleans)."""
    for label, x in (("y_true", y_true), ("y_pred", y_pred)):
        dtype = _spec(x)[1]
        ok = _is_numpy(dtype) and (jnp.issubdtype(dtype, jnp.number)
                                   or jnp.issubdtype(dtype, jnp.bool_))
        if not ok:
            raise ValueError(f"{name}: {label} must be a numeric array; received "
                             f"{label} with {_describe(x)}.")


def _looks_like_labels(t, p):
    """``t`` is one label per sample for class scores ``p``: ``p[:-1]`` or ``p[:-1] + (1,)``."""
    if not p or not isinstance(p[-1], int) or p[-1] <= 1:
        return False
    return _shapes_match(t, p[:-1]) or _shapes_match(t, p[:-1] + (1,))


def _mismatch(name, y_true, y_pred, expected, hint=""):
    t, p = _spec(y_true)[0], _spec(y_pred)[0]
    batch = ""
    if t and p and isinstance(t[0], int) and isinstance(p[0], int) and t[0] != p[0]:
        batch = f" The batch dimensions differ: {t[0]} targets for {p[0]} predictions."
    return ValueError(f"{name}: expected {expected}; received y_true with {_describe(y_true)} "
                      f"for y_pred with {_describe(y_pred)}.{batch}{hint}")


def check_elementwise(name, y_true, y_pred):
    """``y_true`` broadcasts against ``y_pred`` after Keras's rank alignment."""
    check_numeric(name, y_true, y_pred)
    t, p = aligned_shapes(_spec(y_true)[0], _spec(y_pred)[0])
    if not _broadcastable(t, p):
        raise _mismatch(name, y_true, y_pred,
                        f"y_true of shape {_spec(y_pred)[0]} like y_pred (or broadcastable to "
                        "it; a missing trailing axis of size 1 is fine)")


def check_same_shape(name, y_true, y_pred):
    """``y_true`` has ``y_pred``'s shape after Keras's rank alignment (binary crossentropy)."""
    check_numeric(name, y_true, y_pred)
    t, p = aligned_shapes(_spec(y_true)[0], _spec(y_pred)[0])
    if not _shapes_match(t, p):
        hint = (" y_true looks like integer class labels: did you mean "
                "sparse_categorical_crossentropy?" if _looks_like_labels(t, p) else "")
        raise _mismatch(name, y_true, y_pred,
                        f"y_true of shape {_spec(y_pred)[0]} (y_true and y_pred must have the "
                        "same shape)", hint)


def check_categorical(name, y_true, y_pred):
    """One-hot (or soft) ``y_true`` with ``y_pred``'s shape."""
    check_numeric(name, y_true, y_pred)
    t_raw, p_raw = _spec(y_true)[0], _spec(y_pred)[0]
    t, p = aligned_shapes(t_raw, p_raw)
    if _shapes_match(t, p):
        return
    hint = ""
    if _looks_like_labels(t_raw, p_raw):
        hint = (" y_true looks like integer class labels (one per sample): did you mean "
                "sparse_categorical_crossentropy?")
    raise _mismatch(name, y_true, y_pred,
                    f"one-hot labels y_true of shape {p_raw} (y_true and y_pred must have "
                    "the same shape)", hint)


def check_sparse(name, y_true, y_pred, axis=-1):
    """Integer class labels: ``y_pred``'s shape without the class axis (or with it as 1)."""
    check_numeric(name, y_true, y_pred)
    t, p = _spec(y_true)[0], _spec(y_pred)[0]
    if not p:
        raise ValueError(f"{name}: expected y_pred with a class axis, e.g. shape (batch, "
                         f"classes); received y_pred with {_describe(y_pred)}.")
    class_axis = axis % len(p)
    expected = p[:class_axis] + p[class_axis + 1:]
    with_one = p[:class_axis] + (1,) + p[class_axis + 1:]
    if _shapes_match(t, expected) or _shapes_match(t, with_one):
        return
    hint = ""
    if _shapes_match(t, p) and isinstance(p[class_axis], int) and p[class_axis] > 1:
        hint = (" y_true has the shape of y_pred, as one-hot labels do: did you mean "
                "categorical_crossentropy?")
    raise _mismatch(name, y_true, y_pred,
                    f"integer class labels y_true of shape {expected} or {with_one} "
                    f"(y_pred's shape without its class axis {class_axis})", hint)
