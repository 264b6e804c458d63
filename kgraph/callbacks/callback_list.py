"""``CallbackList``: the callbacks of one ``fit`` / ``evaluate`` / ``predict`` run, called as one.

The loop drives it like Keras's: ``on_train_begin``, then per epoch ``on_epoch_begin``,
``on_train_batch_begin/end`` per batch (only if ``needs_batch_hooks("train")``), the
validation pass as ``on_test_*``, ``on_epoch_end`` with float logs, and ``on_train_end``.

>>> from kgraph.callbacks import EarlyStopping
>>> callbacks = CallbackList([EarlyStopping(monitor="loss")], verbose=0, epochs=3, steps=10)
>>> [type(c).__name__ for c in callbacks], callbacks.needs_batch_logs
(['EarlyStopping', 'History'], False)
"""

from __future__ import annotations

from kgraph.callbacks.callback import BATCH_HOOKS, Callback
from kgraph.callbacks.history import History
from kgraph.callbacks.log_values import python_value
from kgraph.callbacks.progress import ProgressBar

__all__ = ["CallbackList"]


def _python_logs(logs) -> dict:
    """Epoch-level logs as a new dict of Python floats (arrays for metrics with several
    values; values that aren't numbers kept)."""
    return {name: python_value(value) for name, value in (logs or {}).items()}


def _check_callbacks(callbacks) -> list:
    if callbacks is None:
        return []
    if isinstance(callbacks, Callback):
        return [callbacks]
    callbacks = list(callbacks)
    for index, callback in enumerate(callbacks):
        if not isinstance(callback, Callback):
            hint = (" Keras's own callbacks drive Keras models; use the same-named classes "
                    "from kgraph.callbacks." if type(callback).__module__.startswith("keras")
                    else "")
            raise TypeError(f"callbacks[{index}] must be a kgraph.callbacks.Callback, "
                            f"received {type(callback).__name__}.{hint}")
    return callbacks


class CallbackList:
    """User callbacks plus a ``History`` and a ``ProgressBar``, each hook forwarded to all.

    Args:
      callbacks: a list of ``Callback`` (or one, or None).
      model: the model, given to each callback (``set_model``); its ``history``
        attribute is set to the ``History``.
      loop: the running loop, given to each callback (``set_loop``).
      add_history: add a ``History`` unless ``callbacks`` has one.
      add_progbar: add a ``ProgressBar`` unless ``callbacks`` has one or ``verbose`` is 0.
      verbose, epochs, steps: the params every callback receives (``set_params``);
        ``steps`` is the number of batches per epoch, None if unknown.

    Epoch-level hooks get a new dict of floats, shared by all callbacks of that call (so
    ``ReduceLROnPlateau``'s ``learning_rate`` reaches ``History``); batch hooks get the
    loop's dict of device arrays unchanged.
    """

    def __init__(self, callbacks=None, *, model=None, loop=None, add_history=True,
                 add_progbar=True, verbose=1, epochs=1, steps=None):
        self.callbacks = _check_callbacks(callbacks)
        self.history = next((c for c in self.callbacks if isinstance(c, History)), None)
        if self.history is None and add_history:
            self.history = History()
            self.callbacks.append(self.history)
        self.progress = next((c for c in self.callbacks if isinstance(c, ProgressBar)), None)
        if self.progress is None and add_progbar and verbose != 0:
            self.progress = ProgressBar()
            self.callbacks.append(self.progress)
        # Checkpointing callbacks run after the others, so that what they save includes
        # the others' updates of the same epoch or batch (the History's last row too).
        self.callbacks.sort(key=lambda c: bool(getattr(c, "runs_last", False)))
        self.model = model
        self.loop = loop
        self.params = {"epochs": epochs, "steps": steps, "verbose": verbose}
        for callback in self.callbacks:
            callback.set_model(model)
            callback.set_loop(loop)
            callback.set_params(self.params)
        if model is not None and self.history is not None:
            model.history = self.history

    def __iter__(self):
        return iter(self.callbacks)

    def __len__(self):
        return len(self.callbacks)

    def append(self, callback: Callback) -> None:
        """Add ``callback``, giving it this list's model, loop and params."""
        (callback,) = _check_callbacks([callback])
        callback.set_model(self.model)
        callback.set_loop(self.loop)
        callback.set_params(self.params)
        self.callbacks.append(callback)

    # -------------------------------------------------------- what the loop asks
    def needs_batch_hooks(self, mode: str = "train") -> bool:
        """Whether some callback overrides a batch hook of ``mode`` (train, test, predict)."""
        return any(c.uses_batch_hooks(mode) for c in self.callbacks)

    @property
    def needs_batch_logs(self) -> bool:
        """Whether any batch hook of any mode is overridden; if not, skip per-batch work."""
        return any(self.needs_batch_hooks(mode) for mode in BATCH_HOOKS)

    def batch_hook_interval(self, mode: str = "train") -> float | None:
        """Seconds the loop may let pass between batch hooks of ``mode``.

        None when no callback needs them, 0.0 when one needs every batch. With a
        positive interval the loop calls the hooks for the first batch it reaches after
        each interval (and may always call them more often).
        """
        intervals = [c.batch_hook_interval for c in self.callbacks if c.uses_batch_hooks(mode)]
        return min(intervals) if intervals else None

    # -------------------------------------------------------------------- fit
    def on_train_begin(self, logs=None):
        logs = _python_logs(logs)
        for callback in self.callbacks:
            callback.on_train_begin(logs)

    def on_train_end(self, logs=None):
        logs = _python_logs(logs)
        for callback in self.callbacks:
            callback.on_train_end(logs)

    def on_run_exit(self):
        """Every callback's ``on_run_exit``, even if one raises (the first error is
        raised after all ran)."""
        error = None
        for callback in self.callbacks:
            try:
                callback.on_run_exit()
            except Exception as exc:  # noqa: BLE001 - re-raised below
                error = error or exc
        if error is not None:
            raise error

    def on_epoch_begin(self, epoch, logs=None):
        logs = _python_logs(logs)
        for callback in self.callbacks:
            callback.on_epoch_begin(epoch, logs)

    def on_epoch_end(self, epoch, logs=None):
        logs = _python_logs(logs)
        for callback in self.callbacks:
            callback.on_epoch_end(epoch, logs)

    def on_train_batch_begin(self, batch, logs=None):
        logs = {} if logs is None else logs  # Keras passes a dict, even an empty one
        for callback in self.callbacks:
            callback.on_train_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        logs = {} if logs is None else logs  # Keras passes a dict, even an empty one
        for callback in self.callbacks:
            callback.on_train_batch_end(batch, logs=logs)

    # --------------------------------------------------------------- evaluate
    def on_test_begin(self, logs=None):
        logs = _python_logs(logs)
        for callback in self.callbacks:
            callback.on_test_begin(logs)

    def on_test_end(self, logs=None):
        logs = _python_logs(logs)
        for callback in self.callbacks:
            callback.on_test_end(logs)

    def on_test_batch_begin(self, batch, logs=None):
        logs = {} if logs is None else logs  # Keras passes a dict, even an empty one
        for callback in self.callbacks:
            callback.on_test_batch_begin(batch, logs=logs)

    def on_test_batch_end(self, batch, logs=None):
        logs = {} if logs is None else logs  # Keras passes a dict, even an empty one
        for callback in self.callbacks:
            callback.on_test_batch_end(batch, logs=logs)

    # ---------------------------------------------------------------- predict
    def on_predict_begin(self, logs=None):
        logs = _python_logs(logs)
        for callback in self.callbacks:
            callback.on_predict_begin(logs)

    def on_predict_end(self, logs=None):
        logs = _python_logs(logs)
        for callback in self.callbacks:
            callback.on_predict_end(logs)

    def on_predict_batch_begin(self, batch, logs=None):
        logs = {} if logs is None else logs  # Keras passes a dict, even an empty one
        for callback in self.callbacks:
            callback.on_predict_batch_begin(batch, logs=logs)

    def on_predict_batch_end(self, batch, logs=None):
        logs = {} if logs is None else logs  # Keras passes a dict, even an empty one
        for callback in self.callbacks:
            callback.on_predict_batch_end(batch, logs=logs)
