"""Keras's backend helpers on shapes and arguments: ``standardize_shape`` (a shape as a tuple
of non-negative ints and ``None``) and ``any_symbolic_tensors``.

>>> standardize_shape([3, None, 2])
(3, None, 2)
>>> any_symbolic_tensors((1.0, [2.0]))
False
"""

from __future__ import annotations

from jax import export as jax_export

from kgraph.graph.keras_tensor import any_keras_tensor, standard_shape

__all__ = ["any_symbolic_tensors", "standardize_shape"]


def standardize_shape(shape) -> tuple:
    """``shape`` as a tuple of ints (symbolic dimensions become ``None``); a ValueError for
    ``None``, a non-sequence, a str or float dimension, or a negative one
    (``KerasTensor``'s own rule, ``standard_shape``)."""
    if shape is None:
        raise ValueError("Undefined shapes are not supported.")
    if (hasattr(shape, "__iter__") and not isinstance(shape, str)
            and any(jax_export.is_symbolic_dim(d) for d in shape)):
        shape = tuple(None if jax_export.is_symbolic_dim(d) else d for d in shape)
    return standard_shape(shape)


def any_symbolic_tensors(args=None, kwargs=None) -> bool:
    """Whether any argument (nested in lists, tuples, dicts) is a ``KerasTensor``."""
    return any_keras_tensor((args, kwargs))

