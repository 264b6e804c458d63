"""``CheckpointManager``: train states and the loop's own state in a directory, on orbax.

Each checkpoint is one orbax step folder holding three items: ``train_state`` (the
``TrainState`` pytree: params, state, optimizer state, step, key, metrics), ``extras``
(arrays a loop keeps beside it, e.g. EarlyStopping's best weights) and ``meta`` (JSON:
the loop's state, the model's config hash and layer order, versions). orbax writes a
step to a temporary folder and renames it when complete, so a process killed while
saving leaves the previous checkpoints whole; steps are deleted by a rename into
``.deleted/`` first, so a kill during cleanup never leaves half a checkpoint under a step
name either. Saves can be asynchronous (``async_save``): ``save`` returns once the arrays
are copied off the device, the files are written in the background, the next ``save``
(and ``wait_until_finished``, ``close``) waits for them, and a failed write raises there.

>>> import os, tempfile, jax, optax, kgraph as kg
>>> from runtime import Trainer
>>> x = kg.Input(shape=(2,))
>>> model = kg.Model(x, kg.layers.Dense(1)(x))
>>> trainer = Trainer(model, optax.sgd(0.1), "mse")
>>> ts = trainer.init(jax.random.PRNGKey(0))
>>> with CheckpointManager(tempfile.mkdtemp(), model=model, max_to_keep=2) as checkpoints:
...     _ = checkpoints.save(7, ts, loop_state={"epoch": 3})
...     restored = checkpoints.restore(ts)
>>> restored.step, restored.loop_state, int(restored.train_state.step)
(7, {'epoch': 3}, 0)
"""

from __future__ import annotations

import os
import warnings
from typing import Any, NamedTuple

import jax
import numpy as np
from etils import epath

from compiler import stacking
from runtime import packing as packing_lib
from runtime.checkpoints import model_identity

__all__ = [
    "CheckpointManager", "CheckpointMismatchError", "FORMAT", "Restored", "absolute_path"
]


FORMAT = 1  # the layout of a checkpoint's meta item
_TRASH = ".deleted"


def _ocp():
    import orbax.checkpoint as ocp  # imported on first use: `import runtime` stays light

    return ocp


def _versions() -> dict:
    from importlib import metadata

    def version(name):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    return {"kgraph": version("kgraph"), "jax": jax.__version__,
            "orbax-checkpoint": version("orbax-checkpoint"), "format": FORMAT}


def absolute_path(directory) -> str:
    """``directory`` made absolute (``~`` expanded); remote URLs (``gs://``) as they are."""
    directory = os.fspath(directory)
    if "://" in directory:  # gs://, s3:// ... as they are
        return directory
    return os.path.abspath(os.path.expanduser(directory))


def _abstract(tree):
    """ShapeDtypeStructs (with shardings) of ``tree``'s arrays; abstract leaves kept."""
    def leaf(value):
        if isinstance(value, jax.ShapeDtypeStruct):
            return value
        if isinstance(value, jax.Array):
            return jax.ShapeDtypeStruct(value.shape, value.dtype, sharding=value.sharding)
        value = np.asarray(value)
        return jax.ShapeDtypeStruct(value.shape, value.dtype)

    return jax.tree_util.tree_map(leaf, tree)


def _unpacked(train_state):
    return train_state.unpack() if isinstance(train_state, packing_lib.Packed) else train_state


class CheckpointMismatchError(ValueError):
    """A checkpoint written for another model than the one restoring it."""


class Restored(NamedTuple):
    """What ``CheckpointManager.restore`` returns."""

    step: int
    train_state: Any
    loop_state: dict
    extras: Any


class CheckpointManager:
    """Save and restore ``TrainState``s with the loop's state (keep-N, keep-best, async).

    Args:
      directory: the checkpoint folder (made if missing; relative paths and ``~`` are
        made absolute now, so a later ``chdir`` does not move it).
      model: the model trained; its config hash and layer order are recorded, and a
        restore checks them (a checkpoint of another architecture is refused) and maps
        layer names, so a rebuilt model whose layers got other names restores too.
      max_to_keep: keep the newest N checkpoints (None: all).
      best_metric, best_mode: keep the ``max_to_keep`` best by ``metrics[best_metric]``
        passed to ``save`` ("min" or "max") instead of the newest.
      async_save: True writes in the background (``save`` returns after the
        device-to-host copy); False writes before ``save`` returns. None (default): in the
        background on accelerators; on the CPU backend, before returning, since there the
        write needs the cores the steps run on (measured on 2 cores: an async save of a
        1.2 GB state cost the loop 2.3x a synchronous one; ``benchmarks/bench_checkpoint.py``).
    """

    def __init__(self, directory, *, model=None, max_to_keep: int | None = None,
                 best_metric: str | None = None, best_mode: str = "min",
                 async_save: bool | None = None):
        if best_mode not in ("min", "max"):
            raise ValueError(f"best_mode must be 'min' or 'max', received {best_mode!r}.")
        if max_to_keep is not None and int(max_to_keep) < 1:
            raise ValueError(f"max_to_keep must be a positive integer or None, received "
                             f"{max_to_keep}.")
        ocp = _ocp()
        if async_save is None:
            async_save = jax.default_backend() != "cpu"
        self.async_save = bool(async_save)
        self.directory = absolute_path(directory)
        self.model = model
        self.best_metric = best_metric
        best_fn = None
        if best_metric is not None:
            def best_fn(metrics):
                return float(metrics[best_metric])
        options = ocp.CheckpointManagerOptions(
            max_to_keep=max_to_keep, best_fn=best_fn, best_mode=best_mode,
            keep_checkpoints_without_metrics=best_metric is None,
            enable_async_checkpointing=async_save, cleanup_tmp_directories=True,
            todelete_subdir=_TRASH)
        self._manager = ocp.CheckpointManager(
            self.directory, options=options, item_names=("train_state", "extras", "meta"))
        self._empty_trash()

    # -------------------------------------------------------------- queries
    def all_steps(self) -> list[int]:
        """The steps saved (finished ones), oldest first."""
        return sorted(self._manager.all_steps())

    def latest_step(self) -> int | None:
        return self._manager.latest_step()

    def best_step(self) -> int | None:
        """The step with the best ``best_metric`` (the latest without one)."""
        return self._manager.best_step()

    # ----------------------------------------------------------------- save
    def save(self, step: int, train_state, *, loop_state: dict | None = None,
             metrics: dict | None = None, extras=None) -> bool:
        """Checkpoint ``train_state`` (a ``TrainState``, packed or not) as ``step``.

        ``loop_state``: a JSON-able dict (epoch, position, callback states ...);
        ``metrics``: the values ``best_metric`` is read from; ``extras``: a pytree of
        arrays to keep alongside. Waits for the previous save first. Returns False if
        a checkpoint of ``step`` exists already (nothing is written).
        """
        ocp = _ocp()
        step = int(step)
        self._manager.wait_until_finished()
        self._empty_trash()
        if step in self._manager.all_steps():
            return False
        if self.best_metric is not None and (metrics is None or self.best_metric not in
                                             metrics):
            raise ValueError(f"This CheckpointManager keeps the best checkpoints by "
                             f"{self.best_metric!r}: pass metrics={{{self.best_metric!r}: "
                             f"value}} to save, received {metrics!r}.")
        meta = {"loop_state": dict(loop_state or {}), "versions": _versions(),
                "has_extras": extras is not None,
                "stacked_runs": _stacked_keys(_unpacked(train_state))}
        if self.model is not None:
            meta["config_hash"] = model_identity.config_hash(self.model)
            meta["layers"] = model_identity.layer_tree(self.model)
        items = dict(train_state=ocp.args.StandardSave(_unpacked(train_state)),
                     meta=ocp.args.JsonSave(meta))
        if extras is not None:
            items["extras"] = ocp.args.StandardSave(extras)
        metrics = None if metrics is None else {k: float(v) for k, v in metrics.items()}
        return bool(self._manager.save(step, args=ocp.args.Composite(**items),
                                       metrics=metrics, force=True))

    # -------------------------------------------------------------- restore
    def restore(self, target, step: int | None = None) -> Restored:
        """The checkpoint of ``step`` (default: the latest), restored like ``target``.

        ``target`` is a ``TrainState`` (its arrays, or ``jax.ShapeDtypeStruct``s, give
        the structure, dtypes and shardings to restore to: build one with the same
        Trainer, e.g. ``trainer.init(key)``, or ``jax.eval_shape`` of it). Returns
        ``Restored(step, train_state, loop_state, extras)``. Without ``step``, a latest
        checkpoint that can't be read (damaged outside orbax's control) is reported and
        the one before it is tried.
        """
        self._manager.wait_until_finished()
        steps = self.all_steps()
        if not steps:
            raise FileNotFoundError(f"No checkpoint in {self.directory}.")
        if step is not None:
            if int(step) not in steps:
                raise FileNotFoundError(f"No checkpoint of step {step} in {self.directory}; "
                                        f"it has steps {steps}.")
            return self._restore(target, int(step))
        failures = []
        for candidate in reversed(steps):
            try:
                restored = self._restore(target, candidate)
            except CheckpointMismatchError:
                raise  # a checkpoint of another model: not damage
            except MemoryError:
                raise
            except Exception as error:  # noqa: BLE001 - damage of any kind: try the previous
                failures.append((candidate, error))
                continue
            for step_failed, error in failures:
                warnings.warn(f"Checkpoint step {step_failed} in {self.directory} can't be "
                              f"read ({type(error).__name__}: {error}); restored step "
                              f"{candidate}, the latest that can.", RuntimeWarning,
                              stacklevel=2)
            return restored
        raise failures[0][1]

    def _restore(self, target, step: int) -> Restored:
        ocp = _ocp()
        meta = self._manager.restore(step, args=ocp.args.Composite(
            meta=ocp.args.JsonRestore())).meta
        written = meta.get("versions", {}).get("format", FORMAT)
        if written > FORMAT:
            raise CheckpointMismatchError(
                f"Checkpoint step {step} in {self.directory} has layout {written}, written by "
                f"a newer kgraph ({meta['versions'].get('kgraph')}); this one reads layouts "
                f"up to {FORMAT}.")
        target = _unpacked(target)
        mapping = self._check_model(meta, step)
        saved, wanted = meta.get("stacked_runs"), _stacked_keys(target)
        if saved is not None and bool(saved) != bool(wanted):
            raise CheckpointMismatchError(
                f"Checkpoint step {step} in {self.directory} keeps repeated blocks "
                f"{'stacked (' + ', '.join(saved) + ')' if saved else 'one entry per layer'}, "
                f"and the train state to restore into "
                f"{'stacks them (' + ', '.join(wanted) + ')' if wanted else 'does not'}: "
                "restore with a Trainer of the same stack_blocks setting (its default "
                "follows the optimizer: see runtime.Trainer).")
        abstract = _abstract(target)
        if mapping is not None:
            abstract = model_identity.rename(abstract, model_identity.inverse(mapping))
        items = dict(train_state=ocp.args.StandardRestore(abstract))
        if meta.get("has_extras"):
            items["extras"] = ocp.args.StandardRestore()
        with warnings.catch_warnings():  # orbax: "sharding info not provided" for extras
            warnings.simplefilter("ignore", UserWarning)
            restored = self._manager.restore(step, args=ocp.args.Composite(**items))
        train_state = restored.train_state
        extras = restored.extras if meta.get("has_extras") else None
        if mapping is not None:
            train_state = model_identity.rename(train_state, mapping)
            extras = model_identity.rename(extras, mapping) if extras is not None else None
        if type(train_state) is not type(target):  # orbax rebuilds NamedTuples as given
            train_state = jax.tree_util.tree_unflatten(
                jax.tree_util.tree_structure(target), jax.tree_util.tree_leaves(train_state))
        return Restored(step, train_state, meta.get("loop_state", {}), extras)

    def _check_model(self, meta: dict, step: int):
        """The layer-name map from the checkpoint's model to ``self.model`` (None if the
        names agree); raises if the checkpoint holds another architecture."""
        if self.model is None or "config_hash" not in meta:
            return None
        where = f"Checkpoint step {step} in {self.directory}"
        current = model_identity.layer_tree(self.model)
        try:
            mapping = model_identity.renames(meta["layers"], current)
        except ValueError as error:
            raise CheckpointMismatchError(f"{where}: {error}") from None
        if meta["config_hash"] != model_identity.config_hash(self.model):
            raise CheckpointMismatchError(
                f"{where} was written for another configuration of model "
                f"{self.model.name!r} (config hash {meta['config_hash'][:12]}..., this "
                f"model's is {model_identity.config_hash(self.model)[:12]}...): same layers, "
                "other settings. Restore into the model it was written for, or use a new "
                "checkpoint directory.")
        return None if model_identity.is_identity(mapping) else mapping

    # ------------------------------------------------------------ lifecycle
    def wait_until_finished(self) -> None:
        """Wait for background writes; raises the error of one that failed."""
        self._manager.wait_until_finished()
        self._empty_trash()

    def delete_all(self) -> None:
        """Delete every checkpoint and the directory itself."""
        self.wait_until_finished()
        self._manager.close()
        path = epath.Path(self.directory)
        if path.exists():
            path.rmtree()

    def close(self) -> None:
        """Finish background writes and release orbax's threads."""
        try:
            self.wait_until_finished()
        finally:
            self._manager.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def _empty_trash(self) -> None:
        """Delete steps orbax renamed into ``.deleted/`` (whole or half-deleted)."""
        trash = epath.Path(self.directory) / _TRASH
        if not trash.is_dir():
            return
        for entry in trash.iterdir():
            try:
                entry.rmtree()
            except FileNotFoundError:  # removed meanwhile
                pass

    def __repr__(self) -> str:
        return f"CheckpointManager({self.directory!r}, steps={self.all_steps()})"


def _stacked_keys(train_state) -> list:
    """The stacked runs' keys (``"first..last"``, ``compiler.stacking``) of a train
    state's params."""
    return stacking.stacked_keys(getattr(train_state, "params", None))
