"""Orbax checkpoint folders as Keras 3's ``OrbaxCheckpoint`` writes them, and reading them.

A checkpoint folder holds one sub-folder per step (``0``, ``1``...), each with the
checkpointables ``pytree`` (the model's ``get_state_tree``), ``model_config`` (``{"config":
the model's config as JSON}``, absent under ``save_weights_only``) and, for models with
assets, ``assets``. ``load_model(folder)`` rebuilds the model of the latest step from its
config as ``.keras`` files are rebuilt (closed registries, no code run from the file), then
sets its state tree; ``load_weights(model, folder)`` sets the state tree of a step folder,
or of the latest step of a checkpoint folder. Orbax is imported on first use.

>>> import os, tempfile
>>> is_orbax_checkpoint(tempfile.mkdtemp())
False
"""

from __future__ import annotations

import json
import os

from kgraph.saving import compile_config, keras_dialect, state_tree, validation
from kgraph.saving.errors import LoadError
from kgraph.saving.layer_config import deserialize_layer

__all__ = ["checkpoint_step_path", "is_orbax_checkpoint", "load_model", "load_weights", "ocp",
           "orbax_multihost"]

# Keras's markers, and the metadata file of a step folder (which Keras does not take)
_MARKERS = {"orbax.checkpoint", "pytree.orbax-checkpoint", "checkpoint_metadata",
            "_CHECKPOINT_METADATA"}


def ocp():
    """Orbax's checkpoint API v1 (``orbax.checkpoint.v1``), imported on first use."""
    try:
        import orbax.checkpoint  # heavy: kept out of ``import kgraph``
    except ImportError:
        raise ImportError("OrbaxCheckpoint requires the 'orbax-checkpoint' package. You can "
                          "install it via pip install orbax-checkpoint") from None
    return orbax.checkpoint.v1


def orbax_multihost():
    """``orbax.checkpoint.multihost`` (process coordination), imported on first use."""
    import orbax.checkpoint  # heavy: kept out of ``import kgraph``
    return orbax.checkpoint.multihost


def is_orbax_checkpoint(filepath) -> bool:
    """Whether ``filepath`` is an Orbax checkpoint folder (or one of its step folders), as
    Keras tells them: Orbax's marker files, or numbered step folders."""
    path = os.fspath(filepath)
    if not os.path.isdir(path):
        return False
    try:
        contents = os.listdir(path)
    except OSError:
        return False
    if not _MARKERS.isdisjoint(contents):
        return True
    return any(".orbax-checkpoint-tmp" in item or (item.isdigit() and os.path.isdir(
        os.path.join(path, item))) for item in contents)


def _steps(path) -> list:
    return [item for item in os.listdir(path)
            if item.isdigit() and os.path.isdir(os.path.join(path, item))]


def checkpoint_step_path(filepath) -> str:
    """The folder of the latest finished step of checkpoint folder ``filepath``, or
    ``filepath`` itself when it is a step folder."""
    path = os.fspath(filepath)
    if not _steps(path):
        return path
    latest = ocp().training.Checkpointer(directory=os.path.abspath(path)).latest
    if latest is None:
        raise LoadError(f"No valid checkpoints found in {path}")
    return os.path.join(path, str(latest.step))


def _load(step_path, names, where) -> dict:
    """The checkpointables ``names`` of step folder ``step_path`` (arrays as saved)."""
    api = ocp()
    saved = set(api.checkpointables_metadata(step_path).metadata)
    if "assets" in saved:
        raise LoadError(f"{where}: the checkpoint holds assets (vocabularies and the like), "
                        "which kgraph does not read yet.")
    absent = [name for name in names if name not in saved]
    if absent:
        raise LoadError(f"{where}: the checkpoint has no {absent[0]!r} (it holds "
                        f"{sorted(saved)})." + (
                            " This checkpoint may have been saved with "
                            "save_weights_only=True." if "model_config" in absent else ""))
    with api.Context():
        return api.load_checkpointables(step_path, {name: None for name in names})


def _state(loaded, where) -> dict:
    tree = loaded.get("pytree")
    if not isinstance(tree, dict):
        raise LoadError(f"{where}: the checkpoint's pytree is not a dict of groups.")
    unknown = sorted(set(tree) - set(state_tree.GROUPS))
    if unknown:
        raise LoadError(f"{where}: the checkpoint's pytree has unknown groups {unknown}.")
    return tree


def load_weights(model, filepath) -> None:
    """Set ``model``'s state tree (weights, and the optimizer's state when it is compiled)
    from an Orbax checkpoint folder's latest step, or from one step folder."""
    where = os.fspath(filepath)
    step_path = os.path.abspath(checkpoint_step_path(where))
    model.set_state_tree(_state(_load(step_path, ["pytree"], where), where))


def _config(loaded, where) -> dict:
    holder = loaded.get("model_config")
    text = holder.get("config") if isinstance(holder, dict) else None
    if not isinstance(text, str):
        raise LoadError(f"{where}: the checkpoint's model_config holds no config string.")
    validation.check_json_depth(text)
    try:
        config = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise LoadError(f"{where}: the checkpoint's model config is not valid JSON "
                        f"({err}).") from None
    if not isinstance(config, dict):
        raise LoadError(f"{where}: the model config must be an object, found "
                        f"{type(config).__name__}.")
    return config


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The model of an Orbax checkpoint folder's latest step: rebuilt from its config (as
    ``kgraph.saving.load_model`` rebuilds ``.keras`` files), compiled from its training
    configuration when ``compile``, then given the step's weights and optimizer state."""
    where = os.fspath(filepath)
    step_path = os.path.abspath(checkpoint_step_path(where))
    config = _config(_load(step_path, ["model_config"], where), where)
    validation.check_no_file_references(config)
    model = deserialize_layer(keras_dialect.from_keras(config), custom_objects=custom_objects,
                              safe_mode=safe_mode)
    if not getattr(model, "built", False):
        raise LoadError(f"{where}: the checkpoint's model is not built by its config.")
    if compile and "compile_config" in config:  # first, so the optimizer state loads
        compile_config.compile_loaded(model, config["compile_config"], custom_objects)
    model.set_state_tree(_state(_load(step_path, ["pytree"], where), where))
    return model
