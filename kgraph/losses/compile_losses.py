"""The losses ``compile`` knows by name beyond ``keras.losses``: Keras's "crossentropy" (or
"ce"), which Keras's ``compile`` resolves from the shapes of the labels and predictions to
binary, sparse categorical or categorical crossentropy.

>>> import jax.numpy as jnp
>>> loss = compile_loss("crossentropy")
>>> labels, probabilities = jnp.array([0, 1]), jnp.array([[0.9, 0.1], [0.2, 0.8]])
>>> loss.name, round(float(loss(labels, probabilities)), 4)
('crossentropy', 0.1643)
>>> crossentropy_kind((2,), (2, 2)), crossentropy_kind((2, 1), (2, 1))
('sparse', 'binary')
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph.losses import functions as fns
from kgraph.losses.losses import LossFunctionWrapper, as_loss
from kgraph.losses.weighting import squeeze_or_expand_to_same_rank

__all__ = ["ShapeResolvedCrossentropy", "compile_loss", "crossentropy_kind"]

NAMES = ("crossentropy", "ce")


def crossentropy_kind(y_true_shape, y_pred_shape) -> str:
    """Keras's choice by shapes: "binary" (predictions' last axis of 1), "sparse" (labels of
    lower rank, or a last axis of 1 against several scores) or "categorical"."""
    if y_pred_shape and y_pred_shape[-1] == 1:
        return "binary"
    sparse = len(y_true_shape) < len(y_pred_shape) or (
        bool(y_true_shape) and y_true_shape[-1] == 1 and y_pred_shape[-1] > 1)
    return "sparse" if sparse else "categorical"


_BY_KIND = {"binary": fns.binary_crossentropy, "sparse": fns.sparse_categorical_crossentropy,
            "categorical": fns.categorical_crossentropy}


class ShapeResolvedCrossentropy(LossFunctionWrapper):
    """Binary, sparse categorical or categorical crossentropy, chosen from the static
    shapes of each call (free under ``jit``), as Keras's ``compile(loss="crossentropy")``."""

    def __init__(self, name="crossentropy", reduction="sum_over_batch_size", dtype=None):
        super().__init__(_BY_KIND["categorical"], reduction=reduction, name=name, dtype=dtype)

    def call(self, y_true, y_pred):
        # the kind by the shapes given; the ranks then matched, as the wrapper's call does
        kind = crossentropy_kind(tuple(jnp.shape(y_true)), tuple(jnp.shape(y_pred)))
        y_true, y_pred = squeeze_or_expand_to_same_rank(jnp.asarray(y_true),
                                                        jnp.asarray(y_pred))
        return _BY_KIND[kind](y_true, y_pred)


def compile_loss(identifier):
    """What ``compile`` trains with for loss ``identifier``: "crossentropy" / "ce" as
    Keras's ``compile`` resolves them, anything else as ``as_loss``."""
    if isinstance(identifier, str) and identifier.lower() in NAMES:
        return ShapeResolvedCrossentropy(name=identifier)
    return as_loss(identifier)
