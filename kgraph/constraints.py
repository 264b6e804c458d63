"""Weight constraints by Keras name: ``max_norm``, ``non_neg``, ``unit_norm``.

A constraint maps a weight to its projected value; the training step applies it after
every optimizer update.

>>> import jax.numpy as jnp
>>> get("non_neg")(jnp.array([-1.0, 2.0])).tolist() == [0.0, 2.0]
True
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph.config import epsilon
from kgraph.serializable import Serializable, lookup, to_config



class Constraint(Serializable):
    """``constraint(weight) -> projected weight``; serializable with ``get_config``."""

    def __call__(self, w):
        raise NotImplementedError


class MaxNorm(Constraint):
    """Scale so that the norm along ``axis`` is at most ``max_value``."""

    def __init__(self, max_value=2.0, axis=0):
        self.max_value, self.axis = float(max_value), axis

    def __call__(self, w):
        norms = jnp.sqrt(jnp.sum(jnp.square(w), axis=self.axis, keepdims=True))
        desired = jnp.clip(norms, 0, self.max_value)
        return w * (desired / (epsilon() + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    def __call__(self, w):
        return w * (w >= 0).astype(w.dtype)


class UnitNorm(Constraint):
    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        norms = jnp.sqrt(jnp.sum(jnp.square(w), axis=self.axis, keepdims=True))
        return w / (epsilon() + norms)

    def get_config(self):
        return {"axis": self.axis}


_BY_NAME = {"max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm}
_CLASSES = {"MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm}


def get(identifier):
    """None, a Keras name, a ``{"class_name", "config"}`` dict, or a callable."""
    return lookup(identifier, "constraint", _BY_NAME, _CLASSES, "fn(weight) -> weight")


def serialize(constraint):
    """The config-file form of ``constraint`` (None stays None)."""
    return to_config(constraint, "constraint", Constraint, "constraints")
