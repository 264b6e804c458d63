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
                 input_tensor=None, batch_shape=None):
        super().__init__(name=name, dtype=dtype)
        if input_tensor is None and batch_shape is not None:  # Keras: the full shape
            input_tensor = KerasTensor(tuple(batch_shape), dtype=dtype, name=self.name)
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

    def _set_name(self, name):
        self.name = name
        self._inbound_nodes[0].outputs[0].name = name

    def get_config(self):
        """Keras 3's InputLayer config (``sparse``/``ragged``/``optional`` are always False)."""
        return {"batch_shape": list(self.batch_shape), "dtype": self.dtype.name,
                "sparse": False, "ragged": False, "name": self.name, "optional": False}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for flag in ("sparse", "ragged", "optional"):
            if config.pop(flag, False):
                raise ValueError(f"kgraph InputLayer does not support {flag}=True "
                                 f"(InputLayer {config.get('name')!r}).")
        dtype = config.pop("dtype", None) or "float32"
        if isinstance(dtype, dict):  # a serialized Keras DTypePolicy
            dtype = (dtype.get("config") or {}).get("name", "float32")
        if "batch_input_shape" in config:  # Keras 2 name
            config["batch_shape"] = config.pop("batch_input_shape")
        return cls(dtype=dtype, **config)


def Input(shape=None, batch_size=None, dtype="float32", name=None,  # noqa: N802 (Keras name)
          batch_shape=None):
    """A symbolic input tensor of shape ``(batch_size, *shape)``; batch_size None = any.

    ``batch_shape`` gives the full shape instead (as Keras), e.g. ``(None, 784)``.
    """
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, name=name,
                       batch_shape=batch_shape)
    return layer._inbound_nodes[0].outputs[0]
