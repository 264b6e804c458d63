"""``Input`` and ``InputLayer``: the graph's entry points.

>>> x = Input(shape=(784,), name="pixels")
>>> x.shape, x.name
((None, 784), 'pixels')
"""

from __future__ import annotations

from kgraph.keras_tensor import KerasTensor
from kgraph.layer import Layer
from kgraph.node import Node


class InputLayer(Layer):
    """The layer behind an ``Input`` tensor: one node, no inputs, no weights."""

    is_input_layer = True
    autocast = False

    def __init__(self, shape=None, batch_size=None, dtype="float32", name=None,
                 input_tensor=None):
        super().__init__(name=name, dtype=dtype)
        if input_tensor is None:
            if shape is None:
                raise ValueError("Input needs a shape, e.g. Input(shape=(784,)).")
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            input_tensor = KerasTensor((batch_size, *shape), dtype=dtype, name=self.name)
        self.batch_shape = input_tensor.shape
        self.built = True
        Node(self, (), {}, input_tensor)

    def call(self, inputs):
        return inputs

    def get_config(self):
        return {"name": self.name, "batch_shape": self.batch_shape, "dtype": self.dtype.name}


def Input(shape=None, batch_size=None, dtype="float32", name=None):  # noqa: N802 (Keras name)
    """A symbolic input tensor of shape ``(batch_size, *shape)``; batch_size None = any."""
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, name=name)
    return layer._inbound_nodes[0].outputs[0]
