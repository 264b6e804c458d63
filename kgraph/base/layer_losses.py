"""A layer's losses, as Keras 3 has them (a base of ``kgraph.base.layer.Layer``):
``add_loss`` inside ``call``, activity penalties, and ``losses``: the values the last eager
call added (the layer's and its sub-layers'), then the penalties of the regularizers of its
trainable weights, as Keras lists them.

>>> import numpy as np, kgraph as kg
>>> dense = kg.layers.Dense(2, kernel_regularizer="l2", kernel_initializer="ones")
>>> dense.build((None, 3))
>>> [round(float(loss), 4) for loss in dense.losses]  # 0.01 * sum(1.0 ** 2) over 6 entries
[0.06]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph import regularizers
from kgraph.graph.keras_tensor import any_keras_tensor
from kgraph.interpreter import context

__all__ = ["LayerLosses"]



class LayerLosses:
    """``add_loss``, ``losses`` and the activity penalty of a layer's outputs."""

    @property
    def losses(self) -> list:
        """The values ``add_loss`` added during the last eager call (this layer's and its
        sub-layers'), then the penalties of the trainable weights' regularizers, computed
        on their current values (Keras's list). Within a training step's ``compute_loss``:
        the losses of that step's forward pass (``_losses_override``, as Keras's)."""
        override = self.__dict__.get("_losses_override")
        if override is not None:
            return list(override)
        penalties = [jnp.asarray(v.regularizer(v.value), jnp.float32)
                     for v in self.trainable_weights if v.regularizer is not None]
        return list(self.__dict__.get("_call_losses", ())) + penalties

    @losses.setter
    def losses(self, values):
        self.__dict__["_call_losses"] = list(values)

    def add_loss(self, value):
        """Add to the model's loss (e.g. an activity penalty); call it in ``call``.

        The value is summed, as Keras does. Pure runs collect it (``program.apply(...,
        return_losses=True)``, the Trainer); after an eager call it is in ``layer.losses``.
        A per-sample value (leading batch axis) has its padding rows zeroed when the call
        context has a ``sample_mask`` (see ``kgraph.interpreter.context``); one value for
        the whole batch cannot leave padding rows out, so training runs such a model's
        partial batches unpadded.
        """
        self._record_loss(value, batch_wide=jnp.ndim(value) == 0)

    def _record_loss(self, value, batch_wide):
        if any_keras_tensor(value):
            # a subclassed model's call traced on symbolic inputs: its compiled program
            # runs that call itself, where the loss is added
            return
        ctx = context.current()
        if ctx is None:
            raise RuntimeError(f'Layer "{self.name}": add_loss can only be called inside call().')
        value = jnp.asarray(value, jnp.float32)
        rows = context.sample_mask_for(value)
        if rows is not None:
            value = jnp.where(context.row_mask(rows, value), value, jnp.zeros((), value.dtype))
        if batch_wide:
            ctx.note_batch_wide_loss()
        ctx.losses.append(value)

    def _add_activity_penalty(self, outputs) -> None:
        for output in jax.tree_util.tree_leaves(outputs):
            # (exact on padded batches: activity_penalty leaves padding rows out)
            self._record_loss(regularizers.activity_penalty(self.activity_regularizer, output),
                              batch_wide=False)
