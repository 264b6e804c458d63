"""``BackupAndRestore``: a ``fit`` killed at any moment resumes exactly where it was.

What a backup holds (one ``CheckpointManager`` step): the whole train state (weights,
optimizer state, BatchNorm statistics, step number, PRNG key, the epoch's running
metrics) and the loop's state (epoch, step within it, global step, the data-order seed,
whether training was stopping) with every callback's ``get_state()`` (EarlyStopping's
best value, patience count and best weights, ReduceLROnPlateau's, ModelCheckpoint's best,
the History so far). The data order of an epoch is a function of the seeds, and step
``n``'s dropout key is ``fold_in(key, n)``, so the resumed run takes the same steps on
the same batches with the same keys: it ends bitwise where the uninterrupted run ends.
"""

from __future__ import annotations

import collections
import os
import warnings

import jax
import numpy as np

from kgraph.callbacks.callback import Callback, check_save_freq
from runtime.checkpoints.manager import CheckpointManager, absolute_path

__all__ = ["BackupAndRestore"]


def _has_arrays(value) -> bool:
    return any(isinstance(leaf, (jax.Array, np.ndarray))
               for leaf in jax.tree_util.tree_leaves(value))


def _jsonable(value):
    """``value`` with NumPy scalars as Python numbers and tuples as lists."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _listing(folder) -> list[str]:
    try:
        return os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []


class BackupAndRestore(Callback):
    """Back up the whole training state, and resume from it when ``fit`` runs again.

    If ``backup_dir`` holds a backup when ``fit`` starts, training continues from it:
    at its epoch and batch, with its weights, optimizer state, PRNG key, data order and
    callback states, ending bitwise equal to a run that was never interrupted. Backups
    are orbax checkpoints (``CheckpointManager``): written to a temporary folder and
    renamed when whole, so a process killed at any moment (also while saving) leaves the
    last complete backup.

    Args (as Keras 3):
      backup_dir: the folder for the backups (used by nothing else).
      save_freq: "epoch" (at each epoch end) or every N batches (at the first batch
        end after N batches; with ``steps_per_execution`` a multiple of it).
      double_checkpoint: keep the two latest backups; if the latest can't be read, the
        one before it is restored.
      delete_checkpoint: delete the backups when ``fit`` finishes.
      async_save: write backups in the background (see ``CheckpointManager``; default:
        on accelerators, not on the CPU backend).

    >>> import tempfile, numpy as np, kgraph as kg
    >>> x = kg.Input(shape=(2,))
    >>> model = kg.Model(x, kg.layers.Dense(1)(x))
    >>> model.compile("sgd", "mse")
    >>> backup = BackupAndRestore(tempfile.mkdtemp(), delete_checkpoint=False)
    >>> data = np.ones((8, 2)), np.zeros((8, 1))
    >>> _ = model.fit(*data, epochs=2, callbacks=[backup], verbose=0)
    >>> len(model.fit(*data, epochs=3, callbacks=[backup], verbose=0).history["loss"])
    3
    """

    runs_last = True  # saves after the other callbacks updated what it saves

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False,
                 delete_checkpoint=True, *, async_save=None):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        self.backup_dir = absolute_path(backup_dir)
        self.save_freq = check_save_freq("BackupAndRestore", save_freq)
        self.double_checkpoint = bool(double_checkpoint)
        self.delete_checkpoint = bool(delete_checkpoint)
        self.async_save = async_save
        self._manager = None
        self._resumed = None  # (train state, callback states) of a mid-epoch resume
        self._saves = 0  # the orbax step of the last backup
        self._saved_at = 0  # the global step of the last backup
        # Keras's counters: the epochs finished, and the last batch ended (0 at an epoch end)
        self._current_epoch = 0
        self._last_batch_seen = 0

    # Keras's paths of the latest backup's weights and training metadata, and of the one
    # before it (``double_checkpoint``): here, files of the backups' orbax steps (the
    # manifest of the saved train state, the JSON of the loop's state). A backup whose
    # files are damaged is skipped on restore for the one before it, as Keras's.
    def _step_file(self, back: int, *parts) -> str:
        steps = sorted(int(name) for name in _listing(self.backup_dir) if name.isdigit())
        step = str(steps[-1 - back]) if len(steps) > back else "none"
        return os.path.join(self.backup_dir, step, *parts)

    @property
    def _weights_path(self) -> str:
        return self._step_file(0, "train_state", "manifest.ocdbt")

    @property
    def _training_metadata_path(self) -> str:
        return self._step_file(0, "meta", "metadata")

    @property
    def _prev_weights_path(self) -> str:
        return self._step_file(1, "train_state", "manifest.ocdbt")

    @property
    def _prev_training_metadata_path(self) -> str:
        return self._step_file(1, "meta", "metadata")

    def uses_batch_hooks(self, mode: str = "train") -> bool:
        return super().uses_batch_hooks(mode) and mode == "train" and (
            self.save_freq != "epoch")

    def _checkpoints(self) -> CheckpointManager:
        if self._manager is None:
            self._manager = CheckpointManager(
                self.backup_dir, model=self.model,
                max_to_keep=2 if self.double_checkpoint else 1, async_save=self.async_save)
        return self._manager

    def _others(self):
        """The run's other stateful callbacks, keyed by class name (``_1``, ... when a
        class appears more than once)."""
        seen = collections.Counter()
        for callback in getattr(self.loop, "callbacks", None) or ():
            if callback is self:
                continue
            name = type(callback).__name__
            key = name if not seen[name] else f"{name}_{seen[name]}"
            seen[name] += 1
            yield key, callback

    # --------------------------------------------------------------- restore
    def on_train_begin(self, logs=None):
        loop = self.loop
        if loop is None or not getattr(loop, "resumable", False):
            raise RuntimeError("BackupAndRestore resumes model.fit's loop; use it in "
                               "model.fit(callbacks=[...]) (a custom train_step is not "
                               "supported: its steps carry Keras's state lists, which a "
                               "backup does not resume).")
        checkpoints = self._checkpoints()
        if checkpoints.latest_step() is None:
            self._saves, self._saved_at = 0, 0
            self._current_epoch = self._last_batch_seen = 0
            return
        metrics = loop.trainer.init_metrics()
        placement = getattr(loop.trainer, "placement", None)
        if getattr(placement, "mesh", None) is not None:  # restored where the steps expect
            # them: on the mesh
            metrics = jax.device_put(metrics, placement.replicated)
        target = loop.train_state._replace(metrics=metrics)
        restored = checkpoints.restore(target)
        state = restored.loop_state
        loop.resumed = True
        loop.global_step = self._saved_at = int(state["global_step"])
        loop.initial_epoch = int(state["epoch"])
        loop.initial_step = int(state["step_in_epoch"])
        self._current_epoch = loop.initial_epoch
        self._last_batch_seen = max(loop.initial_step - 1, 0)
        loop.data_seed = tuple(state["data_seed"])
        self._saves = max(checkpoints.all_steps())  # after a fallback too: numbers stay new
        if state.get("schedule", self._schedule()) != self._schedule():
            warnings.warn(
                f"Resuming from {self.backup_dir} with other settings than the run that "
                f"wrote it ({self._schedule()} now, {state['schedule']} then): training "
                "continues, but not exactly as the interrupted run would have.",
                RuntimeWarning, stacklevel=2)
        extras = restored.extras or {}
        states = {key: {**state["callbacks"].get(key, {}), **extras.get(key, {})}
                  for key in {*state["callbacks"], *extras}}
        self._resumed = (restored.train_state, states) if loop.initial_step else None
        self._apply(restored.train_state, states)
        if state.get("stop_training"):
            if loop.initial_step:  # stopped mid-epoch: that epoch ends without more steps
                loop.stop_training = True
            else:  # the run had ended: nothing is left to train
                warnings.warn(
                    f"The backup in {self.backup_dir} was made as training stopped (e.g. "
                    "EarlyStopping): there is nothing left to train. Delete the directory "
                    "(or use another one) to train again.", RuntimeWarning, stacklevel=2)
                loop.initial_epoch = max(loop.initial_epoch, self.params.get("epochs", 0))

    def _apply(self, train_state, states) -> None:
        self.loop.train_state = train_state
        for key, callback in self._others():
            if key in states:
                callback.set_state(dict(states[key]))

    def on_epoch_begin(self, epoch, logs=None):
        # A run resumed inside an epoch continues it: what the other callbacks' own
        # on_epoch_begin just changed (a LearningRateScheduler's rate, counters) is put
        # back as it was when the backup was made. (Runs after them: runs_last.)
        if self._resumed is not None:
            self._apply(*self._resumed)
            self._resumed = None

    def _schedule(self) -> dict:
        """What fixes the sequence of steps: batches per epoch, steps per dispatch."""
        setup = getattr(self.model, "_training_setup", None)
        return {"steps_per_epoch": self.params.get("steps"),
                "steps_per_execution": getattr(setup, "steps_per_execution", 1)}

    # ------------------------------------------------------------------ save
    def on_train_batch_end(self, batch, logs=None):
        self._last_batch_seen = batch
        if self.save_freq != "epoch" and (
                self.loop.global_step - self._saved_at >= self.save_freq):
            self._save(self.loop.epoch, self.loop.step_in_epoch)

    def on_epoch_end(self, epoch, logs=None):
        self._current_epoch, self._last_batch_seen = epoch + 1, 0
        if self.save_freq == "epoch":
            self._save(epoch + 1, 0)

    def _save(self, epoch: int, step_in_epoch: int) -> None:
        loop = self.loop
        callback_states, extras = {}, {}
        for key, callback in self._others():
            state = callback.get_state()
            if not state:
                continue
            arrays = {name: value for name, value in state.items() if _has_arrays(value)}
            callback_states[key] = _jsonable({name: value for name, value in state.items()
                                              if name not in arrays})
            if arrays:
                extras[key] = arrays
        loop_state = dict(epoch=epoch, step_in_epoch=step_in_epoch,
                          global_step=loop.global_step, data_seed=list(loop.data_seed),
                          stop_training=loop.stop_training, callbacks=callback_states,
                          schedule=self._schedule())
        self._saves += 1
        if not self._checkpoints().save(self._saves, loop.train_state, loop_state=loop_state,
                                        extras=extras or None):
            raise RuntimeError(f"Backup {self._saves} exists already in {self.backup_dir}; "
                               "is another run using this directory?")
        self._saved_at = loop.global_step

    # ------------------------------------------------------------------- end
    def on_train_end(self, logs=None):
        if self.delete_checkpoint:
            self._checkpoints().delete_all()
            self._manager = None

    def on_run_exit(self) -> None:
        if self._manager is not None:
            manager, self._manager = self._manager, None
            manager.close()  # waits for the last backup; raises if it failed
