"""Keras's file functions as Keras calls them (``keras.saving.save_model``, ``load_model``,
``save_weights``, ``load_weights``, and the ``Model`` methods of the same names): their
arguments, defaults and argument errors, in Keras's words; the files themselves are
``keras_file``'s (``.keras`` files and folders, ``.weights.h5``, legacy ``.h5``).

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,))
>>> save_model(kg.Model(x, kg.layers.Dense(2)(x)), "model.png")
Traceback (most recent call last):
...
ValueError: Invalid filepath extension for saving. Please add either a `.keras` extension for the native Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if you want to export a SavedModel for use with TFLite/TFServing/etc. Received: filepath=model.png.
"""

from __future__ import annotations

import os
import warnings

from kgraph.saving import checkpoint_folders, keras_file

__all__ = ["load_model", "load_weights", "save_model", "save_weights"]


def _is_h5(path: str) -> bool:
    return path.endswith((".h5", ".hdf5"))


def save_model(model, filepath, overwrite=True, zipped=None, **kwargs) -> None:
    """Write ``model`` (config, weights, optimizer state) as Keras's ``save_model``: a
    ``.keras`` file, a folder of its files (``zipped=False``), or a legacy ``.h5`` file
    (``include_optimizer=False``: without the optimizer's variables)."""
    include_optimizer = kwargs.pop("include_optimizer", True)
    save_format = kwargs.pop("save_format", False)
    path = os.fspath(filepath)
    if save_format:
        if not (_is_h5(path) or path.endswith(".keras")):
            raise ValueError("The `save_format` argument is deprecated in Keras 3. Please "
                             "remove this argument and pass a file path with either "
                             f"`.keras` or `.h5` extension. Received: save_format={save_format}")
        warnings.warn("The `save_format` argument is deprecated in Keras 3. We recommend "
                      "removing this argument as it can be inferred from the file path. "
                      f"Received: save_format={save_format}", stacklevel=3)
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {list(kwargs)}")
    zipped = True if zipped is None else zipped
    if not zipped:
        if path.endswith(".keras"):
            raise ValueError("When using `zipped=False`, the `filepath` argument should not "
                             f"end in `.keras`. Received: filepath={path}")
    elif not (path.endswith(".keras") or _is_h5(path)):
        raise ValueError("Invalid filepath extension for saving. Please add either a "
                         "`.keras` extension for the native Keras format (recommended) or a "
                         "`.h5` extension. Use `model.export(filepath)` if you want to "
                         "export a SavedModel for use with TFLite/TFServing/etc. "
                         f"Received: filepath={path}.")
    keras_file.save_model(model, path, overwrite=overwrite, zipped=zipped,
                          include_optimizer=include_optimizer)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002
    """The model saved in ``filepath`` (see ``keras_file.load_model``): a ``.keras`` file
    or folder, a legacy ``.h5`` file, or an ``OrbaxCheckpoint`` folder."""
    path = os.fspath(filepath)
    readable = (os.path.isdir(path) or _is_h5(path)
                or (path.endswith(".keras") and os.path.isfile(path)))
    if not readable and not checkpoint_folders.is_orbax_checkpoint(path):
        if path.endswith(".keras"):
            raise ValueError(f"File not found: filepath={path}. Please ensure the file is an "
                             "accessible `.keras` zip file.")
        raise ValueError(f"File format not supported: filepath={path}. Keras 3 only "
                         "supports V3 `.keras` files, legacy H5 format files (`.h5` "
                         "extension) and model folders (saved with zipped=False).")
    return keras_file.load_model(path, custom_objects=custom_objects, compile=compile,
                                 safe_mode=safe_mode)


def save_weights(model, filepath, overwrite=True, max_shard_size=None, **kwargs) -> None:
    """Write ``model``'s weights to a ``.weights.h5`` file as Keras's ``save_weights``
    (sharded, with ``max_shard_size`` in GB: a ``.weights.json`` map and its shards);
    ``objects_to_skip`` leaves those layers' weights out."""
    objects_to_skip = kwargs.pop("objects_to_skip", None)
    if kwargs:
        raise ValueError(f"Invalid keyword arguments: {kwargs}")
    path = os.fspath(filepath)
    if max_shard_size is None and not path.endswith(".weights.h5"):
        raise ValueError(f"The filename must end in `.weights.h5`. Received: filepath={path}")
    if max_shard_size is not None and not path.endswith(("weights.h5", "weights.json")):
        raise ValueError("The filename must end in `.weights.json` when `max_shard_size` is "
                         f"specified. Received: filepath={path}")
    if max_shard_size is not None and path.endswith("weights.h5"):  # as Keras: renamed
        json_path = path[:-len(".h5")] + ".json"
        warnings.warn(f"Saving sharded weights requires `*.json` as the extension. The "
                      f"original path: {path} will be renamed to {json_path}.", stacklevel=2)
        path = json_path
    keras_file.save_weights(model, path, overwrite=overwrite, objects_to_skip=objects_to_skip,
                            max_shard_size=max_shard_size)


def load_weights(model, filepath, skip_mismatch=False, **kwargs) -> None:
    """Load weights into ``model`` as Keras's ``load_weights`` (see
    ``keras_file.load_weights``); ``objects_to_skip`` (``.weights.h5`` files) leaves
    those layers as they are."""
    objects_to_skip = kwargs.pop("objects_to_skip", None)
    by_name = kwargs.pop("by_name", None)
    if kwargs:
        raise ValueError(f"Invalid keyword arguments: {kwargs}")
    path = os.fspath(filepath)
    if objects_to_skip is not None and not path.endswith(".weights.h5"):
        raise ValueError("`objects_to_skip` only supports loading '.weights.h5' files."
                         f"Received: {path}")
    if by_name is not None:
        if not _is_h5(path) or path.endswith(".weights.h5"):
            raise ValueError("`by_name` only supports loading legacy '.h5' or '.hdf5' files. "
                             f"Received: {path}")
        if by_name:
            raise ValueError("by_name=True (matching a legacy .h5 file's weights by layer "
                             "name) is not supported; the file's layers are matched by "
                             "order.")
    keras_file.load_weights(model, path, skip_mismatch=skip_mismatch,
                            objects_to_skip=objects_to_skip)
