"""``fit`` / ``evaluate`` / ``predict`` driving a model's own Keras-form steps.

A model that overrides ``train_step``, ``test_step``, ``predict_step`` or ``compute_loss``
(Keras 3's JAX form, ``runtime.keras_protocol``) trains through the same ``fit`` as any
other model: the same data handling (shuffling, ``class_weight`` folded into the sample
weights, ``validation_split`` / ``validation_data`` / ``validation_freq`` /
``validation_steps`` / ``validation_batch_size``, ``steps_per_epoch``), the same callbacks
and the same one source of truth for the weights (``runtime.fit_loop.FitLoop``: the
model's variables read and write the running state). Only the steps are the model's own:
each batch, cut to its real rows, goes to the jitted step as Keras's ``(x, y)`` or
``(x, y, sample_weight)``, with Keras's state tuple, and the step's logs are the logs.
"""

from __future__ import annotations

import itertools
import warnings

import jax
import numpy as np

from runtime import data as data_lib, fit_loop
from kgraph.callbacks.callback_list import CallbackList
from runtime.keras_protocol import build_compiled_loss, metric_state, step_key
from kgraph.callbacks.log_values import python_logs
from runtime.trainer import TrainState
from runtime.training_setup import TrainingSetup

__all__ = ["KerasSteps", "batches", "evaluate", "fit", "keras_steps", "predict"]


class KerasSteps:
    """The jitted steps of one model and its weights as Keras's lists, in the interface
    ``FitLoop`` drives (the part a ``Trainer`` plays for a compiled model).

    A train state here is a ``TrainState`` whose ``params`` and ``state`` are the lists
    of ``model.trainable_variables`` and ``model.non_trainable_variables``, ``opt_state``
    the optimizer's state and ``metrics`` the metrics variables.
    """

    def __init__(self, model):
        self.model = model
        self._train_jit = jax.jit(self._train)
        self.test = jax.jit(lambda state, data: model.test_step(state, data))
        self.predict = jax.jit(lambda state, data: model.predict_step(state, data))
        self._lists = None

    def _snapshot(self):
        return list(self.model.trainable_variables), list(self.model.non_trainable_variables)

    def start(self, key) -> TrainState:
        """The train state of the model's current weights and its optimizer's state."""
        TrainingSetup.of(self.model).losses_built = True  # Keras's first step builds them
        optimizer = self.model.optimizer
        if not optimizer.built:
            optimizer.build(self.model.trainable_variables)
        trainable, non_trainable = self._lists = self._snapshot()
        opt_state = optimizer._state
        return TrainState([v.value for v in trainable], [v.value for v in non_trainable],
                          opt_state, 0, key, metric_state(self.model.metrics))

    def train(self, ts, data, key):
        """``(logs, train state)`` after the model's ``train_step`` on ``data`` (the step
        count as it was)."""
        logs, (params, state, opt_state, metrics) = self._train_jit(
            (ts.params, ts.state, ts.opt_state, ts.metrics), data, key)
        return logs, ts._replace(params=params, state=state, opt_state=opt_state,
                                 metrics=metrics)

    def _train(self, parts, data, key):
        # Keras's state tuple made and read back inside the compiled step (the optimizer's
        # state as Keras's variables)
        params, state, opt_state, metrics = parts
        optimizer = self.model.optimizer
        keras_state = (params, state, optimizer._state_to_list(opt_state), metrics)
        logs, (params, state, optimizer_variables, metrics) = _with_key(
            key, lambda: self.model.train_step(keras_state, data))
        return logs, (params, state, optimizer._state_from_list(optimizer_variables), metrics)

    # ---------------------------------------------------- what ``FitLoop`` asks for
    def variables(self) -> list:
        trainable, non_trainable = self._lists
        return trainable + non_trainable

    def pack(self, train_state):
        return train_state

    def unpacked(self, train_state):
        return train_state

    def describes_model(self) -> bool:
        trainable, non_trainable = self._snapshot()
        lists = self._lists
        return all(len(a) == len(b) and all(x is y for x, y in zip(a, b))
                   for a, b in zip((trainable, non_trainable), lists))

    def named_weights(self, train_state, copy=True):
        return list(train_state.params), list(train_state.state)

    def _where(self, variable):
        for which, variables in enumerate(self._lists):
            for index, candidate in enumerate(variables):
                if candidate is variable:
                    return which, index
        raise KeyError(variable.path)

    def named_value(self, named, variable):
        which, index = self._where(variable)
        return named[which][index]

    def with_weights(self, train_state, writes):
        lists = [list(train_state.params), list(train_state.state)]
        for variable, value in writes:
            which, index = self._where(variable)
            lists[which][index] = np.asarray(value, variable.dtype)
        return train_state._replace(params=lists[0], state=lists[1])

    def assign_named(self, params, state) -> None:
        for variables, values in zip(self._lists, (params, state)):
            for variable, value in zip(variables, values):
                variable.assign(value)


def _with_key(key, fn):
    with step_key(key):
        return fn()


def keras_steps(model) -> KerasSteps:
    """The model's jitted own steps (made once per model and compile)."""
    setup = TrainingSetup.of(model)
    steps = getattr(setup, "_custom_runner", None)
    if steps is None or steps.model is not model:
        steps = setup._custom_runner = KerasSteps(model)
    return steps


def batches(data, shuffle_rng=None, targets=True, window=None):
    """Keras's batches of ``data`` (``runtime.data`` objects): ``(x, y)`` or ``(x, y,
    sample_weight)`` (``x`` alone without targets), the last one cut to its real rows;
    ``window``: ``(first, count)`` of in-memory data's batches (``ArrayData.window``)."""
    if isinstance(data, data_lib.ArrayData):
        order = data.epoch_order(shuffle_rng)
        padded = data.host_batches(order)
        if window is not None:
            padded = itertools.islice(padded, window[0], window[0] + window[1])
    else:
        padded = data.epoch(shuffle_rng)
    for (x, y, sample_weight, _), real in padded:
        x, y, sample_weight = jax.tree_util.tree_map(lambda a, r=real: a[:r],
                                                     (x, y, sample_weight))
        if not targets:
            yield x
        else:
            yield (x, y) if sample_weight is None else (x, y, sample_weight)


def fit(model, data, val_data, *, epochs, verbose, callbacks, shuffle, initial_epoch,
        steps_per_epoch, validation_freq):
    """``fit`` driving the model's own ``train_step`` (and ``test_step`` to validate) over
    prepared data (``runtime.keras_shell.fit`` made it)."""
    setup = TrainingSetup.of(model)
    setup._build_on(model, data.arrays[0] if isinstance(data, data_lib.ArrayData) else None)
    steps = keras_steps(model)
    if isinstance(data, data_lib.ArrayData):  # (in memory: its first batch, looked at)
        build_compiled_loss(model, next(batches(data)))
    optimizer = model.optimizer
    loop = fit_loop.FitLoop(model, steps, steps.start(setup.train_key),
                            data_seed=(setup.seed, setup.fits))
    loop.initial_epoch, loop.resumable = initial_epoch, False
    optimizer._bind(loop)  # model.optimizer.learning_rate: the running one
    total = (min(steps_per_epoch or data.steps, data.steps)
             if isinstance(data, data_lib.ArrayData) else steps_per_epoch)
    callback_list = CallbackList(callbacks, model=model, loop=loop, add_history=True,
                                 add_progbar=verbose != 0, verbose=verbose, epochs=epochs,
                                 steps=total)
    loop.callbacks = callback_list
    setup.fits += 1
    model.stop_training = False
    logs = {}
    loop.bind()
    try:
        callback_list.on_train_begin()
        for epoch in range(loop.initial_epoch, epochs):
            loop.epoch = epoch
            loop.train_state = loop.train_state._replace(metrics=metric_state(model.metrics))
            callback_list.on_epoch_begin(epoch)
            passes, window = epoch, None
            if isinstance(data, data_lib.ArrayData):
                passes, *window = data.window(epoch - initial_epoch)
                passes += initial_epoch
            logs = _train_epoch(loop, callback_list, data,
                                loop.shuffle_rng(passes) if shuffle else None,
                                setup.steps_per_execution, window)
            if not logs:
                warnings.warn(f"The training data ran out at epoch {epoch + 1}: it produced "
                              "no batches. Training stopped.", RuntimeWarning, stacklevel=3)
                break
            if val_data is not None and (epoch + 1) % validation_freq == 0:
                val_logs = _evaluate(steps, loop.train_state, val_data, callback_list)
                logs.update({f"val_{k}": v for k, v in val_logs.items()})
            callback_list.on_epoch_end(epoch, logs)
            if loop.stop_training:
                break
        if optimizer._config.get("use_ema"):  # Keras's finalization: the moving average
            ts = loop.train_state
            # (the optimizer's state holds the weights as its list API keys them)
            loop.train_state = ts._replace(
                params=optimizer._as_list(optimizer.ema_weights(ts.opt_state)))
        callback_list.on_train_end(logs)
    finally:
        loop.unbind()
        ts = loop.train_state
        optimizer._bind(None)
        optimizer._state = ts.opt_state  # Keras's optimizer keeps its variables
        setup.train_key = jax.random.fold_in(ts.key, ts.step)
    model.history = callback_list.history
    return model.history


def _train_epoch(loop, callbacks, data, shuffle_rng, every, window=None) -> dict:
    """One epoch of the model's own steps. As Keras with ``steps_per_execution=every``,
    the batch hooks see every ``every``-th step: ``on_train_batch_begin`` at a group's
    first batch, ``on_train_batch_end`` at its last (the epoch's last batch ends one)."""
    logs, ended = {}, True
    for index, batch in enumerate(batches(data, shuffle_rng, window=window)):
        if data.steps is not None and index >= data.steps:
            break
        if index % every == 0:
            callbacks.on_train_batch_begin(index)
        returned = {}

        def step(steps, ts, batch=batch):
            returned["logs"], ts = steps.train(ts, batch, jax.random.fold_in(ts.key, ts.step))
            return ts._replace(step=ts.step + 1)

        loop.run_packed(step)
        loop.global_step += 1
        loop.step_in_epoch = index + 1
        logs, ended = python_logs(returned["logs"]), (index + 1) % every == 0
        if ended:
            callbacks.on_train_batch_end(index, logs)
            if loop.stop_training:
                break
    if not ended:
        callbacks.on_train_batch_end(loop.step_in_epoch - 1, logs)
    return dict(logs)


def _evaluate(steps, ts, data, callbacks) -> dict:
    """The model's ``test_step`` over ``data`` from the weights of ``ts``: the last logs."""
    trainable, non_trainable = ts.params, ts.state
    metrics = metric_state(steps.model.metrics)
    logs = {}
    steps.model.stop_evaluating = False
    callbacks.on_test_begin()
    for index, batch in enumerate(batches(data)):
        callbacks.on_test_batch_begin(index)
        new_logs, (trainable, non_trainable, metrics) = steps.test(
            (trainable, non_trainable, metrics), batch)
        logs = python_logs(new_logs)
        callbacks.on_test_batch_end(index, logs)
        if steps.model.stop_evaluating:  # a callback ended the loop (as Keras)
            break
    if not logs:
        raise ValueError("No data to evaluate: the data produced no batches.")
    callbacks.on_test_end(logs)
    return logs


def evaluate(model, data, verbose, callbacks) -> dict:
    """``evaluate`` driving the model's own ``test_step``: its logs."""
    steps = keras_steps(model)
    if isinstance(data, data_lib.ArrayData):
        build_compiled_loss(model, next(batches(data)))
    callback_list = CallbackList(callbacks, model=model, add_history=False,
                                 add_progbar=verbose != 0, verbose=verbose, epochs=1,
                                 steps=getattr(data, "steps", None))
    ts = steps.start(TrainingSetup.of(model).train_key)
    return _evaluate(steps, ts, data, callback_list)


def predict(model, data, verbose, callbacks):
    """``predict`` driving the model's own ``predict_step``."""
    steps = keras_steps(model)
    weights = ([v.value for v in model.trainable_variables],
               [v.value for v in model.non_trainable_variables])
    callback_list = CallbackList(callbacks, model=model, add_history=False,
                                 add_progbar=verbose != 0, verbose=verbose, epochs=1,
                                 steps=getattr(data, "steps", None))
    model.stop_predicting = False
    callback_list.on_predict_begin()
    outputs = []
    for index, x in enumerate(batches(data, targets=False)):
        callback_list.on_predict_batch_begin(index)
        result = steps.predict(weights, x)
        outputs.append(result)
        callback_list.on_predict_batch_end(index, {"outputs": result})
        if model.stop_predicting:  # a callback ended the loop (as Keras)
            break
    callback_list.on_predict_end()
    if not outputs:
        raise ValueError("No data to predict: the data produced no batches.")
    return jax.tree_util.tree_map(lambda *parts: np.concatenate(
        [np.asarray(p) for p in parts]), *outputs)
