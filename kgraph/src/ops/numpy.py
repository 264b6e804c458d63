"""``keras.src.ops.numpy``: kgraph's NumPy-like ops, their Keras op classes (``Sum``,
``ExpandDims``, ...) and Keras's shape helpers ``broadcast_shapes`` and ``shape_equal``.

>>> Sum(axis=0).get_config()["axis"]
0
>>> broadcast_shapes((None, 3), (5, 1)), broadcast_shapes((None,), (1,))
([5, 3], [None])
>>> shape_equal((2, None), (2, 7))
True
"""

from kgraph.base import shape_inference
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.ops import numpy as _ops
from kgraph.ops.numpy import *  # noqa: F401,F403 - the module's functions
from kgraph.ops.operation_classes import operation_classes
from kgraph.ops.registry import Operation

_CLASSES = operation_classes(_ops.__all__)
globals().update(_CLASSES)


class Ndim(Operation):
    """Keras's op class of ``ndim``: the number of axes of its input (a scalar)."""

    def call(self, x):
        return _ops.ndim(x)

    def compute_output_spec(self, x):
        return KerasTensor((), "int32")


class Size(Operation):
    """Keras's op class of ``size``: the number of elements of its input (a scalar)."""

    def call(self, x):
        return _ops.size(x)

    def compute_output_spec(self, x):
        return KerasTensor((), "int32")


def broadcast_shapes(shape1, shape2) -> list:
    """The shape two shapes broadcast to, as a list; an unknown dimension (None) takes the
    other's size unless that is 1. ValueError (Keras's) when they cannot broadcast."""
    try:
        return list(shape_inference.broadcast_shapes([tuple(shape1), tuple(shape2)]))
    except ValueError as error:
        raise ValueError(f"Cannot broadcast shape: {error}. Input shapes are: "
                         f"{list(shape1)} and {list(shape2)}.") from None


def shape_equal(shape1, shape2, axis=None, allow_none=True) -> bool:
    """Whether two shapes are equal, ignoring the axes ``axis``; with ``allow_none`` an
    unknown dimension matches any."""
    if len(shape1) != len(shape2):
        return False
    shape1, shape2 = list(shape1), list(shape2)
    for ax in [axis] if isinstance(axis, int) else (axis or ()):
        shape1[ax] = shape2[ax] = -1
    if allow_none:
        shape1 = [b if a is None else a for a, b in zip(shape1, shape2)]
        shape2 = [a if b is None else b for a, b in zip(shape1, shape2)]
    return shape1 == shape2


__all__ = [*_ops.__all__, *_CLASSES, "Ndim", "Size", "broadcast_shapes", "shape_equal"]
