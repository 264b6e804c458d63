"""``Callback``: the base class of everything ``fit`` / ``evaluate`` / ``predict`` call back.

The hooks and their arguments are Keras 3's. A callback sees the model (``self.model``),
the running loop (``self.loop``: ``train_state``, ``learning_rate``, ``stop_training``,
``epoch``, ``global_step``) and the run's parameters (``self.params``: ``epochs``,
``steps``, ``verbose``).

Batch logs hold 0-d JAX arrays still on device (reading one with ``float`` waits for that
step); epoch logs hold Python floats. The base hooks do nothing, and the loop skips all
per-batch Python work when no callback overrides a batch hook, so override only the
hooks you need.

>>> class CountEpochs(Callback):
...     def __init__(self):
...         super().__init__()
...         self.count = 0
...     def on_epoch_end(self, epoch, logs=None):
...         self.count += 1
>>> counter = CountEpochs()
>>> counter.on_epoch_end(0, {"loss": 0.5})
>>> counter.count, counter.uses_batch_hooks("train")
(1, False)
"""

from __future__ import annotations

import numpy as np

__all__ = ["BATCH_HOOKS", "Callback", "check_save_freq"]


# The hooks that run once per batch, by mode. Keras's ``on_batch_begin/end`` are
# aliases that the default ``on_train_batch_begin/end`` call.
BATCH_HOOKS = {
    "train": ("on_train_batch_begin", "on_train_batch_end", "on_batch_begin", "on_batch_end"),
    "test": ("on_test_batch_begin", "on_test_batch_end"),
    "predict": ("on_predict_batch_begin", "on_predict_batch_end"),
}


class Callback:
    """Base class of training, evaluation and prediction callbacks (Keras 3 hooks).

    Attributes:
      model: the model being run (set by ``set_model``), or None.
      loop: the running loop (set by ``set_loop``), or None outside a loop.
      params: ``{"epochs": ..., "steps": ..., "verbose": ...}`` (set by ``set_params``).
      batch_hook_interval: seconds the loop may let pass between this callback's batch
        hooks (0.0: call them on every batch). Skipped batches are never replayed; a
        callback with a nonzero interval must only need the latest batch.
    """

    batch_hook_interval = 0.0
    _state_fields: tuple = ()  # the attributes ``get_state`` returns

    def __init__(self):
        self.model = None
        self.loop = None
        self.params = {}

    def set_model(self, model) -> None:
        self.model = model

    @property
    def _model(self):
        """Keras's name for ``model`` (reading it syncs nothing: there is one state)."""
        return self.model

    @_model.setter
    def _model(self, model):
        self.model = model

    def set_loop(self, loop) -> None:
        self.loop = loop

    def set_params(self, params: dict) -> None:
        self.params = params

    # ------------------------------------------------------------ overrides
    def uses_batch_hooks(self, mode: str = "train") -> bool:
        """Whether this callback overrides a batch hook of ``mode`` ("train", "test",
        "predict"); hooks given as instance attributes (``LambdaCallback``) count."""
        if mode not in BATCH_HOOKS:
            raise ValueError(f"mode must be one of {sorted(BATCH_HOOKS)}, received {mode!r}.")
        return any(name in vars(self) or getattr(type(self), name) is not getattr(Callback, name)
                   for name in BATCH_HOOKS[mode])

    def _stop_training(self) -> None:
        """Ask the loop to stop after the current epoch (Keras's ``model.stop_training``)."""
        if self.model is not None:
            self.model.stop_training = True
        if self.loop is not None:
            self.loop.stop_training = True

    # ------------------------------------------------------------- checkpoints
    def get_state(self) -> dict | None:
        """What a resumed run needs of this callback (``BackupAndRestore`` saves it with
        the train state): a dict of JSON values and pytrees of arrays; None: nothing.
        By default, the attributes named in ``_state_fields``."""
        if not self._state_fields:
            return None
        return {name: getattr(self, name) for name in self._state_fields}

    def set_state(self, state: dict) -> None:
        """Take back what ``get_state`` gave (called after ``on_train_begin``)."""
        for name in self._state_fields:
            if name in state:
                setattr(self, name, state[name])

    def on_run_exit(self) -> None:
        """Called when ``fit`` ends, normally (after ``on_train_end``) or by an error."""

    # ---------------------------------------------------------------- hooks
    def on_train_begin(self, logs=None):
        """Called once at the start of ``fit``."""

    def on_train_end(self, logs=None):
        """Called once at the end of ``fit``, before the final weights reach the model."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of epoch ``epoch`` (0-based)."""

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of an epoch; ``logs`` has floats, ``val_*`` included."""

    def on_batch_begin(self, batch, logs=None):
        """Alias of ``on_train_batch_begin`` (kept for Keras compatibility)."""

    def on_batch_end(self, batch, logs=None):
        """Alias of ``on_train_batch_end`` (kept for Keras compatibility)."""

    def on_train_batch_begin(self, batch, logs=None):
        """Called before training batch ``batch`` (0-based within the epoch)."""
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        """Called after a training batch; ``logs`` holds running epoch means on device."""
        self.on_batch_end(batch, logs=logs)

    def on_test_begin(self, logs=None):
        """Called at the start of ``evaluate`` and of each validation pass."""

    def on_test_end(self, logs=None):
        """Called at the end of ``evaluate`` and of each validation pass."""

    def on_test_batch_begin(self, batch, logs=None):
        """Called before an evaluation batch."""

    def on_test_batch_end(self, batch, logs=None):
        """Called after an evaluation batch; ``logs`` holds running means on device."""

    def on_predict_begin(self, logs=None):
        """Called at the start of ``predict``."""

    def on_predict_end(self, logs=None):
        """Called at the end of ``predict``."""

    def on_predict_batch_begin(self, batch, logs=None):
        """Called before a prediction batch."""

    def on_predict_batch_end(self, batch, logs=None):
        """Called after a prediction batch."""


def check_save_freq(owner: str, save_freq):
    if save_freq == "epoch":
        return save_freq
    if isinstance(save_freq, bool) or not isinstance(save_freq, (int, np.integer)) or (
            save_freq < 1):
        raise ValueError(f"Invalid value for argument `save_freq` of {owner}. Unrecognized "
                         f"save_freq: {save_freq!r}. Expected either 'epoch' or a positive "
                         "integer value (a number of batches).")
    return int(save_freq)
