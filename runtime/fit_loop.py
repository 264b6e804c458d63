"""The fit/evaluate/predict loops: Python drives epochs, the device runs the steps.

Per step, the host does one dispatch: in-memory data stays on the device and each step
gathers its rows there; with ``steps_per_execution=k`` one dispatch runs ``k`` steps
(``jax.lax.scan``). The loop only waits for the device where a value is needed: at epoch
ends, and in batch callbacks that read their logs (the progress bar, throttled).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping

import jax
import jax.numpy as jnp
import numpy as np
from optax import tree_utils as optax_tree

from kgraph.base.layer import trainability_changes
from runtime import data as data_lib
from runtime.batch_hooks import Executions, HookClock
from kgraph.callbacks.callbacks import TerminateOnNaN
from kgraph.callbacks.log_values import python_value
from kgraph.optimizers.base import unsettable_rate_message
from runtime.objective import NONFINITE_STEP

__all__ = ["FitLoop", "LazyLogs", "evaluate_data", "predict_data", "train_epoch"]


class LazyLogs(Mapping):
    """Batch logs computed from the running metric states on first access.

    Reading a value waits for the step that produced it; a callback that never reads
    costs nothing. Only valid during the callback it is passed to.
    """

    def __init__(self, results, metrics):
        """``metrics``: the metric states, or a function returning them."""
        self._results, self._metrics, self._values = results, metrics, None

    def _get(self):
        if self._values is None:
            if self._metrics is None:
                raise RuntimeError("Batch logs can only be read inside the callback they were "
                                   "passed to; copy them with dict(logs) to keep them.")
            metrics = self._metrics() if callable(self._metrics) else self._metrics
            self._values = self._results(metrics)
        return self._values

    def seal(self):
        self._metrics = None

    def __getitem__(self, name):
        return self._get()[name]

    def __iter__(self):
        return iter(self._get())

    def __len__(self):
        return len(self._get())


class FitLoop:
    """What callbacks see of a running ``fit`` (as ``callback.loop``).

    While steps run, the train state is kept packed (``runtime.packing``); reading
    ``train_state`` unpacks it (one device call, cached until the next step).

    The train state is the one place the weights live during ``fit``: the model's
    variables are bound to the loop (``bind``), so reading one (``get_weights``, an eager
    call, ``predict``, ``evaluate``, a checkpoint) reads the current train state, and
    writing one (``set_weights``, ``variable.assign``) changes what the next step trains
    on. Reads cost nothing until something reads (then one copy of the weights per step);
    writes are gathered and go into the train state before the next step runs.

    Attributes:
      train_state: the current ``TrainState`` (assign a new one to continue from it).
      learning_rate: the optimizer's learning rate (optimizers built with
        ``optax.inject_hyperparams``, which includes those given by name).
      stop_training: set True to stop after the current epoch.
      epoch, global_step: where training is; ``step_in_epoch``: steps run in this epoch.
      initial_epoch, initial_step: where ``fit`` starts: ``fit``'s ``initial_epoch`` and
        step 0, unless a callback's ``on_train_begin`` resumes a run (``BackupAndRestore``
        sets them, with the train state and ``global_step`` of its checkpoint).
      data_seed: the shuffling seed: epoch ``e`` visits the samples in the order of
        ``np.random.default_rng([*data_seed, e]).permutation``.
      callbacks: the ``CallbackList`` of the run.
    """

    def __init__(self, model, trainer, train_state, *, data_seed=(0, 0), callbacks=None):
        self.model = model
        self.trainer = trainer
        self._train_state = train_state
        self._packed = None  # the packed train state, once steps have run
        self.epoch = 0
        self.global_step = 0
        self.step_in_epoch = 0
        self.initial_epoch = 0
        self.initial_step = 0
        self.data_seed = tuple(int(s) for s in data_seed)
        self.callbacks = callbacks
        self.resumed = False  # set by a callback that resumed a run (BackupAndRestore)
        self._named = None  # the weights of the current step, as the model names them
        self._writes: dict = {}  # id(variable) -> (variable, value) written since
        self._bound: list = []  # (variable, the view it had before ``bind``)
        self.remake_trainer = None  # () -> a Trainer for the model as it is now
        self.resumable = True  # a backup of it resumes exactly (not: a model's own steps)
        self._trainability = trainability_changes()

    def shuffle_rng(self, epoch: int):
        """The generator of epoch ``epoch``'s sample order (a function of the seeds only,
        so a resumed run visits the samples in the same order)."""
        return np.random.default_rng([*self.data_seed, int(epoch)])

    @property
    def train_state(self):
        if self._train_state is None:
            self._train_state = self.trainer.unpacked(self._packed)
        if self._writes:  # weights written through the model's variables
            writes, self._writes = self._writes, {}
            self._train_state = self.trainer.with_weights(self._train_state,
                                                          list(writes.values()))
            self._packed = None
        return self._train_state

    @train_state.setter
    def train_state(self, train_state) -> None:
        self._train_state, self._packed, self._named = train_state, None, None

    def run_packed(self, step_fn) -> None:
        """``step_fn(trainer, packed) -> packed``: advance the packed train state."""
        if self._trainability != trainability_changes():
            self._follow_trainability()
        if self._packed is None or self._writes:
            self._packed = self.trainer.pack(self.train_state)
        self._packed = step_fn(self.trainer, self._packed)
        self._train_state = self._named = None

    def _follow_trainability(self) -> None:
        """A layer was frozen or unfrozen since the last step (by a callback): train what
        the model now says is trainable, from the next step on. The weights, the step and
        the running metrics carry over, and the optimizer state of every weight trained
        before (``Trainer.fitted_opt_state``); the step compiles again."""
        self._trainability = trainability_changes()
        trainer = self.trainer
        if trainer.describes_model():
            return
        if self.remake_trainer is None:
            raise RuntimeError(f"Layers of model {self.model.name!r} were frozen or unfrozen "
                               "while it trained, and this loop cannot follow: compile the "
                               "model again and call fit.")
        old = self.train_state
        opt_state = trainer.opt_state_named(old.opt_state)
        self.unbind()
        self.trainer = self.remake_trainer()
        new = self.trainer.init_from_model(old.key, opt_state)
        self.train_state = new._replace(step=old.step, metrics=old.metrics)
        self.bind()

    # ------------------------------------------------- the model's variables, bound here
    def bind(self) -> None:
        """Bind the model's variables to this loop (until ``unbind``)."""
        self._bound = [(v, v.bind_view(self)) for v in self.trainer.variables()]

    def unbind(self) -> None:
        """Give the variables back their own values: the current train state's."""
        if not self._bound:
            return
        params, state = self.trainer.named_weights(self.train_state)
        for variable, previous in self._bound:
            variable.bind_view(previous)
        self._bound = []
        self.trainer.assign_named(params, state)

    def read_variable(self, variable):
        written = self._writes.get(id(variable))
        if written is not None:
            return written[1]
        if self._named is None:
            self._named = self.trainer.named_weights(self.train_state)
        return self.trainer.named_value(self._named, variable)

    def write_variable(self, variable, value) -> None:
        self._writes[id(variable)] = (variable, value)
        self._named = None

    @property
    def stop_training(self) -> bool:
        return bool(getattr(self.model, "stop_training", False))

    @stop_training.setter
    def stop_training(self, value: bool) -> None:
        self.model.stop_training = bool(value)

    def _no_learning_rate(self):
        return ValueError(
            "The optimizer has no injectable learning rate, so it can't be read or changed "
            "during training. Build it with optax.inject_hyperparams, e.g. "
            "optax.inject_hyperparams(optax.adam)(learning_rate=1e-3), or pass a name such "
            "as 'adam'.")

    def _rate(self):
        """``(learning rate, whether a schedule sets it)`` of the running optimizer."""
        opt_state = self.train_state.opt_state
        try:
            return optax_tree.tree_get(opt_state, "learning_rate", None), False
        except KeyError:  # a schedule: its state sits beside the value it gives
            return opt_state.hyperparams["learning_rate"], True

    @property
    def learning_rate(self) -> float:
        value, _ = self._rate()
        if value is None or callable(value):
            raise self._no_learning_rate()
        return float(value)

    @learning_rate.setter
    def learning_rate(self, value: float) -> None:
        old, scheduled = self._rate()
        if scheduled:
            optimizer = self.trainer.optimizer
            raise TypeError(unsettable_rate_message(
                getattr(optimizer, "name", type(optimizer).__name__),
                getattr(optimizer, "_config", {}).get("learning_rate", "a schedule")))
        if old is None or callable(old):
            raise self._no_learning_rate()
        new = jnp.asarray(value, jnp.asarray(old).dtype)
        self.train_state = self.train_state._replace(
            opt_state=optax_tree.tree_set(self.train_state.opt_state, learning_rate=new))


def _epoch_logs(trainer, metrics) -> dict:
    """Python floats (arrays for metrics with several values) in Keras order (loss
    first); jit returns dicts with sorted keys."""
    values = trainer.results(metrics)
    return {name: python_value(values[name]) for name in trainer.metric_names}


def _check_finite(loop, metrics, epoch_start_step, callbacks=()):
    """Stop training (with a message naming the step) after a non-finite loss.

    Runs at every epoch end from a step number tracked on the device, so no step waits
    for it; ``TerminateOnNaN`` (which reads every batch's loss) already said it.
    """
    bad = int(metrics[NONFINITE_STEP])
    if bad < 0:
        return
    if loop.stop_training and any(isinstance(c, TerminateOnNaN) for c in callbacks):
        return
    batch = bad - epoch_start_step
    message = (f"Epoch {loop.epoch + 1}, batch {batch} (step {bad}): the loss became "
               "non-finite (NaN or Inf); training stopped. The weights are those after the "
               "last step run. Lower the learning rate, clip gradients (optax.clip_by_global_"
               "norm) or check the data for NaNs.")
    warnings.warn(message, RuntimeWarning, stacklevel=3)
    loop.stop_training = True


def _batch_end(hook, batch, results, metrics):
    logs = LazyLogs(results, metrics)
    hook(batch, logs)
    logs.seal()


def train_epoch(loop, callbacks, data, *, shuffle_rng, steps_per_execution: int,
                skip: int = 0, window=None) -> int:
    """Run one epoch of training steps, the first ``skip`` of them already run (a resumed
    epoch); returns the number of steps of the epoch run, ``skip`` included. ``window``:
    ``(first, count)``, the batches of the pass over in-memory data this epoch trains on
    (``ArrayData.window``; default: all of them)."""
    trainer, k = loop.trainer, steps_per_execution
    _place_resident(trainer, data)
    first, total = window if window is not None else (0, getattr(data, "steps", None))
    # the batch hooks: once per execution of k steps, as Keras (``batch_hooks``)
    hooks = Executions(k, HookClock(callbacks, "train"),
                       callbacks.on_train_batch_begin if callbacks is not None else None,
                       lambda step: _batch_end(callbacks.on_train_batch_end, step,
                                               loop.trainer.results,
                                               lambda: loop.train_state.metrics))

    def run(done, steps, step_fn):
        hooks.begin(done, last=total is not None and done + k >= total)
        loop.run_packed(step_fn)
        loop.global_step += steps
        loop.step_in_epoch = done + steps
        hooks.end(done + steps - 1)
        return done + steps

    if isinstance(data, data_lib.ArrayData) and data.device_resident:
        order = data.epoch_order(shuffle_rng)
        device_data, index, valid = data.device_epoch(order)
        start = jnp.asarray(loop.global_step - skip - first, jnp.int32)
        done = skip
        # an unpadded last batch (``exact_last``) runs apart, from the host
        indexed = total - 1 if first + total == data.steps and data.exact_last else total
        # as Keras, ``stop_training`` is read after each dispatch: an epoch asked to stop
        # before its first batch (in ``on_epoch_begin``) still trains that batch
        while done < indexed:
            steps = k if indexed - done >= k else 1
            done = run(done, steps, lambda trainer, packed, s=steps: trainer.fit_indexed(
                packed, device_data, index, valid, start, steps=s))
            if loop.stop_training:
                break
        if done < total and not (loop.stop_training and done > skip):
            block = _on_devices(trainer, data_lib.stack([data.last_batch(order)[0]]), True)
            done = run(done, 1, lambda trainer, packed: trainer.fit_batches(packed, block))
        hooks.close(done - 1)
        return done
    if isinstance(data, data_lib.ArrayData):
        order = data.epoch_order(shuffle_rng)
        batches = data.host_batches(order)
    else:
        batches = data.epoch(shuffle_rng)
    done = skip
    # A resumed epoch passes over the batches already trained on (an iterable must give
    # the same batches each epoch for the run to continue exactly).
    batches = itertools.islice(batches, first + skip,
                               None if window is None else first + total)
    for block, steps in data_lib.prefetch_to_device(_blocks(batches, k),
                                                    place=_placer(trainer, stacked=True)):
        done = run(done, steps, lambda trainer, packed, b=block: trainer.fit_batches(packed, b))
        if loop.stop_training:
            break
    hooks.close(done - 1)
    return done


def _placer(trainer, stacked=False):
    """How host batches reach the devices: on a mesh, split over its data axis."""
    placement = getattr(trainer, "placement", None)
    if getattr(placement, "mesh", None) is None:
        return None
    return lambda batch: placement.put_batch(batch, stacked=stacked)


def _on_devices(trainer, batch, stacked=False):
    place = _placer(trainer, stacked)
    return jax.device_put(batch) if place is None else place(batch)


def _place_resident(trainer, data, losses=True) -> None:
    """On a mesh, in-memory data lives on every device (each step gathers its rows); on
    several processes, each holds only its own rows: they go as host batches. With
    ``losses``, a partial batch is padded only if the trainer's losses leave padding rows
    out (``Trainer.pads_rows``)."""
    data.pad_check = trainer.pads_rows if losses else None
    placement = getattr(trainer, "placement", None)
    if getattr(placement, "mesh", None) is not None and isinstance(data, data_lib.ArrayData):
        data.sharding = placement.replicated
        if jax.process_count() > 1:
            data.device_resident = False


def _shapes(batch) -> list:
    return [np.shape(a) for a in jax.tree_util.tree_leaves(batch)]


def _blocks(batches, k):
    """Group padded host batches into stacked blocks of ``k`` (1s where fewer batches of
    one shape come in a row: an unpadded last batch, or sequences of another length)."""
    pending = []
    for batch, real in batches:
        if pending and _shapes(batch) != _shapes(pending[0]):
            yield from ((data_lib.stack([b]), 1) for b in pending)
            pending = []
        pending.append(batch)
        if len(pending) == k:
            yield data_lib.stack(pending), k
            pending = []
    for batch in pending:  # the remainder runs one step at a time (one extra compile)
        yield data_lib.stack([batch]), 1


def _asked_to_stop(model, flag) -> bool:
    """Whether a callback set ``model.<flag>`` (``stop_evaluating``, ``stop_predicting``)."""
    return model is not None and bool(getattr(model, flag, False))


def evaluate_data(trainer, train_state, data, callbacks=None, model=None,
                  steps_per_execution=1):
    """``(logs, state)``: mean loss and metrics over ``data`` (padded batches; one compiled
    program), and the state the model assigned while evaluating, carried from batch to
    batch (a stateful RNN's states), or None if it assigned none.

    In-memory data runs as one device call (a scan over its batches) unless a callback
    needs every batch; the progress bar then just sees the last one. A callback setting
    ``model.stop_evaluating`` ends the loop after its batch (as Keras). Batch hooks come
    once per execution of ``steps_per_execution`` batches, as Keras calls them.
    """
    metrics = trainer.init_metrics()
    # evaluation reads the weights and the key only: fit's validation and evaluate share
    # one compiled program
    train_state = train_state._replace(opt_state=(), metrics=None)
    _place_resident(trainer, data)
    clock = HookClock(callbacks, "test")
    hooks = Executions(steps_per_execution, clock,
                       callbacks.on_test_batch_begin if callbacks is not None else None,
                       lambda step: _batch_end(callbacks.on_test_batch_end, step,
                                               trainer.results, metrics))
    count, assigned = 0, None
    if isinstance(data, data_lib.ArrayData) and data.device_resident:
        device_data, index, valid = data.device_epoch()
        per_batch = clock.interval == 0.0
        exact_last = data.exact_last  # then the last batch runs apart, unpadded
        indexed = data.steps - 1 if exact_last else data.steps
        spans = ([(i, 1) for i in range(data.steps)] if per_batch else
                 [(0, indexed)] * (indexed > 0) + [(indexed, 1)] * exact_last)
        for start, steps in spans:
            if per_batch:
                hooks.begin(start)
            if start >= indexed:
                metrics, new = trainer.eval_batch(train_state, metrics,
                                                  _on_devices(trainer, data.last_batch()[0]))
            else:
                metrics, new = trainer.eval_indexed(
                    train_state, metrics, device_data, index, valid,
                    jnp.asarray(start, jnp.int32), jnp.asarray(start + steps, jnp.int32))
            if new is not None:
                train_state, assigned = train_state._replace(state=new), new
            if per_batch:
                hooks.end(start)
            elif clock.interval is not None and start + steps == data.steps:
                _batch_end(callbacks.on_test_batch_end, start + steps - 1, trainer.results,
                           metrics)
            count = start + steps
            if _asked_to_stop(model, "stop_evaluating"):
                break
    else:
        batches = data.host_batches() if isinstance(data, data_lib.ArrayData) else data.epoch()
        for i, (batch, _) in enumerate(data_lib.prefetch_to_device(
                batches, place=_placer(trainer))):
            hooks.begin(i)
            metrics, new = trainer.eval_batch(train_state, metrics, batch)
            if new is not None:
                train_state, assigned = train_state._replace(state=new), new
            hooks.end(i)
            count = i + 1
            if _asked_to_stop(model, "stop_evaluating"):
                break
    hooks.close(count - 1)
    if count == 0:
        raise ValueError("No data to evaluate: the data produced no batches.")
    return _epoch_logs(trainer, metrics), assigned


def predict_data(trainer, train_state, data, callbacks=None, model=None,
                 steps_per_execution=1):
    """``(outputs, state)``: model outputs for every sample of ``data`` as NumPy arrays,
    and the state the model assigned while predicting, carried from batch to batch (a
    stateful RNN's states), or None if it assigned none. A callback setting
    ``model.stop_predicting`` ends the loop after its batch (as Keras). Batch hooks come
    once per execution of ``steps_per_execution`` batches, as Keras calls them."""
    clock = HookClock(callbacks, "predict")
    outputs = {}
    hooks = Executions(steps_per_execution, clock,
                       callbacks.on_predict_batch_begin if callbacks is not None else None,
                       lambda step: callbacks.on_predict_batch_end(step, dict(outputs)))
    _place_resident(trainer, data, losses=False)
    if isinstance(data, data_lib.ArrayData) and data.device_resident and clock.interval != 0.0:
        (x_dev, _, _), index, valid = data.device_epoch()
        stacked, assigned = trainer.predict_indexed(train_state, x_dev, index, valid,
                                                    np.int32(data.steps))
        if clock.interval is not None:
            callbacks.on_predict_batch_end(data.steps - 1, {"outputs": stacked})
        return jax.tree_util.tree_map(
            lambda a: np.asarray(a).reshape((-1, *a.shape[2:]))[:data.size], stacked), assigned
    batches = data.host_batches() if isinstance(data, data_lib.ArrayData) else data.epoch()
    pieces, assigned = [], None
    for i, ((x, _y, _w, valid), real) in enumerate(data_lib.prefetch_to_device(
            batches, place=_placer(trainer))):
        hooks.begin(i)
        out, new = trainer.predict_batch(train_state, x, valid)
        if new is not None:
            train_state, assigned = train_state._replace(state=new), new
        out = trainer.placement.local_rows(out)
        pieces.append(jax.tree_util.tree_map(lambda a, r=real: np.asarray(a[:r]), out))
        outputs["outputs"] = out  # (the end hook's logs: the execution's last outputs)
        hooks.end(i)
        if _asked_to_stop(model, "stop_predicting"):
            break
    hooks.close(len(pieces) - 1)
    if not pieces:
        raise ValueError("No data to predict: the data produced no batches.")
    return jax.tree_util.tree_map(lambda *parts: np.concatenate(parts), *pieces), assigned
