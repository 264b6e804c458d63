"""``OrbaxCheckpoint``: Keras 3's checkpoint callback on Orbax, writing Keras's layout.

Every save is one Orbax step folder under ``directory``: the model's state tree
(``Model.get_state_tree``; only the weights under ``save_weights_only``) as the checkpointable
``pytree`` and, for whole models, the model's Keras config as ``model_config``. The step is
the epoch index (``save_freq="epoch"``) or the number of batches trained (an integer
``save_freq``, counting on from ``optimizer.iterations`` of a resumed model). Orbax writes
each step atomically, in the background by default, and keeps the ``max_to_keep`` latest.
``kg.load_model(directory)`` and ``model.load_weights(directory)`` read the latest step;
Keras's ``load_model`` / ``load_weights`` read these folders too.
"""

from __future__ import annotations

import json
import os
import warnings

import jax
import jax.numpy as jnp

from kgraph.callbacks.callback import check_save_freq
from kgraph.callbacks.monitor_callback import MonitorCallback
from kgraph.saving import keras_file, checkpoint_folders
from kgraph.utils import io_utils

__all__ = ["OrbaxCheckpoint"]


class OrbaxCheckpoint(MonitorCallback):
    """Save the model's state (weights, optimizer and metrics variables, config) with Orbax.

    Args (as Keras 3):
      directory: the folder of the checkpoints (one sub-folder per step).
      monitor: the logged value ``save_best_only`` compares.
      verbose: 0 or 1.
      save_best_only: save only when ``monitor`` improves on the best so far.
      mode: "auto", "min" or "max".
      save_freq: "epoch" or a number of batches.
      initial_value_threshold: the value the first save must beat (``save_best_only``).
      max_to_keep: how many of the latest steps to keep (None: all).
      save_on_background: write asynchronously while training goes on.
      save_weights_only: save the trainable and non-trainable variables only.

    >>> import os, tempfile, numpy as np, kgraph as kg
    >>> x = kg.Input(shape=(2,))
    >>> model = kg.Model(x, kg.layers.Dense(1)(x))
    >>> model.compile("sgd", "mse")
    >>> folder = os.path.join(tempfile.mkdtemp(), "ckpt")
    >>> save = OrbaxCheckpoint(folder, max_to_keep=2)
    >>> _ = model.fit(np.ones((8, 2)), np.zeros((8, 1)), epochs=3, callbacks=[save], verbose=0)
    >>> sorted(os.listdir(folder))
    ['1', '2']
    >>> restored = kg.load_model(folder)
    >>> np.allclose(restored.predict(np.ones((1, 2)), verbose=0),
    ...             model.predict(np.ones((1, 2)), verbose=0))
    True
    """

    def __init__(self, directory, monitor="val_loss", verbose=0, save_best_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None, max_to_keep=1,
                 save_on_background=True, save_weights_only=False):
        self._api = checkpoint_folders.ocp()  # fails here when orbax is missing
        super().__init__(monitor, mode, baseline=initial_value_threshold)
        self.directory = directory
        self.verbose = verbose
        self.save_best_only = save_best_only
        try:
            self.save_freq = check_save_freq("OrbaxCheckpoint", save_freq)
        except ValueError:
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are "
                             "'epoch' or integer values") from None
        if max_to_keep is not None and (isinstance(max_to_keep, bool) or not isinstance(
                max_to_keep, int) or max_to_keep < 1):
            raise ValueError("OrbaxCheckpoint: max_to_keep must be a positive integer or "
                             f"None, received {max_to_keep!r}.")
        self.max_to_keep = max_to_keep
        self.save_on_background = save_on_background
        self.save_weights_only = save_weights_only
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = None
        self._total_batches_seen = 0  # the global batch count: the step of batch saves
        self._async_futures = []
        self._multihost_initialized = (
            checkpoint_folders.orbax_multihost().is_jax_distributed_client_initialized())
        self.checkpointer = self._new_checkpointer()

    def _new_checkpointer(self):
        training = self._api.training
        keep = (None if self.max_to_keep is None
                else training.preservation_policies.LatestN(self.max_to_keep))
        # save every step it is asked to: this callback decides when (Keras's choice)
        return training.Checkpointer(
            directory=os.path.abspath(os.fspath(self.directory)), preservation_policy=keep,
            save_decision_policy=training.save_decision_policies.FixedIntervalPolicy(1))

    def uses_batch_hooks(self, mode: str = "train") -> bool:
        return mode == "train" and self.save_freq != "epoch"

    def set_model(self, model) -> None:
        super().set_model(model)
        optimizer = getattr(model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "iterations"):
            # a reloaded model counts its batches on from its optimizer's
            self._total_batches_seen = int(optimizer.iterations)

    # ------------------------------------------------------------------ hosts
    def _sync_processes(self, key):
        if self._multihost_initialized:
            checkpoint_folders.orbax_multihost().sync_global_processes(key)

    def is_multihost_enabled(self) -> bool:
        """Whether JAX's distributed client runs (checkpoints coordinated over hosts)."""
        return self._multihost_initialized

    def is_primary_host(self) -> bool:
        """Whether this process is host 0 (always True on one host)."""
        if not self._multihost_initialized:
            return True
        return checkpoint_folders.orbax_multihost().is_primary_host(primary_host=0)

    # ------------------------------------------------------------------ saving
    def _should_save_on_batch(self, batch) -> bool:
        if self.save_freq == "epoch":
            return False
        if self._last_batch_seen is None or batch <= self._last_batch_seen:
            added = batch + 1  # a new epoch
        else:
            added = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += added
        self._last_batch_seen = batch
        self._total_batches_seen += added
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _improved(self, logs, where) -> bool:
        """``save_best_only``'s decision (updating ``best``); True without it."""
        if not self.save_best_only:
            return True
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available, "
                          f"skipping save at {where}.", stacklevel=3)
            return False
        if not self._is_improvement(current, self.best):
            return False
        self.best = float(current)
        return True

    def _payload(self) -> dict:
        tree = self.model.get_state_tree()
        if self.save_weights_only:
            tree = {k: tree[k] for k in ("trainable_variables", "non_trainable_variables")}
        # fresh buffers: the running train step donates the ones it holds
        payload = {"pytree": jax.tree_util.tree_map(lambda a: jnp.array(a, copy=True), tree)}
        if not self.save_weights_only:
            payload["model_config"] = {"config": json.dumps(keras_file.model_config(self.model))}
        return payload

    def _save_checkpoint(self, step) -> None:
        payload = self._payload()
        if self.checkpointer is None:  # closed at the end of an earlier fit
            self.checkpointer = self._new_checkpointer()
        if self.verbose > 0:
            io_utils.print_msg(f"\nOrbaxCheckpoint: saving step {step} to {self.directory}")
        with self._api.Context():
            if self.save_on_background:
                self._async_futures.append(
                    self.checkpointer.save_checkpointables_async(step, payload))
            else:
                self.checkpointer.save_checkpointables(step, payload)

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch) and self._improved(logs, f"batch {batch}"):
            self._save_checkpoint(self._total_batches_seen)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch" and self._improved(logs, f"epoch {epoch}"):
            self._save_checkpoint(epoch)

    def on_train_end(self, logs=None):
        self._close()

    def on_run_exit(self) -> None:
        self._close()  # also when fit stops on an error: no save left half-written

    def _close(self) -> None:
        if self.checkpointer is None:
            return
        try:
            self.wait_until_finished()
        finally:
            self.checkpointer.close()
            self.checkpointer = None
            self._sync_processes("checkpoint_cleanup")

    def wait_until_finished(self) -> None:
        """Block until every background save has been written (on every host); a failed
        save raises here."""
        futures, self._async_futures = self._async_futures, []
        for future in futures:
            future.result()
        if self.checkpointer is not None:
            self.checkpointer.wait()
        self._sync_processes("checkpoint_wait_complete")
