"""Keras 3's standard callbacks, driving the loop instead of a Keras model.

``EarlyStopping``, ``ReduceLROnPlateau``, ``CSVLogger``, ``LambdaCallback`` and
``TerminateOnNaN`` take Keras's arguments and defaults and act as Keras's do, through
``self.loop``: they stop training with ``loop.stop_training`` (and
``model.stop_training``), keep and restore weights through ``loop.train_state`` and change
``loop.learning_rate``. This module also exports the protocol: ``Callback``,
``CallbackList``, ``History`` and ``ProgressBar`` (alias ``ProgbarLogger``).

>>> stop = EarlyStopping(monitor="val_loss", patience=1)
>>> stop.on_train_begin()
>>> for epoch, val_loss in enumerate([0.5, 0.4, 0.45]):
...     stop.on_epoch_end(epoch, {"val_loss": val_loss})
>>> stop.stopped_epoch, stop.best
(2, 0.4)
"""

from __future__ import annotations

import collections
import csv
import math
import os
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import optax

from kgraph.callbacks.callback import Callback
from kgraph.callbacks.callback_list import CallbackList
from kgraph.callbacks.history import History
from kgraph.callbacks.monitor_callback import MonitorCallback
from kgraph.callbacks.progress import ProgressBar
from kgraph.utils import io_utils

ProgbarLogger = ProgressBar

__all__ = ["CSVLogger", "Callback", "CallbackList", "EarlyStopping",
           "History", "LambdaCallback", "LearningRateScheduler", "MonitorCallback",
           "ProgbarLogger", "ProgressBar", "ReduceLROnPlateau",
           "SwapEMAWeights", "TerminateOnNaN"]

class EarlyStopping(MonitorCallback):
    """Stop training when ``monitor`` has stopped improving for ``patience`` epochs.

    Args (as Keras 3):
      monitor: the logged quantity to watch.
      min_delta: changes smaller than this are no improvement.
      patience: epochs without improvement before stopping.
      verbose: 1 prints when stopping and restoring.
      mode: "auto", "min" or "max".
      baseline: training stops if ``patience`` epochs pass without beating it.
      restore_best_weights: at the end of training, go back to the weights (params and
        state) of the best epoch; they are kept as device copies of the train state.
      start_from_epoch: epochs of warm-up before monitoring starts.

    Its progress (best value, epochs waited, best weights) is part of a
    ``BackupAndRestore`` checkpoint, so a resumed run stops when the whole run would.

    >>> stop = EarlyStopping(monitor="loss", patience=3)
    >>> stop._set_monitor_op()  # at the first epoch end, when the model's metrics exist
    >>> stop.monitor_op.__name__
    'less'
    """

    _state_fields = ("wait", "stopped_epoch", "best", "best_epoch", "best_weights")

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0):
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights = None
        self.best_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:  # now that the model's metrics exist
            self._set_monitor_op()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self._snapshot()
            # Only restart waiting when both the baseline and the best so far are beaten.
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self._stop_training()

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            io_utils.print_msg(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                io_utils.print_msg("Restoring model weights from the end of the best epoch: "
                                   f"{self.best_epoch + 1}.")
            self._restore(self.best_weights)

    def get_monitor_value(self, logs):
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(f"Early stopping conditioned on metric `{self.monitor}` which is not "
                          f"available. Available metrics are: {','.join(list(logs.keys()))}",
                          stacklevel=2)
        return value

    def _snapshot(self):
        """A copy of the current weights (the loop donates its train state's buffers)."""
        if self.loop is not None:
            train_state = self.loop.train_state
            return jax.tree_util.tree_map(jnp.copy, (train_state.params, train_state.state))
        if self.model is not None:
            return self.model.get_weights()
        raise RuntimeError("EarlyStopping(restore_best_weights=True) needs the training loop "
                           "or the model to copy weights from; received neither (pass it in "
                           "model.fit(callbacks=[...]) or call set_loop / set_model).")

    def _restore(self, weights) -> None:
        if self.loop is not None:
            params, state = weights
            self.loop.train_state = self.loop.train_state._replace(params=params, state=state)
        else:
            self.model.set_weights(weights)


def _optimizer_rate_holders(optimizer, loop=None) -> list:
    """Keras's log keys of ``optimizer``'s learning rates and what reads and sets each:
    ``learning_rate``, or ``learning_rate_<name>`` for each sub-optimizer of a
    ``MultiOptimizer`` (also within a ``LossScaleOptimizer``); in ``fit``, the running
    ``loop`` for a single rate. Empty if it has none."""
    inner = getattr(optimizer, "inner_optimizer", optimizer)
    if hasattr(inner, "optimizers"):
        return [(f"learning_rate_{each.name}", each) for each in inner.optimizers]
    if loop is not None:
        return [("learning_rate", loop)]
    if optimizer is not None and hasattr(optimizer, "learning_rate"):
        return [("learning_rate", optimizer)]
    return []


def _learning_rate_holders(callback) -> list:
    """What ``callback`` reads and sets the learning rates through (``_optimizer_rate_holders``
    of the running loop's optimizer in ``fit``, else of its model's)."""
    loop = callback.loop
    optimizer = (getattr(getattr(loop, "trainer", None), "optimizer", None) if loop is not None
                 else getattr(callback.model, "optimizer", None))
    holders = _optimizer_rate_holders(optimizer, loop)
    if holders:
        return holders
    raise RuntimeError(f"{type(callback).__name__} changes the learning rate of the training "
                       "loop or of its model's optimizer, but it has neither; use it in "
                       "model.fit(callbacks=[...]), or call set_model(model) with a compiled "
                       "model.")


def _rate(holder) -> float:
    return float(np.asarray(holder.learning_rate))


def _named(key) -> str:
    """How a verbose message names the rate of log key ``key``."""
    return "learning rate" if key == "learning_rate" else f"{key[14:]} learning rate"


class ReduceLROnPlateau(MonitorCallback):
    """Multiply the learning rate by ``factor`` when ``monitor`` stops improving.

    Acts on ``loop.learning_rate`` (outside ``fit``, on the model's optimizer), so the
    optimizer needs an injectable learning rate: a Keras optimizer with a float rate, or
    ``optax.inject_hyperparams(optax.adam)(learning_rate=1e-3)``. Adds the epoch's
    learning rate to the logs as ``learning_rate``, as Keras does.

    Args (as Keras 3):
      monitor: the logged quantity to watch.
      factor: ``new_lr = lr * factor`` (below 1).
      patience: epochs without improvement before reducing.
      verbose: 1 prints each reduction.
      mode: "auto", "min" or "max".
      min_delta: changes smaller than this are no improvement.
      cooldown: epochs to wait after a reduction before counting again.
      min_lr: the learning rate never goes below this.

    >>> reduce = ReduceLROnPlateau(factor=0.5, patience=2)
    >>> reduce._set_monitor_op()  # at the first epoch end: val_loss is minimized
    >>> reduce.min_delta
    -0.0001
    """

    _state_fields = ("best", "wait", "cooldown_counter")

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0.0, **kwargs):
        super().__init__(monitor, mode, min_delta=min_delta)
        if kwargs:
            raise TypeError(f"ReduceLROnPlateau got unexpected arguments {sorted(kwargs)}.")
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0. "
                             f"Received factor={factor}")
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def _reset(self):
        """Forget the last run's progress (each ``fit`` starts afresh, as Keras)."""
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()
        if self.loop is not None:  # fails now, not after an epoch, if it can't be changed
            for _, holder in _learning_rate_holders(self):
                _rate(holder)

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:  # now that the model's metrics exist
            self._set_monitor_op()
        holders = _learning_rate_holders(self)
        logs = logs if logs is not None else {}
        logs.update({key: _rate(holder) for key, holder in holders})
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn("Learning rate reduction is conditioned on metric "
                          f"`{self.monitor}` which is not available. Available metrics are: "
                          f"{','.join(list(logs.keys()))}.", stacklevel=2)
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                reduced = False
                for key, holder in holders:
                    old_lr = _rate(holder)
                    if old_lr > np.float32(self.min_lr):
                        new_lr = max(old_lr * self.factor, self.min_lr)
                        holder.learning_rate = new_lr
                        reduced = True
                        if self.verbose > 0:
                            io_utils.print_msg(f"\nEpoch {epoch + 1}: ReduceLROnPlateau "
                                               f"reducing {_named(key)} to {new_lr}.")
                if reduced:
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


class LearningRateScheduler(Callback):
    """Set the learning rate at each epoch start to ``schedule(epoch, lr)`` (or
    ``schedule(epoch)``), as Keras; adds ``learning_rate`` to the epoch logs.

    >>> LearningRateScheduler(lambda epoch: 0.1 * 0.5 ** epoch).schedule(2)
    0.025
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        for key, holder in _learning_rate_holders(self):
            try:
                learning_rate = self.schedule(epoch, _rate(holder))
            except TypeError:  # schedule(epoch), as Keras tries
                learning_rate = self.schedule(epoch)
            try:
                learning_rate = float(learning_rate)
            except (TypeError, ValueError):
                raise ValueError('The output of the "schedule" function should be a float. '
                                 f"Got: {learning_rate}") from None
            holder.learning_rate = learning_rate
            if self.verbose > 0:
                io_utils.print_msg(f"\nEpoch {epoch + 1}: LearningRateScheduler setting "
                                   f"{_named(key)} to {learning_rate}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs.update({key: _rate(holder) for key, holder in _learning_rate_holders(self)})


def _ema_optimizers(optimizer) -> list:
    """The optimizers whose moving averages ``SwapEMAWeights`` swaps in: ``optimizer``
    (within a ``LossScaleOptimizer``), or a ``MultiOptimizer``'s with ``use_ema``."""
    optimizer = getattr(optimizer, "inner_optimizer", optimizer)
    inner = getattr(optimizer, "optimizers", None)
    if inner is not None:
        chosen = [each for each in inner if each._config.get("use_ema")]
        if not chosen:
            raise ValueError("SwapEMAWeights must be used when at least one inner optimizer "
                             "has `use_ema=True` set. Received a MultiOptimizer with all "
                             "inner optimizers having `use_ema=False`.")
        return chosen
    use_ema = getattr(optimizer, "_config", {}).get("use_ema", False)
    if not use_ema:
        name = getattr(optimizer, "name", type(optimizer).__name__)
        raise ValueError("SwapEMAWeights must be used when `use_ema=True` is set on the "
                         f"optimizer. Received: use_ema={use_ema} (optimizer {name!r}).")
    return [optimizer]


def _averaged_weights(optimizer, model) -> list:
    """The weights whose moving averages ``optimizer._model_variables_moving_average``
    holds, in its order."""
    parent = getattr(optimizer, "_parent", None)
    if parent is not None:  # a MultiOptimizer's: the weights it trains
        return [variable for variable, _ in parent[0]._weights_of(parent[1])]
    return list(optimizer._built_variables if optimizer.built else model.trainable_weights)


class SwapEMAWeights(Callback):
    """Evaluate with the optimizers' moving averages of the weights (``use_ema=True``; of
    a ``MultiOptimizer``, each inner optimizer's that keeps one): the weights and their
    averages swap places for validation (and, with ``swap_on_epoch``, for the epoch-end
    callbacks after this one), and swap back before training continues (Keras's)."""

    def __init__(self, swap_on_epoch=False):
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _swap(self, finalize=False) -> None:
        """Swap the weights and their moving averages; ``finalize``: then the averages
        take the weights swapped in (fit ends on them, as Keras's last epoch)."""
        model = self.model if self.model is not None else getattr(self.loop, "model", None)
        optimizer = self.loop.trainer.optimizer if self.loop is not None else model.optimizer
        chosen = _ema_optimizers(optimizer)
        if self.loop is not None and len(chosen) == 1 and chosen[0] is getattr(
                optimizer, "inner_optimizer", optimizer):
            ts = self.loop.train_state  # one optimizer: its whole average at once
            average = optax.tree_utils.tree_get(ts.opt_state, "ema")
            opt_state = optax.tree_utils.tree_set(
                ts.opt_state, ema=average if finalize else ts.params)
            self.loop.train_state = ts._replace(params=average, opt_state=opt_state)
            return
        for each in chosen:
            averages = each._model_variables_moving_average
            for variable, average in zip(_averaged_weights(each, model), averages):
                value = np.asarray(variable.value)
                variable.assign(average.value)
                average.assign(variable.value if finalize else value)

    def _swap_in(self, finalize=False) -> None:
        if not self._ema_weights_in_model:
            self._swap(finalize)
            self._ema_weights_in_model = True

    def _swap_out(self) -> None:
        if self._ema_weights_in_model:
            self._swap()
            self._ema_weights_in_model = False

    def on_test_begin(self, logs=None):
        self._swap_in()

    def on_test_end(self, logs=None):
        self._swap_out()

    def on_epoch_begin(self, epoch, logs=None):
        if self.swap_on_epoch:
            self._swap_out()

    def on_epoch_end(self, epoch, logs=None):
        if self.swap_on_epoch:
            last = epoch == self.params.get("epochs", 0) - 1
            self._swap_in(finalize=last)

    def on_train_end(self, logs=None):
        self._ema_weights_in_model = False  # fit ends on the moving average (use_ema's)


class CSVLogger(Callback):
    """Write each epoch's logs as a row of a CSV file (Keras's format).

    The header is ``epoch`` then the first epoch's log names, sorted; when they have no
    ``val_`` names, a ``val_`` column per name is added (filled with ``NA``), as Keras.

    Args:
      filename: the file to write, e.g. ``"run/log.csv"``.
      separator: the field separator.
      append: append to an existing file (no second header) instead of overwriting.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
    >>> logger = CSVLogger(path)
    >>> logger.on_train_begin(); logger.on_epoch_end(0, {"loss": 0.5}); logger.on_train_end()
    >>> open(path).read().splitlines()
    ['epoch,loss,val_loss', '0,0.5,NA']
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as existing:
                    self.append_header = not bool(len(existing.readline()))
            mode = "a"
        else:
            mode = "w"
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode)
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs.keys())
            if self.keys and not any(key.startswith("val_") for key in self.keys):
                self.keys.extend([f"val_{key}" for key in self.keys])
        if not self.writer:
            dialect = type("CSVLoggerDialect", (csv.excel,), {"delimiter": self.sep})
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch", *self.keys],
                                         dialect=dialect)
            if self.append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((key, _csv_value(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None


def _csv_value(value):
    """Keras's cell format: strings and scalars as they are, sequences as "[a, b]"."""
    if isinstance(value, str):
        return value
    if isinstance(value, collections.abc.Iterable) and not (
            isinstance(value, np.ndarray) and value.ndim == 0):
        return f'"[{", ".join(map(str, value))}]"'
    return value


class LambdaCallback(Callback):
    """A callback made of functions, one per hook, called with the hook's arguments.

    ``on_epoch_begin/end(epoch, logs)``, ``on_train_begin/end(logs)``,
    ``on_train_batch_begin/end(batch, logs)``; any other hook by keyword
    (``on_test_end=fn``). Only the given hooks count as overridden, so the loop does
    per-batch work only if a batch hook is given. Other keywords become attributes, as in
    Keras, except names starting with ``on_`` that are no hook (a misspelt hook is an
    error, not a hook never called).

    >>> seen = []
    >>> callback = LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(logs["loss"]))
    >>> callback.on_epoch_end(0, {"loss": 0.5}); seen, callback.uses_batch_hooks("train")
    ([0.5], False)
    """

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None, on_train_batch_end=None,
                 **kwargs):
        super().__init__()
        hooks = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end,
                     on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end, **kwargs)
        known = sorted(name for name in vars(Callback) if name.startswith("on_"))
        for name, fn in hooks.items():
            if name not in known and name.startswith("on_"):  # a misspelt hook
                raise TypeError(f"LambdaCallback got an unknown hook {name!r}; expected "
                                f"one of {known}.")
            if name not in known:  # Keras keeps any other argument as an attribute
                setattr(self, name, fn)
            elif fn is not None:
                if not callable(fn):
                    raise TypeError(f"LambdaCallback's {name} must be callable, received "
                                    f"{type(fn).__name__}.")
                setattr(self, name, fn)


class TerminateOnNaN(Callback):
    """Stop training when the loss becomes NaN or infinite.

    Reads ``logs["loss"]`` after every training batch (which waits for that step) and
    prints ``Epoch 3, batch 12 (step 212): invalid loss nan, terminating training.``
    (batch within the epoch and step within this ``fit``, both 0-based). Training stops
    after the current epoch; with ``raise_error=True`` a ``RuntimeError`` is raised at
    once instead, skipping the other callbacks' ``on_train_end``.

    >>> TerminateOnNaN().uses_batch_hooks("train")
    True
    """

    _state_fields = ("_epoch", "_steps_before_epoch", "_batches_in_epoch", "_terminated")

    def __init__(self, raise_error: bool = False):
        super().__init__()
        self.raise_error = raise_error
        self._reset()

    def _reset(self):
        self._epoch = 0
        self._steps_before_epoch = 0
        self._batches_in_epoch = 0
        self._terminated = False

    def on_train_begin(self, logs=None):
        self._reset()

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch
        self._batches_in_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        self._steps_before_epoch += self._batches_in_epoch

    def on_train_batch_end(self, batch, logs=None):
        self._batches_in_epoch = max(self._batches_in_epoch, batch + 1)
        loss = (logs or {}).get("loss")
        if loss is None or self._terminated:
            return
        loss = float(loss)
        if math.isfinite(loss):
            return
        where = (f"Epoch {self._epoch + 1}, batch {batch} "
                 f"(step {self._steps_before_epoch + batch})")
        if self.raise_error:
            raise RuntimeError(f"NaN or Inf loss encountered: {where}. Loss value: {loss}. "
                               "Terminating training immediately.")
        io_utils.print_msg(f"{where}: invalid loss {loss}, terminating training.")
        self._terminated = True
        self._stop_training()
