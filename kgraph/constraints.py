"""Weight constraints by Keras name: ``max_norm``, ``non_neg``, ``unit_norm``.

A constraint maps a weight to its projected value; the training step applies it after
every optimizer update.

>>> import jax.numpy as jnp
>>> get("non_neg")(jnp.array([-1.0, 2.0])).tolist() == [0.0, 2.0]
True
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph.base.array_operators import plain_values
from kgraph.config import epsilon
from kgraph.serializable import Serializable, from_config_or_name, lookup, to_config

__all__ = [
    "Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "deserialize", "get",
    "max_norm", "min_max_norm", "non_neg", "serialize", "unit_norm"
]


class Constraint(Serializable):
    """``constraint(weight) -> projected weight``; serializable with ``get_config``. The base
    class itself is Keras's identity constraint (returns the weight unchanged)."""

    def __call__(self, w):
        return w


class MaxNorm(Constraint):
    """Scale so that the norm along ``axis`` is at most ``max_value``."""

    def __init__(self, max_value=2.0, axis=0):
        self.max_value, self.axis = float(max_value), axis

    def __call__(self, w):
        w = plain_values(w)  # a Variable: its value
        norms = jnp.sqrt(jnp.sum(jnp.square(w), axis=self.axis, keepdims=True))
        desired = jnp.clip(norms, 0, self.max_value)
        return w * (desired / (epsilon() + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    def __call__(self, w):
        w = plain_values(w)  # a Variable: its value
        return w * (w >= 0).astype(w.dtype)


class UnitNorm(Constraint):
    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = plain_values(w)  # a Variable: its value
        norms = jnp.sqrt(jnp.sum(jnp.square(w), axis=self.axis, keepdims=True))
        return w / (epsilon() + norms)

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Scale so that the norm along ``axis`` lies in ``[min_value, max_value]``; ``rate``
    below 1 moves only part of the way there."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value = float(min_value), float(max_value)
        self.rate, self.axis = float(rate), axis

    def __call__(self, w):
        w = plain_values(w)  # a Variable: its value
        norms = jnp.sqrt(jnp.sum(jnp.square(w), axis=self.axis, keepdims=True))
        desired = (self.rate * jnp.clip(norms, self.min_value, self.max_value)
                   + (1 - self.rate) * norms)
        return w * (desired / (epsilon() + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


# Keras's lower-case names are the classes themselves.
max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm

_CLASSES = {"MaxNorm": MaxNorm, "MinMaxNorm": MinMaxNorm, "NonNeg": NonNeg,
            "UnitNorm": UnitNorm, "Constraint": Constraint}
# Keras's names: each class's and its snake-case name.
_BY_NAME = {**_CLASSES, "max_norm": MaxNorm, "min_max_norm": MinMaxNorm, "non_neg": NonNeg,
            "unit_norm": UnitNorm, "constraint": Constraint}


def get(identifier):
    """None, a Keras name, a ``{"class_name", "config"}`` dict, or a callable."""
    return lookup(identifier, "constraint", _BY_NAME, _CLASSES, "fn(weight) -> weight")


def deserialize(config, custom_objects=None):
    """A constraint from ``serialize``'s output (or a name)."""
    return from_config_or_name(config, custom_objects, get)


def serialize(constraint):
    """The config-file form of ``constraint`` (None stays None)."""
    return to_config(constraint, "constraint", Constraint, "constraints")
