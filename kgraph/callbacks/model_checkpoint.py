"""``ModelCheckpoint``: save the model (or its weights) during ``fit``, as Keras 3 does.

Files are written atomically (a temporary file in the same folder, renamed when whole),
so a crash while saving leaves the previous file; and the best value seen is part of a
``BackupAndRestore`` backup, so a resumed run keeps only models that beat the whole
run's best, not just the best since the restart.
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from kgraph.callbacks.callback import check_save_freq
from kgraph.callbacks.monitor_callback import MonitorCallback
from kgraph.callbacks.log_values import scalar
from kgraph.utils import io_utils

__all__ = ["ModelCheckpoint"]


class ModelCheckpoint(MonitorCallback):
    """Save the model to ``filepath`` every epoch (or every ``save_freq`` batches).

    Args (as Keras 3):
      filepath: a ``.keras`` file (or a legacy ``.h5`` one; ``.weights.h5`` with
        ``save_weights_only``); may hold placeholders filled from the epoch (1-based), the
        batch (with an integer ``save_freq``) and the logs:
        ``"ckpt/{epoch:02d}-{val_loss:.2f}.keras"``.
      monitor: the logged value ``save_best_only`` compares.
      verbose: 1 prints a line per save.
      save_best_only: save only when ``monitor`` improves on the best so far (without
        placeholders, the file always holds the best model).
      save_weights_only: write ``model.save_weights`` instead of ``model.save``.
      mode: "auto", "min" or "max" (as ``EarlyStopping``).
      save_freq: "epoch" or a number of batches.
      initial_value_threshold: the value the first save must beat (``save_best_only``).

    >>> import os, tempfile, numpy as np, kgraph as kg
    >>> x = kg.Input(shape=(2,))
    >>> model = kg.Model(x, kg.layers.Dense(1)(x))
    >>> model.compile("sgd", "mse")
    >>> folder = tempfile.mkdtemp()
    >>> save = ModelCheckpoint(os.path.join(folder, "m{epoch}.weights.h5"),
    ...                        save_weights_only=True)
    >>> _ = model.fit(np.ones((8, 2)), np.zeros((8, 1)), epochs=2, callbacks=[save],
    ...               verbose=0)
    >>> sorted(os.listdir(folder))
    ['m1.weights.h5', 'm2.weights.h5']
    """

    _state_fields = ("best", "_saved_at")

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch",
                 initial_value_threshold=None):
        super().__init__(monitor, mode, baseline=initial_value_threshold)
        self.filepath = os.fspath(filepath)
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = check_save_freq("ModelCheckpoint", save_freq)
        self._current_epoch = 0
        self._saved_at = 0  # the global step of the last batch-level save
        if save_weights_only and not self.filepath.endswith(".weights.h5"):
            raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the "
                             "filepath provided must end in `.weights.h5` (Keras weights "
                             f"format). Received: filepath={self.filepath}")
        if not save_weights_only and not self.filepath.endswith((".keras", ".h5")):
            raise ValueError("The filepath provided must end in `.keras` (Keras model "
                             f"format) or `.h5`. Received: filepath={self.filepath}")

    def uses_batch_hooks(self, mode: str = "train") -> bool:
        return super().uses_batch_hooks(mode) and mode == "train" and (
            self.save_freq != "epoch")

    def on_train_begin(self, logs=None):
        if self.loop is None and self.save_freq != "epoch":
            raise RuntimeError(
                f"ModelCheckpoint(save_freq={self.save_freq}) saves mid-epoch weights from "
                "model.fit's loop; use it in model.fit(callbacks=[...]), or use "
                "save_freq='epoch'.")
        self._saved_at = self.loop.global_step if self.loop is not None else 0

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        if self.loop.global_step - self._saved_at >= self.save_freq:
            self._saved_at = self.loop.global_step
            self._save_model(self._current_epoch, batch, dict(logs or {}))

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save_model(epoch, None, logs or {})

    def _file_path(self, epoch, batch, logs) -> str:
        values = {name: value for name, value in logs.items() if np.ndim(value) == 0}
        if batch is not None and "batch" not in values:
            values["batch"] = batch + 1
        try:
            return self.filepath.format(epoch=epoch + 1, **values)
        except KeyError as error:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f"Reason: {error}; the logs have {sorted(logs)}.") from None

    def _should_save(self, epoch, logs, filepath) -> bool:
        if not self.save_best_only:
            if self.verbose > 0:
                io_utils.print_msg(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.",
                          stacklevel=3)
            return True
        current = scalar("ModelCheckpoint", self.monitor, current)
        best = "None" if self.best is None else f"{self.best:.5f}"
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                io_utils.print_msg(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to "
                                   f"{current:.5f}, saving model to {filepath}")
            self.best = current
            return True
        if self.verbose > 0:
            io_utils.print_msg(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
        return False

    def _save_model(self, epoch, batch, logs) -> None:
        filepath = self._file_path(epoch, batch, logs)
        if not self._should_save(epoch, logs, filepath):
            return
        if os.path.isdir(filepath):
            raise IsADirectoryError("Please specify a non-directory filepath for "
                                    f"ModelCheckpoint. Filepath used is an existing "
                                    f"directory: {filepath}")
        folder = os.path.dirname(filepath)
        if folder:
            os.makedirs(folder, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)
        if self.verbose > 0:
            io_utils.print_msg(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")
