"""Weight regularizers by Keras name: ``l1``, ``l2``, ``l1_l2`` (penalties added to the loss).

>>> import jax.numpy as jnp
>>> float(get("l2")(jnp.ones((2, 2))))  # Keras's default l2 factor is 0.01
0.04
"""

from __future__ import annotations

import jax.numpy as jnp


class Regularizer:
    """``regularizer(weight) -> scalar penalty``; serializable with ``get_config``."""

    def __call__(self, x):
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class L1L2(Regularizer):
    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        penalty = jnp.zeros((), jnp.float32)
        if self.l1:
            penalty = penalty + self.l1 * jnp.sum(jnp.abs(x))
        if self.l2:
            penalty = penalty + self.l2 * jnp.sum(jnp.square(x))
        return penalty

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    def __init__(self, l1=0.01):
        super().__init__(l1=l1)

    def get_config(self):
        return {"l1": self.l1}


class L2(L1L2):
    def __init__(self, l2=0.01):
        super().__init__(l2=l2)

    def get_config(self):
        return {"l2": self.l2}


_BY_NAME = {"l1": L1, "l2": L2, "l1_l2": lambda: L1L2(0.01, 0.01)}
_CLASSES = {"L1": L1, "L2": L2, "L1L2": L1L2}


def get(identifier):
    """None, a Keras name, a ``{"class_name", "config"}`` dict, or a callable."""
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]()
    if isinstance(identifier, dict) and identifier.get("class_name") in _CLASSES:
        return _CLASSES[identifier["class_name"]].from_config(identifier.get("config", {}))
    raise ValueError(f"Unknown regularizer {identifier!r}. Expected one of {sorted(_BY_NAME)}, "
                     "a config dict, or a callable fn(weight) -> penalty.")


def serialize(regularizer):
    """The config-file form of ``regularizer`` (None stays None)."""
    if regularizer is None:
        return None
    if isinstance(regularizer, Regularizer):
        return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}
    raise ValueError(f"Cannot serialize regularizer {regularizer!r}: use a kgraph.regularizers "
                     "object or name.")
