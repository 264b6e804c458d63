"""``keras.src.saving.saving_lib``: ``H5IOStore``, Keras's store of named arrays in an HDF5
file (``<path>/vars/<key>`` datasets, bfloat16 marked as Keras marks it), as libraries use it
for their own weight files (KerasHub's LoRA weights); ``save_weights_only`` and
``load_weights_only``, Keras's functions under ``save_weights`` / ``load_weights``. (Keras's
``save_model``, ``load_model`` and settings of this path are ``kgraph.saving.keras_file``'s.)

A file read is data: the whole file is checked from its metadata when opened (hard links
only, plain numeric contiguous datasets; ``h5_weights.scan``) before any array is read.

>>> import io, numpy as np
>>> buffer = io.BytesIO()
>>> store = H5IOStore(buffer, mode="w")
>>> store.make("lora/0")["kernel"] = np.ones((2, 3), "float32")
>>> store.close()
>>> H5IOStore(buffer, mode="r").get("lora/0")["kernel"].shape
(2, 3)
"""

from __future__ import annotations

import io
import pathlib

import h5py

from kgraph.saving import archive, h5_weights, keras_file
from kgraph.saving.archive import _safe_zip_read  # noqa: F401 - Keras's name on this path
from kgraph.saving.assets import DiskIOStore
from kgraph.saving.errors import LoadError
from kgraph.saving.npz_store import NpzIOStore
from kgraph.saving.sharded_weights import ShardedH5IOStore

__all__ = ["DiskIOStore", "H5IOStore", "NpzIOStore", "ShardedH5IOStore", "load_weights_only", "safe_get_h5_dataset", "save_weights_only"]

# Keras's names of a .keras file's members
_CONFIG_FILENAME = archive.CONFIG
_METADATA_FILENAME = archive.METADATA
_VARS_FNAME = archive.WEIGHTS.rsplit(".", 1)[0]


def save_weights_only(model, filepath, max_shard_size=None, objects_to_skip=None):
    """Write ``model``'s weights to a ``.weights.h5`` file (``keras_file.save_weights``)."""
    if max_shard_size is None and not str(filepath).endswith(".weights.h5"):
        raise ValueError("Invalid `filepath` argument: expected a `.weights.h5` extension. "
                         f"Received: filepath={filepath}")
    if max_shard_size is not None and not str(filepath).endswith(".weights.json"):
        raise ValueError("The filename must end in `.weights.json` when `max_shard_size` is "
                         f"specified. Received: filepath={filepath}")
    keras_file.save_weights(model, filepath, objects_to_skip=objects_to_skip,
                            max_shard_size=max_shard_size)


def load_weights_only(model, filepath, skip_mismatch=False, objects_to_skip=None):
    """Load weights from a ``.weights.h5`` or ``.keras`` file into ``model``
    (``keras_file.load_weights``)."""
    keras_file.load_weights(model, filepath, skip_mismatch=skip_mismatch,
                            objects_to_skip=objects_to_skip)


def safe_get_h5_dataset(group, name):
    """The dataset at path ``name`` of the h5py ``group``, checked as kgraph's loaders check
    every dataset before reading one (``h5_weights.check_dataset``: no shape bomb, no
    chunked, virtual or external storage), reached through hard links only; KeyError if
    there is none."""
    where = getattr(group.file, "filename", None) or repr(group.file)
    *folders, last = name.strip("/").split("/")
    obj = group
    for part in (*folders, last):
        if not isinstance(obj, h5py.Group) or part not in obj:
            raise KeyError(name)
        link = obj.get(part, getlink=True)
        if not isinstance(link, h5py.HardLink):
            raise LoadError(f"{where}: {name!r} goes through a {type(link).__name__}; links "
                            "to other objects or files are refused.")
        obj = obj[part]
    if not isinstance(obj, h5py.Dataset):
        raise LoadError(f"{where}: {name!r} is a {type(obj).__name__}, expected a dataset.")
    h5_weights.check_dataset(obj, where)
    return obj


class H5IOStore:
    """Named arrays in an HDF5 file at ``path_or_io`` (a path or ``io.BytesIO``), opened for
    reading (``mode="r"``) or writing (``"w"``). ``make(path)`` (writing) and ``get(path)``
    (reading) select the entry ``<path>/vars`` and return the store, which then reads and
    writes that entry's arrays by key."""

    def __init__(self, path_or_io, archive=None, mode="r"):
        if mode not in ("r", "w"):
            raise ValueError(f"`mode` should be either 'w' or 'r'. Received: {mode}")
        if not isinstance(path_or_io, (str, pathlib.Path, io.BytesIO)):
            raise TypeError(f"`path_or_io` should be a `str`, `pathlib.Path` or `io.BytesIO` "
                            f"object. Received: path_or_io={path_or_io!r} of type "
                            f"{type(path_or_io).__name__}.")
        if archive is not None and isinstance(path_or_io, io.BytesIO):
            raise ValueError("When `path_or_io` is an `io.BytesIO` object, `archive` should "
                             f"be `None`. Received: archive={archive!r}")
        if archive is not None:  # kgraph's own save and load never store arrays so
            raise NotImplementedError("H5IOStore inside an archive: open the member "
                                      "yourself and pass it as an io.BytesIO.")
        self.path_or_io, self.mode = path_or_io, mode
        self._where = str(path_or_io)
        self.h5_file = h5py.File(path_or_io, mode=mode)
        self._datasets = h5_weights.scan(self.h5_file, self._where,
                                         group_attr=lambda key: True) if mode == "r" else {}
        self._entry = None  # the selected entry's path, "<path>/vars"

    @staticmethod
    def _vars(path) -> str:
        return f"{path}/vars" if path else "vars"

    def make(self, path, metadata=None):
        """Select the entry ``path`` for writing (created when a first array is set)."""
        if self.mode != "w":
            raise ValueError("`make` is only allowed in write mode.")
        if not isinstance(metadata, (dict, type(None))):
            raise ValueError(f"`metadata` should be a dict or `None`. Received: {metadata}")
        self._entry = self._vars(path)
        if metadata:
            group = self.h5_file.require_group(self._entry)
            for key, value in metadata.items():
                group.attrs[key] = value
        return self

    def get(self, path):
        """Select the entry ``path`` for reading (empty if the file has none)."""
        if self.mode != "r":
            raise ValueError("`get` is only allowed in read mode.")
        self._entry = self._vars(path)
        return self

    def has_path(self, path) -> bool:
        return path in self.h5_file

    def close(self) -> None:
        self.h5_file.close()

    def keys(self):
        prefix = self._entry + "/"
        if self.mode == "r":
            return [key[len(prefix):] for key in self._datasets
                    if key.startswith(prefix) and "/" not in key[len(prefix):]]
        group = self.h5_file.get(self._entry)
        return list(group.keys()) if group is not None else []

    def __len__(self):
        return len(self.keys())

    def __contains__(self, key):
        return key in self.keys()

    def __getitem__(self, key):
        if self.mode == "w":  # an array this store has just written
            dataset = self.h5_file.get(f"{self._entry}/{key}")
            if not isinstance(dataset, h5py.Dataset):
                raise KeyError(f"{self._where}: no array {key!r} in {self._entry!r}.")
            found = (dataset, h5_weights.stored_dtype(dataset, self._where))
        else:
            found = self._datasets.get(f"{self._entry}/{key}")
        if found is None:
            raise KeyError(f"{self._where}: no array {key!r} in {self._entry!r}.")
        dataset, dtype = found
        return h5_weights.read_dataset(dataset, tuple(dataset.shape), dtype, self._where)

    def __setitem__(self, key, value):
        if self.mode != "w":
            raise ValueError("Setting a value is only allowed in write mode.")
        h5_weights.write_dataset(self.h5_file.require_group(self._entry), key, value)

    def __delitem__(self, key):
        if self.mode != "w":
            raise ValueError("Deleting a value is only allowed in write mode.")
        del self.h5_file[self._entry][key]
