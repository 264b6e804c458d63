"""Keras's single-batch methods: ``train_on_batch``, ``test_on_batch`` (here
``evaluate_on_batch``), ``predict_on_batch``, and the metric results they leave
(``get_metrics_result``, ``reset_metrics``).

``train_on_batch`` runs one optimizer step of the jitted step ``fit`` runs
(``Trainer.fit_batches``) on the batch as it is, from the same one truth ``fit`` starts
from and leaves: the model's variables, the optimizer state and the PRNG key kept in the
model's ``TrainingSetup``. So ``train_on_batch`` and ``fit`` / ``evaluate`` interleave as
in Keras: each continues from what the other left. As Keras 3's, each call starts from
fresh metric states and returns that batch's loss and metrics (``return_dict``: a dict);
``get_metrics_result`` reads the results the last ``fit``, ``evaluate`` or ``*_on_batch``
left until ``reset_metrics``. A model with its own ``train_step`` / ``test_step`` /
``compute_loss`` runs its own jitted steps (``runtime.custom_steps``).

>>> import numpy as np, kgraph as kg
>>> x = kg.Input(shape=(3,))
>>> model = kg.Model(x, kg.layers.Dense(1)(x))
>>> model.compile(optimizer="sgd", loss="mse")
>>> loss = train_on_batch(model, np.ones((4, 3)), np.zeros((4, 1)))
>>> isinstance(loss, float), sorted(get_metrics_result(model))
(True, ['loss'])
"""

from __future__ import annotations

import jax
import numpy as np

from kgraph.callbacks.log_values import python_logs
from runtime import custom_steps, data as data_lib, fit_loop
from runtime.keras_protocol import build_compiled_loss, metric_state, uses_own_steps
from runtime.log_order import keras_results
from runtime.training_setup import TrainingSetup

__all__ = ["evaluate_on_batch", "get_metrics_result", "predict_on_batch", "record_metrics",
           "reset_metrics", "train_on_batch"]


def _setup(model, what) -> TrainingSetup:
    setup = TrainingSetup.of(model)
    if setup.config is None:
        raise RuntimeError(f"You must call model.compile(optimizer, loss, metrics) before "
                           f"calling {what} on model {model.name!r}.")
    if setup.running is not None:
        raise RuntimeError(f"{what} on model {model.name!r} was called while its fit runs; "
                           "a callback changes the running training through model's "
                           "variables instead.")
    return setup


def _one_batch(x, y, sample_weight, class_weight=None, targets=True):
    """``ArrayData`` holding ``(x, y, sample_weight)`` as one batch of all its rows."""
    if targets and y is None:
        raise ValueError("Targets are missing: pass y.")
    rows = data_lib.num_samples(data_lib.as_numpy(x), data_lib.as_numpy(y),
                                None if sample_weight is None
                                else data_lib.as_numpy(sample_weight))
    return data_lib.ArrayData(x, y, sample_weight, batch_size=max(rows, 1),
                              class_weight=class_weight)


def record_metrics(model, logs: dict) -> None:
    """Keep ``logs`` as the results of ``model``'s metrics (``get_metrics_result``), until
    the next ``fit``, ``evaluate``, ``*_on_batch``, ``reset_metrics`` or ``compile``."""
    setup = TrainingSetup.of(model)
    setup._metrics_result = (setup.config, dict(logs))


def get_metrics_result(model) -> dict:
    """The results of ``model``'s metrics (Keras's ``get_metrics_result``): what the last
    ``fit`` (its last epoch or validation), ``evaluate`` or ``*_on_batch`` left, or fresh
    metrics' (zeros) after ``reset_metrics``."""
    setup = TrainingSetup.of(model)
    config, logs = getattr(setup, "_metrics_result", (None, None))
    if logs is not None and config is setup.config:
        return dict(logs)
    if setup.config is None:
        return {}
    if uses_own_steps(model, "train_step", "test_step", "metrics", "compute_loss"):
        results = {}
        for metric in model.metrics:
            result = metric.stateless_result(metric.stateless_reset_state())
            results.update(result if isinstance(result, dict) else {metric.name: result})
        return python_logs(results)
    if not model.built:
        return {"loss": 0.0}
    trainer = setup.trainer_for(model)
    return fit_loop._epoch_logs(trainer, trainer.init_metrics())


def reset_metrics(model) -> None:
    """Forget the metric results (``get_metrics_result`` then gives fresh metrics')."""
    TrainingSetup.of(model).__dict__.pop("_metrics_result", None)


def _own_train_on_batch(model, setup, data) -> dict:
    """``train_on_batch`` of a model with its own ``train_step`` (Keras's state tuple)."""
    steps = custom_steps.keras_steps(model)
    batch = next(custom_steps.batches(data))
    build_compiled_loss(model, batch)
    ts = steps.start(setup.train_key)
    logs, ts = steps.train(ts, batch, jax.random.fold_in(ts.key, 0))
    steps.assign_named(ts.params, ts.state)
    model.optimizer._state = ts.opt_state  # Keras's optimizer keeps its variables
    setup.train_key = jax.random.fold_in(ts.key, 1)
    return python_logs(logs)


def train_on_batch(model, x, y=None, sample_weight=None, class_weight=None,
                   return_dict=False):
    """One optimizer step on ``(x, y)`` (see the module docstring); the batch's loss and
    metrics: a float, a list ``[loss, *metrics]``, or a dict (``return_dict``)."""
    if class_weight is not None and sample_weight is not None:
        raise ValueError("Arguments `sample_weight` and `class_weight` cannot be specified "
                         f"at the same time. Received: sample_weight={sample_weight}, "
                         f"class_weight={class_weight}")
    setup = _setup(model, "train_on_batch")
    data = _one_batch(x, y, sample_weight, class_weight)
    if uses_own_steps(model, "train_step", "compute_loss"):
        logs = _own_train_on_batch(model, setup, data)
    else:
        trainer = setup.trainer_for(model, data.arrays[0])
        (batch, _), = data.host_batches()
        ts = trainer.reset_metrics(trainer.init_from_model(setup.train_key, setup.opt_state))
        ts = trainer.unpacked(trainer.fit_batches(ts, jax.device_put(data_lib.stack([batch]))))
        trainer.write_back(ts)  # the model's variables: the one truth between steps
        setup.opt_state = ts.opt_state
        setup.rest(trainer.optimizer, model)
        setup.train_key = jax.random.fold_in(ts.key, ts.step)  # the next step's new masks
        logs = fit_loop._epoch_logs(trainer, ts.metrics)
    record_metrics(model, logs)
    return keras_results(model.metrics, logs, return_dict)


def evaluate_on_batch(model, x, y=None, sample_weight=None, return_dict=False):
    """``Model.test_on_batch``: the loss and metrics of ``(x, y)`` as one batch (fresh
    metrics), as ``evaluate`` computes them: a float, a list, or a dict (``return_dict``)."""
    setup = _setup(model, "test_on_batch")
    data = _one_batch(x, y, sample_weight)
    if uses_own_steps(model, "test_step", "metrics", "compute_loss"):
        steps = custom_steps.keras_steps(model)
        ts = steps.start(setup.train_key)
        logs, _ = steps.test((ts.params, ts.state, metric_state(model.metrics)),
                             next(custom_steps.batches(data)))
        logs = python_logs(logs)
    else:
        trainer = setup.trainer_for(model, data.arrays[0])
        state = trainer.init_from_model(setup.train_key, opt_state=(), read_only=True)
        logs, assigned = fit_loop.evaluate_data(trainer, state, data)
        trainer.keep_state(assigned)
    record_metrics(model, logs)
    return keras_results(model.metrics, logs, return_dict)


def predict_on_batch(model, x):
    """The model's outputs for ``x`` as one batch, as NumPy arrays (``predict``'s step)."""
    if uses_own_steps(model, "predict_step"):
        steps = custom_steps.keras_steps(model)
        weights = ([v.value for v in model.trainable_variables],
                   [v.value for v in model.non_trainable_variables])
        return jax.tree_util.tree_map(np.asarray, steps.predict(weights, x))
    data = _one_batch(x, None, None, targets=False)
    predictor = TrainingSetup.of(model).predictor_for(model, data.arrays[0])
    ts = predictor.init_from_model(jax.random.PRNGKey(0), opt_state=(), read_only=True)
    (batch, _), = data.host_batches()
    outputs, assigned = predictor.predict_batch(ts, batch[0], batch[3])
    predictor.keep_state(assigned)
    return jax.tree_util.tree_map(np.asarray, outputs)
