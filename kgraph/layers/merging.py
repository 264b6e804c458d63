"""Merge layers: ``Add``, ``Concatenate``."""

from __future__ import annotations

import jax.numpy as jnp

from kgraph import shape_inference
from kgraph.layer import Layer


def _fmt(shapes):
    return ", ".join(str(tuple(s)) for s in shapes)


class _Merge(Layer):
    """Base of layers that combine a list of tensors."""

    def _check_list(self, input_shape):
        if not isinstance(input_shape, list) or len(input_shape) < 1:
            raise ValueError(f'Layer "{self.name}" ({type(self).__name__}) should be called on a '
                             f"list of tensors, received input shape {input_shape}.")


class Add(_Merge):
    """Element-wise sum of a list of tensors (broadcasting as NumPy).

    >>> import kgraph as kg
    >>> x = kg.Input(shape=(4,))
    >>> kg.layers.Add()([x, x]).shape
    (None, 4)
    """

    def build(self, input_shape):
        self._check_list(input_shape)
        self.compute_output_shape(input_shape)
        self.built = True

    def call(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = out + x
        return out

    def compute_output_shape(self, input_shape):
        try:
            return shape_inference.broadcast_shapes(input_shape)
        except ValueError:
            raise ValueError(f'Layer "{self.name}" (Add) received inputs with incompatible '
                             f"shapes: {_fmt(input_shape)}.") from None


class Concatenate(_Merge):
    """Concatenate a list of tensors along ``axis`` (default last).

    >>> import kgraph as kg
    >>> kg.layers.Concatenate()([kg.Input(shape=(2,)), kg.Input(shape=(3,))]).shape
    (None, 5)
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)

    def build(self, input_shape):
        self._check_list(input_shape)
        self.compute_output_shape(input_shape)
        self.built = True

    def call(self, inputs):
        return jnp.concatenate(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape):
        ranks = {len(s) for s in input_shape}
        if len(ranks) != 1:
            raise ValueError(f'Layer "{self.name}" (Concatenate) needs inputs of equal rank, '
                             f"received shapes {_fmt(input_shape)}.")
        ndim = ranks.pop()
        axis = self.axis % ndim
        result = []
        for i in range(ndim):
            dims = [s[i] for s in input_shape]
            if i == axis:
                result.append(None if None in dims else sum(dims))
                continue
            known = {d for d in dims if d is not None}
            if len(known) > 1:
                raise ValueError(f'Layer "{self.name}" (Concatenate) needs inputs with matching '
                                 f"shapes except on the concat axis {self.axis}, received "
                                 f"shapes {_fmt(input_shape)}.")
            result.append(known.pop() if known else None)
        return tuple(result)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}
