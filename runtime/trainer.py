"""``Trainer``: pure, jitted training and evaluation steps over a compiled model.

>>> import jax, optax, jax.numpy as jnp, kgraph as kg
>>> x = kg.Input(shape=(4,))
>>> model = kg.Model(x, kg.layers.Dense(3)(x))
>>> trainer = Trainer(model, optax.adam(1e-3), "sparse_categorical_crossentropy")
>>> ts = trainer.init(jax.random.PRNGKey(0))
>>> ts, logs = trainer.train_step(ts, (jnp.ones((8, 4)), jnp.zeros((8,), jnp.int32)))
>>> int(ts.step), sorted(logs)
(1, ['loss'])
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

import compiler
from runtime import losses, metrics as metrics_lib, optimizers


class TrainState(NamedTuple):
    """Everything training carries from step to step, as one pytree.

    ``key`` is the base PRNG key; step ``n`` uses ``fold_in(key, n)``.
    """

    params: Any
    state: Any
    opt_state: Any
    step: Any
    key: Any


def _unpack(batch):
    if not isinstance(batch, (tuple, list)) or len(batch) not in (2, 3):
        raise ValueError("A training batch must be (x, y) or (x, y, sample_weight), "
                         f"received {type(batch).__name__} of length "
                         f"{len(batch) if isinstance(batch, (tuple, list)) else '-'}.")
    return (batch[0], batch[1], batch[2] if len(batch) == 3 else None)


def weighted_mean(values, sample_weight):
    """Mean of per-sample ``values``, weighted (padding rows carry weight 0)."""
    if sample_weight is None:
        return jnp.mean(values)
    weight = jnp.asarray(sample_weight, values.dtype).reshape(values.shape)
    return jnp.sum(values * weight) / jnp.maximum(jnp.sum(weight), 1e-12)


class Trainer:
    """Pure training for ``model`` with an optax optimizer, a loss and metrics.

    ``train_step(train_state, batch) -> (train_state, logs)`` is jitted and donates the
    train state's buffers (don't reuse a train state after passing it in);
    ``eval_step(train_state, batch) -> logs`` and ``predict_step(train_state, x)`` are
    jitted. A batch is ``(x, y)`` or ``(x, y, sample_weight)``; ``logs`` holds the
    (weighted) mean loss and metrics of the batch.

    Args:
      model: a kgraph model (compiled here with ``compiler.compile``).
      optimizer: an optax ``GradientTransformation`` or a Keras name ("adam", "sgd", ...).
      loss: a Keras loss name or ``fn(y_true, y_pred) -> per-sample loss``.
      metrics: names or callables, each ``fn(y_true, y_pred) -> per-sample values``.
    """

    def __init__(self, model, optimizer, loss, metrics=()):
        if loss is None:
            raise ValueError("Trainer needs a loss, e.g. loss='mse'.")
        self.model = model
        self.program = compiler.compile(model)
        self.optimizer = optimizers.get(optimizer)
        self.loss = losses.get(loss)
        self.metrics = [metrics_lib.get(m, self.loss) for m in metrics]
        self.metric_names = [metrics_lib.name_of(m) for m in self.metrics]
        self.train_step = jax.jit(self._train_step, donate_argnums=0)
        self.eval_step = jax.jit(self._eval_step)
        self.predict_step = jax.jit(self._predict_step)

    # ----------------------------------------------------------------- states
    def init(self, key) -> TrainState:
        """A fresh train state: new weights from ``key``, new optimizer state."""
        init_key, train_key = jax.random.split(key)
        params, state = self.program.init(init_key)
        return self._train_state(params, state, train_key)

    def init_from_model(self, key, opt_state=None) -> TrainState:
        """A train state holding the model's current weights (``compiler.variables``)."""
        params, state = compiler.variables(self.model)
        return self._train_state(params, state, key, opt_state)

    def _train_state(self, params, state, key, opt_state=None):
        if opt_state is None:
            opt_state = self.optimizer.init(params)
        return TrainState(params, state, opt_state, jnp.zeros((), jnp.int32), key)

    def write_back(self, train_state: TrainState) -> None:
        """Copy the trained weights into the model's layers (eager calls see them)."""
        compiler.assign(self.model, train_state.params, train_state.state)

    # ------------------------------------------------------------------ steps
    def _logs(self, y, y_pred, sample_weight, loss):
        logs = {"loss": loss}
        for name, metric in zip(self.metric_names, self.metrics):
            logs[name] = weighted_mean(metric(y, y_pred), sample_weight)
        return logs

    def _train_step(self, ts: TrainState, batch):
        x, y, sample_weight = _unpack(batch)
        # The base key never changes; each step's key is derived from it and the step
        # number, so a model without random layers compiles to no key arithmetic at all.
        step_key = jax.random.fold_in(ts.key, ts.step)

        def objective(params):
            y_pred, new_state, aux_loss = self.program.apply(
                params, ts.state, x, training=True, key=step_key, return_losses=True)
            loss = weighted_mean(self.loss(y, y_pred), sample_weight) + aux_loss
            return loss, (y_pred, new_state)

        (loss, (y_pred, new_state)), grads = jax.value_and_grad(objective, has_aux=True)(
            ts.params)
        updates, opt_state = self.optimizer.update(grads, ts.opt_state, ts.params)
        params = self.program.constrain(optax.apply_updates(ts.params, updates))
        new_ts = TrainState(params, new_state, opt_state, ts.step + 1, ts.key)
        return new_ts, self._logs(y, y_pred, sample_weight, loss)

    def _eval_step(self, ts: TrainState, batch):
        x, y, sample_weight = _unpack(batch)
        y_pred, _ = self.program.apply(ts.params, ts.state, x, training=False)
        loss = weighted_mean(self.loss(y, y_pred), sample_weight)
        return self._logs(y, y_pred, sample_weight, loss)

    def _predict_step(self, ts: TrainState, x):
        y_pred, _ = self.program.apply(ts.params, ts.state, x, training=False)
        return y_pred
