"""The inference steps of a ``Trainer`` (a base of it): evaluation and prediction, one batch
or a table of batches in one compiled loop.

State a model assigns while it runs in inference (a stateful RNN's states,
``kgraph.layers.rnn_state``) carries from batch to batch, as Keras's steps carry their
non-trainable variables: the padded steps return the new ``state`` (None when the model
assigns none, known when the step is traced), which ``predict``, ``evaluate`` and ``fit``'s
validation keep.

>>> import numpy as np, kgraph as kg
>>> from runtime.trainer import Trainer
>>> x = kg.Input(batch_shape=(2, 3, 1))
>>> model = kg.Model(x, kg.layers.SimpleRNN(2, stateful=True)(x))
>>> trainer = Trainer(model, inference_only=True)
>>> ts = trainer.init_from_model(jax.random.PRNGKey(0), opt_state=(), read_only=True)
>>> chunk = np.ones((2, 3, 1), "float32")
>>> first, state = trainer.predict_batch(ts, chunk, np.ones((2,), "float32"))
>>> second, _ = trainer.predict_batch(ts._replace(state=state), chunk, np.ones(2, "float32"))
>>> bool((first != second).any())
True
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from runtime import packing as packing_lib
from runtime.data import take_rows

__all__ = ["InferenceSteps", "assigned_state", "inference_key", "rows_at", "unpack",
           "unpacked"]


def unpack(batch):
    """``(x, y, sample_weight)`` from a batch ``(x, y)`` or ``(x, y, sample_weight)``."""
    if not isinstance(batch, (tuple, list)) or len(batch) not in (2, 3):
        size = len(batch) if isinstance(batch, (tuple, list)) else "-"
        raise ValueError("A training batch must be (x, y) or (x, y, sample_weight), "
                         f"received {type(batch).__name__} of length {size}.")
    return batch[0], batch[1], batch[2] if len(batch) == 3 else None


def inference_key(ts):
    """The key of layers that draw even in inference (a sampling layer, keras.random in a
    call): fixed per train state, so evaluation and prediction are reproducible."""
    return jax.random.fold_in(ts.key, -1 % 2**31)


def rows_at(data, index, valid, position):
    """Batch ``position`` of an epoch table and its 0/1 row mask ``valid[position]``: rows
    ``index[position]`` of ``data``, or with ``index=None`` its ``position``-th block of
    contiguous rows (data already in the epoch's order)."""
    mask = jax.lax.dynamic_index_in_dim(valid, position, keepdims=False)
    if index is None:
        size = mask.shape[0]
        return jax.tree_util.tree_map(
            lambda a: jax.lax.dynamic_slice_in_dim(a, position * size, size), data), mask
    return take_rows(data, jax.lax.dynamic_index_in_dim(index, position, keepdims=False)), mask


def assigned_state(state, new_state):
    """``new_state`` if a run given ``state`` assigned any of it, else None (inside a trace:
    an entry no layer assigned is the very value the run was given)."""
    old, new = jax.tree_util.tree_leaves(state), jax.tree_util.tree_leaves(new_state)
    return new_state if any(a is not b for a, b in zip(old, new)) else None


def unpacked(ts):
    """The TrainState of a (maybe packed) train state, inside a trace."""
    return ts.packing.unpack(ts) if isinstance(ts, packing_lib.Packed) else ts


class InferenceSteps:
    """Evaluation and prediction over ``self.program`` (the ``Trainer``'s)."""

    def _inference_run(self, ts, x, valid=None):
        x = self.placement.constrain_batch(x)
        return self._run(ts.params, ts.state, x, training=False, sample_mask=valid,
                         key=inference_key(ts))

    def _evaluate(self, ts, metrics, x, y, sample_weight, valid):
        """``(metrics, new state or None)`` after one batch."""
        self.traces["eval"] += 1
        x, y, sample_weight, valid = self.placement.constrain_batch((x, y, sample_weight, valid))
        run = self._inference_run(ts, x, valid)
        self.objective.check(y, run.outputs)
        total, per_output = self.objective.loss(y, run.outputs, sample_weight, valid,
                                                run.masks)
        metrics = self.objective.update_metrics(metrics, y, run.outputs, total + run.loss,
                                                per_output, sample_weight=sample_weight,
                                                valid=valid, masks=run.masks)
        return metrics, assigned_state(ts.state, run.state)

    def _predict(self, ts, x, valid=None):
        """``(outputs, new state or None)`` of one batch."""
        self.traces["predict"] += 1
        run = self._inference_run(ts, x, valid)
        return run.outputs, assigned_state(ts.state, run.state)

    # ------------------------------------------------------------ public steps
    def _eval_step(self, ts, batch, metrics=None):
        metrics = self.objective.init_metrics() if metrics is None else metrics
        metrics, _ = self._evaluate(unpacked(ts), metrics, *unpack(batch), None)
        return metrics, self.objective.results(metrics)

    def _predict_step(self, ts, x):
        return self._predict(unpacked(ts), x)[0]

    # ----------------------------------------------- padded forms (evaluate, predict)
    def _eval_batch(self, ts, metrics, batch):
        return self._evaluate(ts, metrics, *batch)

    def _eval_indexed(self, ts, metrics, data, index, valid, start, stop):
        """Evaluate batches ``start .. stop - 1`` of the epoch table (see ``rows_at``; a
        loop with a dynamic trip count: one compiled program for any number of batches):
        ``(metrics, new state or None)``."""
        assigns = []  # found when the loop's body is traced

        def body(position, carry):
            metrics, state = carry
            (x, y, sample_weight), mask = rows_at(data, index, valid, position)
            metrics, new = self._evaluate(ts._replace(state=state), metrics, x, y,
                                          sample_weight, mask)
            assigns.append(new is not None)
            return metrics, state if new is None else new

        metrics, state = jax.lax.fori_loop(start, stop, body, (metrics, ts.state))
        return metrics, state if any(assigns) else None

    def _predict_batch(self, ts, x, valid):
        """``(outputs, new state or None)`` of one batch, ``valid`` marking its real rows."""
        return self._predict(ts, x, valid)

    def _predict_indexed(self, ts, x_data, index, valid, stop):
        """Outputs of batches ``0 .. stop - 1`` of the epoch table, stacked ``(rows of the
        table, batch, ...)``, and the new state (or None): a loop with a dynamic trip
        count, so the table's padding steps (``bucket``) share the compiled program but
        cost no forward pass (their rows stay zero)."""
        def batch_at(position):
            (x,), mask = rows_at((x_data,), index, valid, position)
            return x, mask

        steps = valid.shape[0]
        carries, outputs = self._probe(ts, batch_at(0)[0])
        stacked = jax.tree_util.tree_map(lambda s: jnp.zeros((steps, *s.shape), s.dtype),
                                         outputs)

        def body(position, carry):
            stacked, state = carry if carries else (carry, ts.state)
            outputs, new = self._predict(ts._replace(state=state), *batch_at(position))
            stacked = jax.tree_util.tree_map(
                lambda buffer, out: jax.lax.dynamic_update_index_in_dim(
                    buffer, out, position, 0), stacked, outputs)
            return (stacked, state if new is None else new) if carries else stacked

        if not carries:
            return jax.lax.fori_loop(0, stop, body, stacked), None
        return jax.lax.fori_loop(0, stop, body, (stacked, ts.state))

    def _probe(self, ts, x):
        """``(assigns, outputs)`` of an inference run on a batch like ``x``, found on
        shapes (not counted as a trace): whether it assigns state (which a loop over
        batches then carries), and its outputs' shapes."""
        assigns = []

        def run():
            run = self._inference_run(ts, x)
            assigns.append(assigned_state(ts.state, run.state) is not None)
            return run.outputs

        outputs = jax.eval_shape(run)
        return assigns[0], outputs
