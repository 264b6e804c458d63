"""``StateArray``: one array of an optimizer's or a metric's state, as the entries of
Keras's ``optimizer.variables`` / ``metric.variables`` (``.value``, ``.assign``,
``.numpy()``), so Keras code such as ``[v.value for v in optimizer.variables]`` runs.

>>> import jax.numpy as jnp
>>> entry = StateArray(jnp.zeros(2), "m")
>>> entry.assign([1, 2]); entry.numpy().tolist(), entry.shape
([1.0, 2.0], (2,))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

__all__ = ["StateArray"]


class StateArray:
    """A named holder of one state array."""

    def __init__(self, value, name="state"):
        self.value, self.name = value, name

    @property
    def shape(self):
        return tuple(jnp.shape(self.value))

    @property
    def dtype(self):
        return jnp.asarray(self.value).dtype

    def assign(self, value):
        self.value = jnp.asarray(value, self.dtype)

    def numpy(self):
        return np.asarray(self.value)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.value, dtype)

    def __repr__(self):
        return f"<state array {self.name} shape={self.shape}>"
