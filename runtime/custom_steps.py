"""Keras 3's JAX-form training protocol: ``stateless_call``, ``compute_loss``, the default
``metrics``, and ``fit`` / ``evaluate`` / ``predict`` running a model's own ``train_step``
/ ``test_step`` / ``predict_step`` under ``jax.jit``.

The state is Keras's tuple of lists: ``(trainable_variables, non_trainable_variables,
optimizer_variables, metrics_variables)`` for ``train_step`` (without the optimizer's for
``test_step``), in the order of ``model.trainable_variables``,
``model.non_trainable_variables``, ``model.optimizer.variables`` and ``model.metrics``'s
variables. After each epoch the trained values are written back into the model.
"""

from __future__ import annotations

import contextlib
import contextvars

import jax
import jax.numpy as jnp
import numpy as np

import compiler
import compiler.weights
from runtime import losses as losses_lib, metrics as metrics_lib
from runtime.callback_list import CallbackList
from runtime.training_setup import TrainingSetup

_STEP_KEY = contextvars.ContextVar("kgraph_step_key", default=None)


@contextlib.contextmanager
def step_key(key):
    """Random layers in ``stateless_call`` draw from ``key`` inside this context."""
    token = _STEP_KEY.set(key)
    try:
        yield
    finally:
        _STEP_KEY.reset(token)


def overrides(model, name) -> bool:
    """Whether ``model``'s class defines its own ``name`` (e.g. ``train_step``)."""
    from kgraph.models.model import Model

    return getattr(type(model), name) is not getattr(Model, name)


# ------------------------------------------------------------------ stateless pieces
def _program(model):
    setup = TrainingSetup.of(model)
    program = getattr(setup, "_stateless_program", None)
    if program is None or program._signature != compiler.weights.graph_signature(model):
        program = setup._stateless_program = compiler.compile(model)
    return program


def stateless_call(model, trainable_variables, non_trainable_variables, *args,
                   return_losses=False, training=False, key=None, **kwargs):
    """``(outputs, non_trainable_variables)`` of ``model`` on the weights given as lists (in
    ``model.trainable_variables`` / ``non_trainable_variables`` order), touching nothing.

    Random layers in training draw from ``key`` (inside ``fit``, each step's key); with
    ``return_losses`` also the losses added by layers (a scalar sum)."""
    if kwargs:
        raise TypeError(f"stateless_call got unexpected arguments {sorted(kwargs)}.")
    program = _program(model)
    trainable, non_trainable = model.trainable_variables, model.non_trainable_variables
    if len(trainable_variables) != len(trainable) or len(non_trainable_variables) != len(
            non_trainable):
        raise ValueError(
            f"stateless_call on model {model.name!r}: expected {len(trainable)} trainable and "
            f"{len(non_trainable)} non-trainable variables, received "
            f"{len(trainable_variables)} and {len(non_trainable_variables)}.")
    values = {id(v): getattr(x, "value", x) for v, x in zip(trainable, trainable_variables)}
    values.update({id(v): getattr(x, "value", x)
                   for v, x in zip(non_trainable, non_trainable_variables)})
    params, state = compiler.weights.split_values(program._entries,
                                                  lambda e: values[id(e.variable)])
    inputs = args[0] if len(args) == 1 else list(args)
    key = key if key is not None else _STEP_KEY.get()
    outputs, new_state, loss = program.apply(params, state, inputs, training=training, key=key,
                                             return_losses=True)
    paths = {id(e.variable): e.path for e in program._entries}
    new_non_trainable = [compiler.weights.get_path(new_state, paths[id(v)], "state")
                         for v in non_trainable]
    if return_losses:
        return outputs, new_non_trainable, loss
    return outputs, new_non_trainable


def _loss_objects(setup):
    loss = setup.config["loss"]
    if isinstance(loss, dict):
        return {k: losses_lib.get(v) for k, v in loss.items()}
    if isinstance(loss, (list, tuple)):
        return [losses_lib.get(v) for v in loss]
    return losses_lib.get(loss)


def compute_loss(model, x=None, y=None, y_pred=None, sample_weight=None, training=True):
    """The compiled loss of ``(y, y_pred)`` (weighted per output by ``loss_weights``)."""
    setup = TrainingSetup.of(model)
    if setup.config is None or setup.config["loss"] is None:
        raise ValueError(f"Model {model.name!r} has no compiled loss: call compile(loss=...) "
                         "or override compute_loss.")
    objects, weights = _loss_objects(setup), setup.config["loss_weights"]
    if isinstance(objects, dict):
        weights = weights or {}
        return sum(weights.get(k, 1.0) * fn(y[k], y_pred[k], sample_weight)
                   for k, fn in objects.items())
    if isinstance(objects, list):
        weights = weights or [1.0] * len(objects)
        return sum(w * fn(t, p, sample_weight)
                   for w, fn, t, p in zip(weights, objects, y, y_pred))
    return objects(y, y_pred, sample_weight)


def default_metrics(model) -> list:
    """Keras's ``model.metrics``: a ``Mean`` named "loss", then the compiled metrics."""
    setup = TrainingSetup.of(model)
    made = getattr(setup, "_keras_metrics", None)
    if made is None:
        config = setup.config
        compiled = [] if config is None else list(config["metrics"] or ())
        loss = None if config is None else config["loss"]
        made = [metrics_lib.Mean(name="loss")]
        for identifier in compiled:
            metric = metrics_lib.get(identifier, loss if not isinstance(loss, (list, dict))
                                     else None)
            if isinstance(identifier, str):
                metric.name = identifier  # logged under the name given, as Keras
            made.append(metric)
        setup._keras_metrics = made
    return made


def _metric_state(metrics) -> list:
    return [leaf for m in metrics for leaf in m.stateless_reset_state()]


def default_train_step(model, state, data):
    """Keras's default ``train_step`` in JAX form (what ``super().train_step`` runs)."""
    trainable, non_trainable, optimizer_variables, metrics_variables = state
    x, y, sample_weight = _unpack(data)

    def objective(trainable):
        y_pred, new_non_trainable, extra = model.stateless_call(
            trainable, non_trainable, x, training=True, return_losses=True)
        loss = model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                                  training=True) + extra
        return loss, (y_pred, new_non_trainable)

    (loss, (y_pred, non_trainable)), grads = jax.value_and_grad(objective, has_aux=True)(
        trainable)
    trainable, optimizer_variables = model.optimizer.stateless_apply(
        optimizer_variables, grads, trainable)
    logs, metrics_variables = _update_metrics(model, metrics_variables, loss, y, y_pred,
                                              sample_weight)
    return logs, (trainable, non_trainable, optimizer_variables, metrics_variables)


def default_test_step(model, state, data):
    """Keras's default ``test_step`` in JAX form."""
    trainable, non_trainable, metrics_variables = state
    x, y, sample_weight = _unpack(data)
    y_pred, non_trainable, extra = model.stateless_call(trainable, non_trainable, x,
                                                        training=False, return_losses=True)
    loss = model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                              training=False) + extra
    logs, metrics_variables = _update_metrics(model, metrics_variables, loss, y, y_pred,
                                              sample_weight)
    return logs, (trainable, non_trainable, metrics_variables)


def default_predict_step(model, state, data):
    """Keras's default ``predict_step``: the outputs."""
    trainable, non_trainable = state
    x, _, _ = _unpack(data)
    return model.stateless_call(trainable, non_trainable, x, training=False)[0]


def _unpack(data):
    if isinstance(data, (tuple, list)):
        if len(data) == 3:
            return tuple(data)
        if len(data) == 2:
            return data[0], data[1], None
        if len(data) == 1:
            return data[0], None, None
    return data, None, None


def _update_metrics(model, metrics_variables, loss, y, y_pred, sample_weight):
    logs, new, position = {}, [], 0
    for metric in model.metrics:
        count = len(metric.stateless_reset_state())
        own = list(metrics_variables[position:position + count])
        position += count
        if metric.name == "loss":
            own = metric.stateless_update_state(own, loss)
        else:
            own = metric.stateless_update_state(own, y, y_pred, sample_weight)
        logs[metric.name] = metric.stateless_result(own)
        new += own
    return logs, new


# ---------------------------------------------------------------------- the loops
def _batches(x, y, sample_weight, batch_size, shuffle_rng):
    """``(x, y[, w])`` batches of arrays (nested structures sliced alike) or an iterable's."""
    if not isinstance(x, (np.ndarray, jax.Array, list, tuple, dict)) and hasattr(x, "__iter__"):
        yield from x
        return
    arrays = (x, y) if sample_weight is None else (x, y, sample_weight)
    count = len(jax.tree_util.tree_leaves(x)[0])
    order = np.arange(count) if shuffle_rng is None else shuffle_rng.permutation(count)
    for start in range(0, count, batch_size):
        rows = order[start:start + batch_size]
        batch = jax.tree_util.tree_map(lambda a: np.asarray(a)[rows], arrays)
        yield batch if y is not None else batch[0]


def _write_back(model, trainable, non_trainable):
    for variable, value in zip(model.trainable_variables, trainable):
        variable.assign(value)
    for variable, value in zip(model.non_trainable_variables, non_trainable):
        variable.assign(value)


def _float_logs(logs) -> dict:
    return {k: float(np.asarray(v)) for k, v in logs.items()}


class _Runner:
    """The jitted user steps of one model, and its state between calls."""

    def __init__(self, model):
        self.model = model
        self.train = jax.jit(lambda state, data, key: _with_key(
            key, lambda: model.train_step(state, data)))
        self.test = jax.jit(lambda state, data: model.test_step(state, data))
        self.predict = jax.jit(lambda state, data: model.predict_step(state, data))

    def weights(self):
        model = self.model
        return ([v.value for v in model.trainable_variables],
                [v.value for v in model.non_trainable_variables])


def _with_key(key, fn):
    with step_key(key):
        return fn()


def _runner(model) -> _Runner:
    setup = TrainingSetup.of(model)
    runner = getattr(setup, "_custom_runner", None)
    if runner is None or runner.model is not model:
        runner = setup._custom_runner = _Runner(model)
    return runner


def fit(model, x, y, batch_size, epochs, verbose, callbacks, validation_data, shuffle,
        sample_weight, initial_epoch, steps_per_epoch):
    """``fit`` driving the model's own ``train_step`` (and ``test_step`` for validation)."""
    setup = TrainingSetup.of(model)
    if setup.config is None:
        raise RuntimeError(f"You must call model.compile(optimizer, loss, metrics) before "
                           f"training model {model.name!r}.")
    optimizer = model.optimizer
    if not optimizer.built:
        optimizer.build(model.trainable_variables)
    runner = _runner(model)
    trainable, non_trainable = runner.weights()
    optimizer_variables = [v.value for v in optimizer.variables]
    batch_size = batch_size or 32
    in_memory = isinstance(x, (np.ndarray, jax.Array, list, tuple, dict))
    count = len(jax.tree_util.tree_leaves(x)[0]) if in_memory else None
    steps = steps_per_epoch or (None if count is None else -(-count // batch_size))
    callback_list = CallbackList(callbacks, model=model, add_history=True,
                                 add_progbar=verbose != 0, verbose=verbose, epochs=epochs,
                                 steps=steps)
    rng = np.random.default_rng([setup.seed, setup.fits])
    setup.fits += 1
    key = setup.train_key
    logs, step = {}, 0
    model.stop_training = False
    callback_list.on_train_begin()
    for epoch in range(initial_epoch, epochs):
        metrics_variables = _metric_state(model.metrics)
        callback_list.on_epoch_begin(epoch)
        for batch_index, batch in enumerate(_batches(x, y, sample_weight, batch_size,
                                                     rng if shuffle else None)):
            if steps_per_epoch is not None and batch_index >= steps_per_epoch:
                break
            callback_list.on_train_batch_begin(batch_index)
            state = (trainable, non_trainable, optimizer_variables, metrics_variables)
            logs, state = runner.train(state, batch, jax.random.fold_in(key, step))
            trainable, non_trainable, optimizer_variables, metrics_variables = state
            step += 1
            callback_list.on_train_batch_end(batch_index, _float_logs(logs))
        logs = _float_logs(logs)
        _write_back(model, trainable, non_trainable)
        if validation_data is not None:
            val_x, val_y, val_w = _unpack(tuple(validation_data))
            val_logs = _evaluate(model, runner, val_x, val_y, val_w, batch_size, callback_list)
            logs.update({f"val_{k}": v for k, v in val_logs.items()})
        callback_list.on_epoch_end(epoch, logs)
        if model.stop_training:
            break
    callback_list.on_train_end(logs)
    optimizer._state = jax.tree_util.tree_unflatten(optimizer._treedef, optimizer_variables)
    setup.train_key = jax.random.fold_in(key, step)
    model.history = callback_list.history
    return model.history


def _evaluate(model, runner, x, y, sample_weight, batch_size, callback_list):
    trainable, non_trainable = runner.weights()
    metrics_variables = _metric_state(model.metrics)
    logs = {}
    callback_list.on_test_begin()
    for index, batch in enumerate(_batches(x, y, sample_weight, batch_size, None)):
        callback_list.on_test_batch_begin(index)
        logs, (trainable, non_trainable, metrics_variables) = runner.test(
            (trainable, non_trainable, metrics_variables), batch)
        callback_list.on_test_batch_end(index, _float_logs(logs))
    logs = _float_logs(logs)
    callback_list.on_test_end(logs)
    return logs


def evaluate(model, x, y, batch_size, verbose, sample_weight, callbacks, return_dict):
    """``evaluate`` driving the model's own ``test_step``."""
    callback_list = CallbackList(callbacks, model=model, add_history=False,
                                 add_progbar=verbose != 0, verbose=verbose, epochs=1)
    logs = _evaluate(model, _runner(model), x, y, sample_weight, batch_size or 32,
                     callback_list)
    if return_dict:
        return logs
    values = list(logs.values())
    return values[0] if len(values) == 1 else values


def predict(model, x, batch_size, verbose, callbacks):
    """``predict`` driving the model's own ``predict_step``."""
    runner = _runner(model)
    weights = runner.weights()
    callback_list = CallbackList(callbacks, model=model, add_history=False,
                                 add_progbar=verbose != 0, verbose=verbose, epochs=1)
    callback_list.on_predict_begin()
    outputs = []
    for index, batch in enumerate(_batches(x, None, None, batch_size or 32, None)):
        callback_list.on_predict_batch_begin(index)
        result = runner.predict(weights, batch)
        outputs.append(result)
        callback_list.on_predict_batch_end(index, {"outputs": result})
    callback_list.on_predict_end()
    return jax.tree_util.tree_map(lambda *parts: np.concatenate(
        [np.asarray(p) for p in parts]), *outputs)
