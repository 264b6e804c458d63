"""Weight regularizers by Keras name: ``l1``, ``l2``, ``l1_l2`` (penalties added to the loss).

>>> import jax.numpy as jnp
>>> round(float(get("l2")(jnp.ones((2, 2)))), 6)  # Keras's default l2 factor is 0.01
0.04
"""

from __future__ import annotations

import math

import jax.numpy as jnp

from kgraph.base.array_operators import plain_values
from kgraph.interpreter import context
from kgraph.serializable import Serializable, from_config_or_name, lookup, to_config

__all__ = [
    "L1", "L1L2", "L2", "OrthogonalRegularizer", "Regularizer", "activity_penalty",
    "deserialize", "get", "l1", "l1_l2", "l2", "orthogonal_regularizer", "serialize",
    "validate_float_arg"
]


def validate_float_arg(value, name, owner=None):
    """``value`` as a float if it is a finite non-negative number (a penalty factor), else a
    ValueError naming the argument (and ``owner``, the regularizer), as Keras's.

    >>> validate_float_arg(1, "l2")
    1.0
    >>> validate_float_arg(-0.5, "l1", owner="L1")
    Traceback (most recent call last):
    ...
    ValueError: Invalid value for argument l1 of L1: expected a non-negative float. Received: l1=-0.5
    """
    if (not isinstance(value, (float, int)) or math.isinf(value) or math.isnan(value)
            or value < 0):
        where = f" of {owner}" if owner else ""
        raise ValueError(f"Invalid value for argument {name}{where}: expected a non-negative "
                         f"float. Received: {name}={value!r}")
    return float(value)


class Regularizer(Serializable):
    """``regularizer(weight) -> scalar penalty``; serializable with ``get_config``. The base
    class itself is Keras's no-op regularizer (penalty 0)."""

    def __call__(self, x):
        return 0.0


class L1L2(Regularizer):
    def __init__(self, l1=0.0, l2=0.0):
        owner = type(self).__name__
        self.l1 = validate_float_arg(0.0 if l1 is None else l1, "l1", owner)
        self.l2 = validate_float_arg(0.0 if l2 is None else l2, "l2", owner)

    def __call__(self, x):
        x = plain_values(x)  # a Variable: its value
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
        super().__init__(l1=0.01 if l1 is None else l1)

    def get_config(self):
        return {"l1": self.l1}


class L2(L1L2):
    def __init__(self, l2=0.01):
        super().__init__(l2=0.01 if l2 is None else l2)

    def get_config(self):
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Pushes the rows (``mode="rows"``) or columns (``"columns"``) of a 2-D weight to be
    orthogonal: ``factor`` times the mean absolute cosine between distinct pairs.

    >>> round(float(OrthogonalRegularizer(1.0)(jnp.array([[1.0, 0.0], [1.0, 1.0]]))), 4)
    0.7071
    """

    def __init__(self, factor=0.01, mode="rows"):
        self.factor = validate_float_arg(factor, "factor", "OrthogonalRegularizer")
        if mode not in ("rows", "columns"):
            raise ValueError('Invalid value for argument `mode`. Expected one of {"rows", '
                             f'"columns"}}. Received: mode={mode}')
        self.mode = mode

    def __call__(self, x):
        x = plain_values(x)  # a Variable: its value
        if x.ndim != 2:
            raise ValueError("Inputs to OrthogonalRegularizer must have rank 2. Received: "
                             f"inputs.shape={tuple(x.shape)}")
        x = x if self.mode == "rows" else x.T
        norms = jnp.sqrt(jnp.maximum(jnp.sum(jnp.square(x), axis=1, keepdims=True), 1e-12))
        x = x / norms
        size = x.shape[0]
        product = (x @ x.T) * (1.0 - jnp.eye(size, dtype=x.dtype))
        return self.factor * 0.5 * jnp.sum(jnp.abs(product)) / (size * (size - 1.0) / 2.0)

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


# Keras's lower-case names are the classes themselves: ``l2(1e-4)`` is ``L2(1e-4)``.
l1, l2, l1_l2, orthogonal_regularizer = L1, L2, L1L2, OrthogonalRegularizer

_CLASSES = {"L1": L1, "L2": L2, "L1L2": L1L2, "OrthogonalRegularizer": OrthogonalRegularizer,
            "Regularizer": Regularizer}
# Keras's names: each class's and its snake-case name (``"l1l2"`` is ``L1L2()``, no penalty);
# ``"l1_l2"`` is the documented 0.01/0.01 pair.
_BY_NAME = {**_CLASSES, "l1": L1, "l2": L2, "l1l2": L1L2, "l1_l2": lambda: L1L2(0.01, 0.01),
            "orthogonal_regularizer": OrthogonalRegularizer, "regularizer": Regularizer}


def get(identifier):
    """None, a Keras name, a ``{"class_name", "config"}`` dict, or a callable."""
    return lookup(identifier, "regularizer", _BY_NAME, _CLASSES, "fn(weight) -> penalty")


def deserialize(config, custom_objects=None):
    """A regularizer from ``serialize``'s output (or a name)."""
    return from_config_or_name(config, custom_objects, get)


def serialize(regularizer):
    """The config-file form of ``regularizer`` (None stays None)."""
    return to_config(regularizer, "regularizer", Regularizer, "regularizers")


def activity_penalty(regularizer, x):
    """``regularizer(x)`` divided by the batch size (Keras 3's activity penalties).

    Rows the call context marks as padding (``kgraph.interpreter.context.sample_mask_for``) are zeroed
    first and the division is by the number of real rows, so a padded batch has the
    penalty of its real rows (exactly, for penalties that sum over entries, as ``L1L2``).

    >>> float(activity_penalty(L1(1.0), jnp.ones((4, 2))))  # 8 / 4 rows
    2.0
    """
    if not getattr(x, "ndim", 0):
        return regularizer(x)
    rows = context.sample_mask_for(x)
    if rows is None:
        batch = x.shape[0]
        penalty = regularizer(x)
        return penalty / batch if batch else jnp.zeros_like(penalty)
    keep = context.row_mask(rows, x)
    penalty = regularizer(jnp.where(keep, x, jnp.zeros((), x.dtype)))
    return penalty / jnp.maximum(jnp.sum(rows > 0), 1).astype(penalty.dtype)
