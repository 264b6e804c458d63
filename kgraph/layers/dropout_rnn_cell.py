"""Keras's ``DropoutRNNCell``: a mixin for a custom RNN cell that drops out its inputs and
carried state with one mask per call of the recurrent layer, reused at every step.

A cell mixing it in has ``dropout``, ``recurrent_dropout`` and ``seed_generator``; its
``call`` asks ``get_dropout_mask(inputs)`` / ``get_recurrent_dropout_mask(state)``. The
recurrent layer draws both masks before its time loop (so the loop reuses them) and forgets
them after, as Keras's ``RNN`` does.

>>> import numpy as np, kgraph as kg
>>> class Cell(kg.layers.Layer, DropoutRNNCell):
...     def __init__(self, **kwargs):
...         super().__init__(**kwargs)
...         self.state_size, self.dropout, self.recurrent_dropout = 2, 0.5, 0.0
...         self.seed_generator = kg.random.SeedGenerator(1)
...     def call(self, inputs, states, training=False):
...         if training:
...             inputs = inputs * self.get_dropout_mask(inputs)
...         return inputs, [inputs]
>>> out = kg.layers.RNN(Cell())(np.ones((1, 3, 2), "float32"), training=True)
>>> sorted(set(np.asarray(out).ravel().tolist())) in ([0.0], [2.0], [0.0, 2.0])
True
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph import random

__all__ = ["DropoutRNNCell", "drawn_dropout_masks", "forget_dropout_masks"]


class DropoutRNNCell:
    """Dropout masks for an RNN cell, made once per call of its recurrent layer (a mixin:
    the cell sets ``dropout``, ``recurrent_dropout`` and ``seed_generator``; with
    ``dropout_mask_count`` set, each mask is a list of that many)."""

    def _create_dropout_mask(self, step_input, dropout_rate):
        ones = jnp.ones_like(jnp.asarray(step_input))
        count = getattr(self, "dropout_mask_count", None)
        masks = [random.dropout(ones, rate=dropout_rate, seed=self.seed_generator)
                 for _ in range(1 if count is None else count)]
        return masks[0] if count is None else masks

    def get_dropout_mask(self, step_input):
        """The mask of the inputs (None without ``dropout``), made on first use."""
        if getattr(self, "_dropout_mask", None) is None and self.dropout > 0:
            self._dropout_mask = self._create_dropout_mask(step_input, self.dropout)
        return getattr(self, "_dropout_mask", None)

    def get_recurrent_dropout_mask(self, step_input):
        """The mask of the carried state (None without ``recurrent_dropout``)."""
        if (getattr(self, "_recurrent_dropout_mask", None) is None
                and self.recurrent_dropout > 0):
            self._recurrent_dropout_mask = self._create_dropout_mask(
                step_input, self.recurrent_dropout)
        return getattr(self, "_recurrent_dropout_mask", None)

    def reset_dropout_mask(self):
        """Forget the inputs' mask (the next call of the recurrent layer draws another)."""
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self):
        """Forget the carried state's mask."""
        self._recurrent_dropout_mask = None


def _cells(cell):
    return [cell, *[c for sub in getattr(cell, "cells", ()) for c in _cells(sub)]]


def drawn_dropout_masks(cell, first_inputs, states):
    """Draw the masks of ``cell`` before the time loop, from the first step's inputs and
    the initial ``states``."""
    if isinstance(cell, DropoutRNNCell):
        cell.get_dropout_mask(first_inputs)
        cell.get_recurrent_dropout_mask(states[0])


def forget_dropout_masks(cell) -> None:
    """Forget the masks of ``cell`` and of the cells it stacks (after the time loop)."""
    for each in _cells(cell):
        if isinstance(each, DropoutRNNCell):
            each.reset_dropout_mask()
            each.reset_recurrent_dropout_mask()
