"""``.keras`` model files and ``.weights.h5`` weights files, as Keras 3 writes them.

``save_model(model, "m.keras")`` writes the zip Keras 3 writes: ``metadata.json``,
``config.json`` (Keras's config, ``keras_dialect.to_keras``), ``model.weights.h5``
(``keras_layout``) and the layers' ``assets/`` (``assets``), atomically; weights alone go
to one ``.weights.h5`` file or, with ``max_shard_size``, to Keras's sharded files
(``sharded_weights``). ``load_model`` reads kgraph's and Keras's files as data:
the archive is checked (``archive``), the model is rebuilt from its config through the
closed class registries (``registry``; ``Lambda`` refused under ``safe_mode``), the bytes
its weights need are counted before anything is read, and the weights file must hold
exactly those weights (``h5_weights``). Nothing in a file is ever imported, evaluated or
unpickled, and no global setting changes.

>>> import os, tempfile, numpy as np, kgraph as kg
>>> x = kg.Input(shape=(3,), name="x")
>>> model = kg.Model(x, kg.layers.Dense(2, name="d")(x))
>>> path = os.path.join(tempfile.mkdtemp(), "m.keras")
>>> model.save(path)
>>> loaded = kg.load_model(path)
>>> all(np.array_equal(a, b) for a, b in zip(loaded.get_weights(), model.get_weights()))
True
"""

from __future__ import annotations

import datetime
import io
import json
import os
import tempfile
import warnings
import zipfile

import numpy as np

from kgraph.saving import (archive, assets, compile_config, h5_weights, keras_dialect,
                           keras_layout, legacy_h5, legacy_h5_save, checkpoint_folders,
                           sharded_weights, validation)
from kgraph.base import catalog
from kgraph.base.memory import available_memory, physical_memory
from kgraph.optimizers import keras_variables
from kgraph.saving.errors import LoadError
from kgraph.saving.layer_config import deserialize_layer, serialize_layer

__all__ = [
    "KERAS_FORMAT_VERSION", "load_model", "load_weights", "model_config",
    "register_file_loader", "save_model", "save_weights"
]


KERAS_FORMAT_VERSION = "3.15.1"  # the Keras release whose file format this follows
# The weights file is made in memory when its arrays take at most this fraction of the
# memory free, else through a temporary file (Keras's setting of the same name).
_MEMORY_UPPER_BOUND = 0.5
_H5_OVERHEAD = 1 << 20  # HDF5 superblock, groups and headers: bytes per file ...
_H5_PER_DATASET = 8 << 10  # ... and per dataset


def _check_model(model, what):
    if not catalog.is_instance(model, "Model"):
        raise TypeError(f"{what} expects a kgraph Model, received {type(model).__name__}.")
    if not model.built and catalog.is_instance(model, "Sequential") and model.layers:
        # A Sequential of layers built already (Keras saves it as it is): built on the input
        # shape its first layer was built for, its weights are those layers'.
        config = model.layers[0].get_build_config() if model.layers[0].built else None
        if config and config.get("input_shape") is not None:
            model.build(config["input_shape"])


def _check_built(model, what, doing="saving a model"):
    """As Keras: a model's weights are saved and loaded once it is built."""
    _check_model(model, what)
    if not model.built:
        raise ValueError(f'You are {doing} that has not yet been built: model "{model.name}" '
                         f"has no weights yet. Try building the model first by calling it on "
                         f"some data or by using `build()` (before {what}).")


def _optimizer_variables(model):
    """The module that writes and reads the optimizer's Keras variables when ``model`` is
    compiled, else None (a model that is not compiled has no optimizer state, as Keras)."""
    if getattr(getattr(model, "_training_setup", None), "config", None) is None:
        return None
    return keras_variables


def _weights_h5(model, skip=(), target=None):
    """The weights file's bytes (or, given ``target``, a path or file object, written
    there)."""
    buffer = io.BytesIO() if target is None else target
    h5_weights.write(buffer, _weight_arrays(model, skip))
    return buffer.getvalue() if target is None else None


def _weight_arrays(model, skip=()):
    """``[(path, name, [array, ...])]`` (``{key: array}`` for a layer saving under its own
    keys): what the weights file holds, in file order."""
    groups = []
    for group in keras_layout.weight_groups(model, skip=skip):
        store: dict = {}
        group.layer.save_own_variables(store)
        numbered = set(store) == {str(i) for i in range(len(store))}
        groups.append((group.path, group.name,
                       [store[str(i)] for i in range(len(store))] if numbered else store))
    optimizer_io = _optimizer_variables(model)
    optimizer = optimizer_io.model_variables(model) if optimizer_io is not None else None
    if optimizer is not None:  # a compiled model's optimizer state, as Keras writes it
        groups.append(("optimizer", *optimizer))
    return groups


def _weights_fit_in_memory(model) -> bool:
    """Whether the weights file may be made in memory: its arrays take at most
    ``_MEMORY_UPPER_BOUND`` of the memory free now (else it is written through a temporary
    file, as Keras does)."""
    needed = sum(h5_weights.nbytes(v.shape, v.dtype) for v in model.weights)
    return needed <= available_memory() * _MEMORY_UPPER_BOUND


def model_config(model) -> dict:
    """``model``'s config as Keras 3 writes it in ``config.json`` (with ``compile``'s
    choices as ``compile_config`` when the model is compiled)."""
    config = keras_dialect.to_keras(serialize_layer(model))
    training = compile_config.compile_config(model)
    if training is not None:
        config["compile_config"] = training
    return config


def save_model(model, filepath, overwrite=True, zipped=True, include_optimizer=True) -> None:
    """Write ``model`` to ``filepath`` as Keras 3 does, atomically: a ``.keras`` file, a
    folder of the same files (``zipped=False``), or (with Keras's warning that the format
    is legacy) an ``.h5`` / ``.hdf5`` model file (``include_optimizer=False``: without the
    optimizer's variables). ``filepath`` may also be a binary file object (``io.BytesIO``):
    the ``.keras`` zip is written into it."""
    _check_model(model, "save")
    if not model.built:  # its config alone, and the weights that exist (as Keras)
        warnings.warn("You are saving a model that has not yet been built. It might not "
                      "contain any weights yet. Consider building the model first by calling "
                      "it on some data.", stacklevel=4)
    if hasattr(filepath, "write"):
        _write_zip(model, filepath, tempfile.gettempdir())
        return
    filepath = os.fspath(filepath)
    if filepath.endswith((".h5", ".hdf5")) and not filepath.endswith(".weights.h5"):
        legacy_h5_save.save_model(model, filepath, model_config(model),
                                  KERAS_FORMAT_VERSION, overwrite,
                                  include_optimizer=include_optimizer)
        return
    if zipped and not filepath.endswith(".keras"):
        raise ValueError(f"The file name must end in .keras (Keras 3's format) or .h5 (the "
                         f"legacy one), received {filepath!r}; for weights only use "
                         "save_weights('*.weights.h5').")
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False.")
    if not zipped:
        _write_folder(filepath, {**_config_parts(model), archive.WEIGHTS: _weights_h5(model),
                                 **_assets(model)})
        return
    with archive.atomic_write(filepath) as file:
        _write_zip(model, file, os.path.dirname(os.path.abspath(filepath)))


def _config_parts(model) -> dict:
    """The ``.keras`` file's ``metadata.json`` and ``config.json``."""
    return {archive.METADATA: json.dumps({
                "keras_version": KERAS_FORMAT_VERSION,
                "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}),
            archive.CONFIG: json.dumps(model_config(model))}


def _write_zip(model, file, scratch) -> None:
    """The ``.keras`` zip of ``model`` into the binary file object ``file`` (a large model's
    weights go through a temporary file in the folder ``scratch``)."""
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as zf:
        for name, data in _config_parts(model).items():
            zf.writestr(name, data)
        if _weights_fit_in_memory(model):
            zf.writestr(archive.WEIGHTS, _weights_h5(model))
        else:  # a large model: its weights go to disk once, not to memory and disk
            with tempfile.TemporaryDirectory(dir=scratch) as folder:
                path = os.path.join(folder, archive.WEIGHTS)
                _weights_h5(model, target=path)
                zf.write(path, archive.WEIGHTS)
        for name, data in _assets(model).items():
            zf.writestr(name, data)


def _assets(model) -> dict:
    """The ``assets/...`` members the model's layers write (``save_assets``)."""
    return assets.layer_assets(model, keras_layout.weight_groups(model))


def _write_folder(folder, parts) -> None:
    """A model folder (``save_model(..., zipped=False)``): the ``.keras`` file's members as
    files, each written atomically."""
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise ValueError(f"{folder} exists and is not a folder; a model saved with "
                         "zipped=False is a folder.")
    os.makedirs(folder, exist_ok=True)
    for name, data in parts.items():
        os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
        with archive.atomic_write(os.path.join(folder, name)) as file:
            file.write(data.encode("utf-8") if isinstance(data, str) else data)


def _assign(groups, arrays, where):
    """Give each group its arrays; a group read as a ``Mismatch`` (``skip_mismatch``) keeps
    its weights, and Keras's warning lists them."""
    skipped = []
    for group, values in zip(groups, arrays):
        if isinstance(values, h5_weights.Mismatch):
            skipped.append((group.layer, values.reason))
        else:  # every layer, with or without weights of its own, as Keras
            keys = _own_keys(group.layer) or [str(i) for i in range(len(values))]
            group.layer.load_own_variables(dict(zip(keys, values)))
    if skipped:
        layer, reason = skipped[0]
        warnings.warn(f"{where}: a total of {len(skipped)} objects could not be loaded "
                      f"(skip_mismatch=True: they keep their weights). Example error message "
                      f"for object {layer}: {reason}. List of objects that could not be "
                      f"loaded: {[layer for layer, _ in skipped]}", stacklevel=5)


def _read_and_assign(model, groups, source, expected, where, skip_mismatch=False,
                     ignored=frozenset()):
    """Read the layers' weights (and, for a compiled model, the optimizer's variables,
    from which its next ``fit`` continues) and assign them; the file's groups at the
    paths ``ignored`` (skipped objects') are left unread."""
    optimizer_io = _optimizer_variables(model)
    if optimizer_io is None:  # not compiled: no optimizer to give a state to, as Keras
        _assign(groups, h5_weights.read(source, expected, where, skip_mismatch=skip_mismatch,
                                        ignored=ignored), where)
        return
    specs = optimizer_io.model_expected(model)
    arrays, optimizer = h5_weights.read(source, expected, where, optimizer=specs or [],
                                        skip_mismatch=skip_mismatch, ignored=ignored)
    _assign(groups, arrays, where)
    if specs is None:
        if optimizer.count > 2:  # more than a never-used optimizer's iterations and rate
            warnings.warn(f"{where}: the file holds the optimizer's state ({optimizer.count} "
                          f"variables), which this model's optimizer cannot take "
                          f"({optimizer_io.no_layout_reason(model)}); it is not loaded, and "
                          "training starts with a fresh optimizer state.", stacklevel=4)
        return
    if optimizer.arrays is not None:
        optimizer_io.model_restore(model, optimizer.arrays)
    elif optimizer.count > 2:  # more than a never-used optimizer's iterations and rate
        warnings.warn(f"{where}: {optimizer.mismatch} (another optimizer or configuration); "
                      "its state is not loaded and training starts with a fresh one.",
                      stacklevel=4)


def _own_store(layer):
    """What a layer whose class defines its own ``save_own_variables`` saves, when it saves
    under keys other than ``"0".."n-1"`` (Keras's custom layers may), else None."""
    owner = next(c for c in type(layer).__mro__ if "save_own_variables" in c.__dict__)
    if owner.__module__.split(".")[0] == "kgraph":
        return None
    store: dict = {}
    layer.save_own_variables(store)
    return None if set(store) == {str(i) for i in range(len(store))} else store


def _own_keys(layer):
    store = _own_store(layer)
    return None if store is None else list(store)


def _expected(groups):
    """Each group's datasets: its variables' shapes and dtypes, or, for a layer saving under
    its own keys, the keys, shapes and dtypes of what it saves."""
    expected = []
    for g in groups:
        own = _own_store(g.layer)
        expected.append((g.path, [(v.shape, v.dtype) for v in g.variables] if own is None else
                         [(k, np.shape(v), np.asarray(v).dtype) for k, v in own.items()]))
    return expected


def _earlier_layout(model):
    """``model``'s groups as kgraph wrote them before it stored a subclassed model's layers
    under ``layers`` as Keras does, or None if that layout is the same."""
    if not any(keras_layout.has_layers_list(layer) for layer in model._flatten_layers()):
        return None
    return keras_layout.weight_groups(model, models_list_layers=False)


def _load_weights_into(model, source, where, declared_size=None, skip_mismatch=False,
                       skip=()):
    """Check that the weights ``model``'s config declares fit in memory and that the file
    is no larger than they need, then read and assign them (``source``: a path, or a
    function returning a file object, called only after those checks). A file of
    kgraph's earlier layout of subclassed models (``_earlier_layout``) is read too. The
    objects in ``skip`` (Keras's ``objects_to_skip``) are not loaded, and the file's
    groups for them, if it has them, are left unread."""
    groups = keras_layout.weight_groups(model, skip=skip)
    kept = {group.path for group in groups}
    ignored = frozenset(group.path for group in keras_layout.weight_groups(model)
                        if group.path not in kept) if skip else frozenset()
    needed = sum(h5_weights.nbytes(v.shape, v.dtype) for g in groups for v in g.variables)
    if needed > physical_memory():
        raise LoadError(f"{where}: the model's config declares {needed} bytes of weights, "
                        f"more than this machine's memory ({physical_memory()} bytes).")
    count = sum(len(g.variables) + 1 for g in groups)
    # the weights, and up to 10x their size (and datasets) in the optimizer's variables
    cap = 12 * needed + _H5_OVERHEAD + _H5_PER_DATASET * 12 * count
    if declared_size is not None and declared_size > cap:
        raise LoadError(f"{where}: the weights file is {declared_size} bytes; this model's "
                        f"weights need at most {cap}.")
    opened = source if callable(source) else lambda: source
    try:
        _read_and_assign(model, groups, opened(), _expected(groups), where, skip_mismatch,
                         ignored)
    except LoadError as err:
        fallbacks = () if skip_mismatch or skip else (
            lambda: _aliased_layout(model, opened, where), lambda: _earlier_layout(model))
        for layout_of in fallbacks:
            try:
                layout = layout_of()
                if layout is not None:
                    _read_and_assign(model, layout, opened(), _expected(layout), where)
                    return
            except LoadError:
                pass
        raise err from None


def _aliased_layout(model, opened, where):
    """``model``'s groups with each layer whose path the file lacks moved to another path
    reaching it that the file has (a layer reached by two attributes, one a property, as
    Keras's loader retries it), or None if no layer moves."""
    aliases: dict = {}
    groups = keras_layout.weight_groups(model, aliases=aliases)
    if not aliases:
        return None
    with h5_weights.open_file(opened(), where) as file:
        present = {path.rsplit("/vars/", 1)[0] if "/vars/" in path else ""
                   for path in h5_weights.scan(file, where, budget=12 * len(groups) + 10_000)}
    moved = [group._replace(path=next(p for p in aliases[id(group.layer)] if p in present))
             if group.variables and group.path not in present and any(
                 p in present for p in aliases.get(id(group.layer), ())) else group
             for group in groups]
    return None if moved == groups else moved


def _load_archive_weights(model, zf, where, skip_mismatch=False):
    """``model``'s weights from the ``model.weights.h5`` member of an open archive."""
    info = zf.members.get(archive.WEIGHTS)
    if info is None:
        raise LoadError(f"{where}: missing {archive.WEIGHTS}.")
    _load_weights_into(model, lambda: io.BytesIO(zf.read(archive.WEIGHTS, info.file_size)),
                       f"{where} ({archive.WEIGHTS})", info.file_size, skip_mismatch)


def _parse_config(data: bytes, where: str) -> dict:
    try:
        text = data.decode("utf-8")
        validation.check_json_depth(text)
        config = json.loads(text)
    except validation.ConfigError:
        raise
    except (ValueError, RecursionError) as err:
        raise LoadError(f"{where}: config.json is not valid JSON ({err}).") from None
    if not isinstance(config, dict):
        raise LoadError(f"{where}: config.json must hold an object, found "
                        f"{type(config).__name__}.")
    return config


_FILE_LOADERS: dict = {}


def register_file_loader(class_name: str, loader) -> None:
    """Let ``load_model`` hand a ``.keras`` file whose top-level ``class_name`` is
    ``class_name`` (an object saved by Keras's ``saving_lib`` that is not a model, e.g.
    ``FeatureSpace``) to ``loader(filepath)``."""
    _FILE_LOADERS[class_name] = loader


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The model saved in ``filepath``: a ``.keras`` file from kgraph or Keras 3 (or a
    folder of its files, ``zipped=False``), or a legacy Keras ``.h5`` model file
    (``legacy_h5``).

    Classes resolve only among kgraph's own, those registered with ``register_layer``
    and ``custom_objects``; ``safe_mode=True`` refuses layers whose config holds code
    (``Lambda``). With ``compile=True`` a file's training configuration (optimizer,
    losses, metrics) compiles the model, and the file's optimizer variables (step count,
    learning rate, moments) become its state: the next ``fit`` continues from them.
    """
    where = repr(filepath) if hasattr(filepath, "read") else os.fspath(filepath)
    if checkpoint_folders.is_orbax_checkpoint(where):  # an OrbaxCheckpoint folder: its latest step
        return checkpoint_folders.load_model(where, custom_objects=custom_objects,
                                       compile=compile, safe_mode=safe_mode)
    if where.endswith((".h5", ".hdf5")):
        return legacy_h5.load_model(where, custom_objects=custom_objects, safe_mode=safe_mode,
                                    compile=compile)
    opened = archive.KerasFolder if os.path.isdir(where) else archive.KerasArchive
    with opened(filepath, where) as zf:
        config = _parse_config(zf.read(archive.CONFIG, archive.MAX_CONFIG_BYTES), where)
        loader = _FILE_LOADERS.get(config.get("class_name"))
        if archive.METADATA in zf.members:
            zf.read(archive.METADATA, archive.MAX_METADATA_BYTES)  # size-checked, not used
        if loader is not None:
            return loader(where)
        validation.check_no_file_references(config)
        model = deserialize_layer(keras_dialect.from_keras(config),
                                  custom_objects=custom_objects, safe_mode=safe_mode)
        _check_model(model, "load_model")  # (one saved unbuilt loads unbuilt, as Keras)
        if compile and "compile_config" in config:  # first, so the optimizer state loads
            compile_config.compile_loaded(model, config["compile_config"],
                                          custom_objects)
        _load_archive_weights(model, zf, where)
        assets.load_layer_assets(model, keras_layout.weight_groups(model), zf, where)
    return model


def save_weights(model, filepath, overwrite=True, objects_to_skip=None,
                 max_shard_size=None) -> None:
    """Write ``model``'s weights to ``filepath`` (``.weights.h5``) as Keras 3 does, but
    those of ``objects_to_skip`` (layers, and what is reached only through them). With
    ``max_shard_size`` (GB), sharded as Keras shards them: ``filepath`` is then the map
    (``.weights.json``) and the shards go beside it (``sharded_weights``)."""
    _check_built(model, "save_weights")
    filepath = os.fspath(filepath)
    if max_shard_size is not None:
        if not overwrite and os.path.exists(filepath):
            raise FileExistsError(f"{filepath} exists and overwrite=False.")
        sharded_weights.save_groups(_weight_arrays(model, objects_to_skip or ()), filepath,
                                    max_shard_size)
        return
    if not filepath.endswith(".weights.h5"):
        raise ValueError(f"The file name must end in .weights.h5 (Keras 3's weights "
                         f"format), received {filepath!r}.")
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False.")
    data = _weights_h5(model, skip=objects_to_skip or ())
    with archive.atomic_write(filepath) as file:
        file.write(data)


def load_weights(model, filepath, skip_mismatch=False, objects_to_skip=None) -> None:
    """Load weights saved by ``save_weights`` (``.weights.h5``, or sharded: the
    ``.weights.json`` map of the shards), in a ``.keras`` file, or
    in a legacy Keras ``.h5`` file (``legacy_h5``: pretrained keras.applications weights)
    into ``model``, which must have the architecture they were saved from.

    ``skip_mismatch=True`` (``.weights.h5`` and ``.keras`` files), as Keras: the layers
    whose weights the file holds as the model has them are loaded, the others keep theirs
    and a warning lists them (a trained body reused under a new head)."""
    _check_built(model, "load_weights", "loading weights into a model")
    where = os.fspath(filepath)
    if where.endswith(".keras"):
        with archive.KerasArchive(filepath) as zf:
            _load_archive_weights(model, zf, where, skip_mismatch)
        return
    if where.endswith(".weights.json"):  # sharded weights: the shards, read as one file
        shards = sharded_weights.shard_files(where)
        _load_weights_into(model, shards, where, sum(map(os.path.getsize, shards)),
                           skip_mismatch, objects_to_skip or ())
        return
    if skip_mismatch and not where.endswith(".weights.h5"):
        raise ValueError(f"{where}: skip_mismatch=True is supported for .weights.h5 and "
                         ".keras files; this file must match the model exactly.")
    if checkpoint_folders.is_orbax_checkpoint(where):
        checkpoint_folders.load_weights(model, where)
        return
    if not where.endswith((".h5", ".hdf5")):
        raise ValueError(f"File format not supported: filepath={where}. load_weights reads "
                         ".weights.h5, .weights.json (sharded), .keras and legacy .h5 "
                         "files.")
    if objects_to_skip is not None and not where.endswith(".weights.h5"):
        raise ValueError(f"`objects_to_skip` only supports loading '.weights.h5' files. "
                         f"Received: {where}")
    if legacy_h5.is_legacy(where):
        if skip_mismatch:
            raise ValueError(f"{where}: skip_mismatch=True is not supported for legacy .h5 "
                             "weights; this file must match the model exactly.")
        legacy_h5.load_weights(model, where)
        return
    try:
        size = os.path.getsize(where)
    except OSError as err:
        raise LoadError(f"{where}: cannot read ({err}).") from None
    _load_weights_into(model, where, where, size, skip_mismatch, objects_to_skip or ())
