"""``keras.src.backend.get_keras_mask`` on symbolic tensors: the mask a layer call gives a
``KerasTensor`` becomes a tensor of the graph (a model can output it), as Keras's masks
are, being computed by ops on symbolic tensors.

>>> import numpy as np
>>> import kgraph as kg
>>> x = kg.Input((3, 1))
>>> model = kg.Model(x, get_keras_mask(kg.layers.Masking()(x)))
>>> model(np.array([[[0.0], [1.0], [0.0]]])).tolist()
[[False, True, False]]
"""

from __future__ import annotations

from kgraph.base.layer import Layer
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.interpreter import masking

__all__ = ["get_keras_mask"]


class _KerasMask(Layer):
    """The mask that reaches this layer with its input, as a tensor."""

    def call(self, inputs, mask=None):
        if mask is None:
            raise ValueError(f'Layer "{self.name}": the tensor it reads the Keras mask of has '
                             "no mask in this call.")
        return mask


def get_keras_mask(x):
    """The Keras mask attached to ``x`` (or None). For a ``KerasTensor`` made by a layer
    call, the mask is itself a tensor of the graph (computed from the same inputs)."""
    mask = masking.get_keras_mask(x)
    if (isinstance(x, KerasTensor) and isinstance(mask, KerasTensor)
            and getattr(x, "_keras_history", None) is not None
            and getattr(mask, "_keras_history", None) is None):
        mask = _KerasMask()(x)
        masking.set_keras_mask(x, mask)
    return mask
