"""Keras's weight protocol of a layer (a base of ``kgraph.base.layer.Layer``):
``count_params``, ``get_weights`` / ``set_weights`` and the saving order and hooks that
``.keras`` / ``.weights.h5`` files use (``save_own_variables`` / ``load_own_variables``).

>>> import numpy as np
>>> import kgraph as kg
>>> layer = kg.layers.Dense(2, name="protocol_dense")
>>> _ = layer(np.ones((1, 3), "float32"))
>>> store = {}
>>> layer.save_own_variables(store)
>>> layer.count_params(), [store[k].shape for k in sorted(store)]
(8, [(3, 2), (2,)])
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["WeightProtocol", "made_trainable_first"]


def made_trainable_first(variables) -> list:
    """``variables`` as Keras lists a layer's own: those made trainable, then the others."""
    return ([v for v in variables if v._made_trainable]
            + [v for v in variables if not v._made_trainable])


class WeightProtocol:
    """Keras's weight methods, on a layer's ``weights`` and ``_own_variables``."""

    def count_params(self) -> int:
        if not self.built:
            raise ValueError(f'You tried to call count_params on layer "{self.name}", but the '
                             "layer isn't built. Call it on an input first (or build it).")
        return int(sum(math.prod(v.shape) for v in self.weights))

    def get_weights(self) -> list[np.ndarray]:
        return [v.numpy() for v in self.weights]

    def set_weights(self, values) -> None:
        weights = self.weights
        if len(values) != len(weights):
            raise ValueError(f'Layer "{self.name}" has {len(weights)} weights, '
                             f"received {len(values)} values.")
        for v, value in zip(weights, values):
            v.assign(value)

    def _keras_ordered_variables(self) -> list:
        """Own weights in Keras's saving order: those made trainable first, then the rest
        (by how they were made: a weight frozen later keeps its place)."""
        return made_trainable_first(self._own_variables)

    def save_own_variables(self, store) -> None:
        """Keras's saving protocol: put this layer's own weights (not its sub-layers') in
        ``store`` as ``"0"``, ``"1"``, ... in Keras's order."""
        for i, variable in enumerate(self._keras_ordered_variables()):
            store[str(i)] = variable.numpy()

    def load_own_variables(self, store) -> None:
        """Keras's loading protocol: set this layer's own weights from ``store``
        (``save_own_variables``'s keys); override to restore more (a layer's statistics)."""
        variables = self._keras_ordered_variables()
        if len(store) != len(variables):
            raise ValueError(f'Layer "{self.name}" has {len(variables)} weights of its own, '
                             f"the file holds {len(store)}.")
        for i, variable in enumerate(variables):
            variable.assign(store[str(i)])
