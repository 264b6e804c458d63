"""Keras's functional forms of the merging layers: ``add([a, b])`` is ``Add()([a, b])``.

>>> import kgraph as kg
>>> a, b = kg.Input(shape=(3,)), kg.Input(shape=(3,))
>>> concatenate([a, b]).shape, add([a, b]).shape
((None, 6), (None, 3))
"""

from __future__ import annotations

from kgraph.layers import merging

__all__ = [
    "add", "average", "concatenate", "dot", "maximum", "minimum", "multiply", "subtract"
]


def add(inputs, **kwargs):
    """``Add(**kwargs)(inputs)``: the elementwise sum."""
    return merging.Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """``Subtract(**kwargs)(inputs)``: ``inputs[0] - inputs[1]``."""
    return merging.Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """``Multiply(**kwargs)(inputs)``: the elementwise product."""
    return merging.Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """``Average(**kwargs)(inputs)``: the elementwise mean."""
    return merging.Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    """``Maximum(**kwargs)(inputs)``: the elementwise maximum."""
    return merging.Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    """``Minimum(**kwargs)(inputs)``: the elementwise minimum."""
    return merging.Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis=axis, **kwargs)(inputs)``."""
    return merging.Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes=-1, normalize=False, **kwargs):
    """``Dot(axes=axes, normalize=normalize, **kwargs)(inputs)``."""
    return merging.Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
