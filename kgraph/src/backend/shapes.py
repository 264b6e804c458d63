"""Keras's backend helpers on shapes and arguments: ``standardize_shape`` (a shape as a tuple
of non-negative ints and ``None``) and ``any_symbolic_tensors``.

>>> standardize_shape([3, None, 2])
(3, None, 2)
>>> any_symbolic_tensors((1.0, [2.0]))
False
"""

from __future__ import annotations

from jax import export as jax_export

from kgraph.graph.keras_tensor import any_keras_tensor

__all__ = ["any_symbolic_tensors", "standardize_shape"]


def standardize_shape(shape) -> tuple:
    """``shape`` as a tuple of ints (symbolic dimensions become ``None``); a ValueError for
    ``None``, a non-sequence, a str or float dimension, or a negative one."""
    if shape is None:
        raise ValueError("Undefined shapes are not supported.")
    if not hasattr(shape, "__iter__"):
        raise ValueError(f"Cannot convert '{shape}' to a shape.")
    dims = []
    for d in shape:
        if d is None or jax_export.is_symbolic_dim(d):
            dims.append(None)
            continue
        if isinstance(d, (str, float)):
            raise ValueError(f"Cannot convert '{shape}' to a shape. Found invalid dimension "
                             f"'{d}' of type '{type(d)}'. ")
        try:
            d = int(d)
        except (TypeError, ValueError) as error:
            raise ValueError(f"Cannot convert '{shape}' to a shape. Found invalid dimension "
                             f"'{d}' of type '{type(d)}'. ") from error
        if d < 0:
            raise ValueError(f"Cannot convert '{shape}' to a shape. Negative dimensions are "
                             "not allowed.")
        dims.append(d)
    return tuple(dims)


def any_symbolic_tensors(args=None, kwargs=None) -> bool:
    """Whether any argument (nested in lists, tuples, dicts) is a ``KerasTensor``."""
    return any_keras_tensor((args, kwargs))

