"""Reshaping layers: ``Flatten``, ``Reshape``."""

from __future__ import annotations

import math

from kgraph.input_spec import InputSpec
from kgraph.layer import Layer


class Flatten(Layer):
    """Flatten all axes but the batch axis: (N, a, b) -> (N, a*b).

    >>> import kgraph as kg
    >>> kg.layers.Flatten()(kg.Input(shape=(8, 8))).shape
    (None, 64)
    """

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        if self.data_format == "channels_first" and inputs.ndim > 2:
            inputs = inputs.transpose((0, *range(2, inputs.ndim), 1))
        return inputs.reshape((inputs.shape[0], -1))

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        size = None if any(d is None for d in rest) else math.prod(rest)
        return (input_shape[0], size)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


class Reshape(Layer):
    """Reshape all axes but the batch axis to ``target_shape`` (one entry may be -1).

    >>> import kgraph as kg
    >>> kg.layers.Reshape((4, -1))(kg.Input(shape=(8,))).shape
    (None, 4, 2)
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)
        if sum(d == -1 for d in self.target_shape) > 1:
            raise ValueError(f"Reshape target_shape may contain at most one -1, received "
                             f"{self.target_shape}.")

    def call(self, inputs):
        return inputs.reshape((inputs.shape[0], *self.target_shape))

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        target = list(self.target_shape)
        if any(d is None for d in rest):
            return (input_shape[0], *[None if d == -1 else d for d in target])
        size, known = math.prod(rest), math.prod(d for d in target if d != -1)
        if -1 in target:
            if known == 0 or size % known:
                raise ValueError(self._mismatch(input_shape))
            target[target.index(-1)] = size // known
        elif size != known:
            raise ValueError(self._mismatch(input_shape))
        return (input_shape[0], *target)

    def _mismatch(self, input_shape):
        return (f'Layer "{self.name}" (Reshape) cannot reshape input of shape {input_shape} to '
                f"target_shape {self.target_shape}: the total size must be unchanged.")

    def build(self, input_shape):
        self.compute_output_shape(input_shape)
        self.built = True

    def get_config(self):
        return {**super().get_config(), "target_shape": self.target_shape}
