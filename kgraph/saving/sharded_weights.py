"""Weights sharded over several files, as Keras 3 writes them
(``save_weights("w.weights.json", max_shard_size=...)``): ``w.weights.json`` maps each group
(``"/<path>/vars"``) to the shard or shards holding its arrays, ``w_00000.weights.h5``,
``w_00001.weights.h5``, ... beside it, each holding at most ``max_shard_size`` GB of arrays.

``ShardedH5IOStore`` (Keras's class) writes them: kgraph's ``save_weights`` fills it as it
fills one ``.weights.h5`` file, shards are written under temporary names and renamed, and
the map is written last (atomically), so a reader never sees a map without its shards.
Reading, the map is data: its size is bounded, shard names must be plain file names in the
map's folder, and ``shard_files`` hands the shards to ``h5_weights.read``, which checks them
as one weights file (every dataset, of every shard, before any is read).

>>> import os, tempfile, numpy as np
>>> path = os.path.join(tempfile.mkdtemp(), "w.weights.json")
>>> store = ShardedH5IOStore(path, max_shard_size=1e-6, mode="w")   # ~1 KB per shard
>>> store.make("dense", metadata={"name": "dense"})["0"] = np.ones((200,), "float32")
>>> store["1"] = np.ones((200,), "float32")
>>> store.close()
>>> [os.path.basename(p) for p in shard_files(path)]
['w_00000.weights.h5', 'w_00001.weights.h5']
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import warnings

import h5py
import numpy as np

from kgraph.saving import archive, h5_weights
from kgraph.saving.errors import LoadError

__all__ = ["MAX_SHARDS", "ShardedH5IOStore", "read_map", "save_groups", "shard_files"]

MAX_SHARDS = 10_000
_MAX_MAP_BYTES = 64 << 20


def _plain_name(name) -> bool:
    return (isinstance(name, str) and 0 < len(name) < 256 and name.endswith(".h5")
            and not name.startswith(".") and "/" not in name and "\\" not in name
            and ":" not in name and "\x00" not in name)


def read_map(path) -> dict:
    """The sharding map at ``path``, checked: ``{"weight_map": {group: shard or [shards]}}``
    with plain shard file names (no folders), at most ``MAX_SHARDS`` of them."""
    where = os.fspath(path)
    try:
        with open(where, "rb") as file:
            data = file.read(_MAX_MAP_BYTES + 1)
    except OSError as err:
        raise LoadError(f"{where}: cannot read the sharded weights' map ({err}).") from None
    if len(data) > _MAX_MAP_BYTES:
        raise LoadError(f"{where}: the sharded weights' map is larger than {_MAX_MAP_BYTES} "
                        "bytes.")
    try:
        config = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as err:
        raise LoadError(f"{where}: the sharded weights' map is not valid JSON ({err}).") from None
    weight_map = config.get("weight_map") if isinstance(config, dict) else None
    if not isinstance(weight_map, dict):
        raise LoadError(f"{where}: expected a JSON object with a 'weight_map' object (group -> "
                        f"shard file names), received {type(config).__name__}.")
    names = set()
    for group, shards in weight_map.items():
        shards = [shards] if isinstance(shards, str) else shards
        if not isinstance(shards, list) or not shards or not all(map(_plain_name, shards)):
            raise LoadError(f"{where}: weight_map[{group!r}] must name shard files (plain "
                            f"'*.h5' file names beside the map), received {shards!r:.200}.")
        names.update(shards)
    if len(names) > MAX_SHARDS:
        raise LoadError(f"{where}: the map names {len(names)} shards, more than {MAX_SHARDS}.")
    return config


def shard_files(path) -> list[str]:
    """The paths of the shards the map at ``path`` names (in the map's folder), in order."""
    weight_map = read_map(path)["weight_map"]
    names = dict.fromkeys(name for shards in weight_map.values()
                          for name in ([shards] if isinstance(shards, str) else shards))
    folder = os.path.dirname(os.path.abspath(os.fspath(path)))
    found = [os.path.join(folder, name) for name in sorted(names)]
    for shard in found:
        if os.path.islink(shard) or not os.path.isfile(shard):
            raise LoadError(f"{os.fspath(path)}: shard {os.path.basename(shard)!r} is missing "
                            "(or is not a plain file).")
    return found


def save_groups(groups, filepath, max_shard_size) -> None:
    """Write ``groups`` (``[(path, name, [array, ...] or {key: array})]``, as
    ``h5_weights.write`` takes them) as sharded weights: the map at ``filepath`` and its shards beside it."""
    store = ShardedH5IOStore(filepath, max_shard_size, mode="w")
    try:
        for path, name, arrays in groups:
            store.make(path, metadata={"name": name})
            items = arrays.items() if isinstance(arrays, dict) else enumerate(arrays)
            for key, value in items:
                store[str(key)] = value
    except BaseException:
        store.abort()
        raise
    store.close()


class ShardedH5IOStore:
    """Named arrays over shard files (Keras's ``ShardedH5IOStore``): ``make(path)``
    (writing) or ``get(path)`` (reading) selects the group ``<path>/vars``, whose arrays
    the store then sets, reads and deletes by key, in whichever shard holds them; a new
    shard starts when the current one would exceed ``max_shard_size`` (GB)."""

    def __init__(self, path_or_io, max_shard_size=5, archive=None, mode="r"):
        if mode not in ("w", "r"):
            raise ValueError(f"`mode` should be either 'w' or 'r'. Received: {mode}")
        if not isinstance(path_or_io, (str, pathlib.Path)):
            raise TypeError(f"`path_or_io` should be a `str`, `pathlib.Path` object. "
                            f"Received: path_or_io={path_or_io!r} of type "
                            f"{type(path_or_io).__name__}.")
        if archive is not None:
            raise NotImplementedError("ShardedH5IOStore inside an archive: kgraph writes "
                                      "sharded weights as files beside their map.")
        self.path, self.mode = pathlib.Path(path_or_io), mode
        if self.path.suffix != ".json":
            new_path = self.path.with_suffix(".json")
            warnings.warn(f"{'Saving' if mode == 'w' else 'Loading'} sharded weights requires "
                          f"`*.json` as the extension. The original path: {self.path} will "
                          f"be renamed to {new_path}.", stacklevel=2)
            self.path = new_path
        self.max_shard_size = float(max_shard_size) * 1024 ** 3  # bytes
        self.base_name = self.path.stem.replace(".weights", "")
        self._where = str(self.path)
        self._files: dict = {}  # shard name -> open h5py.File
        self._scanned: dict = {}  # reading: shard name -> its checked datasets
        self._entry, self._metadata = None, None
        self.current_shard_filenames: list = []
        if mode == "w":
            self.sharding_config = {"metadata": {"total_size": 0}, "weight_map": {}}
            self.total_shard_size = self.current_shard_size = self.current_shard_index = 0
            self._current = None
            self._new_shard()
        else:
            self.sharding_config = read_map(self.path)

    # ------------------------------------------------------------------ shards
    def _temporary(self, name):
        return self.path.with_name(f".{name}.tmp")

    def _new_shard(self):
        name = f"{self.base_name}_{self.current_shard_index:05}.weights.h5"
        if self.current_shard_index >= MAX_SHARDS:
            raise ValueError(f"{self._where}: more than {MAX_SHARDS} shards; increase "
                             "`max_shard_size`.")
        self.current_shard_index += 1
        self._files[name] = h5py.File(self._temporary(name), "w")
        self._current, self.current_shard_size = name, 0
        self.current_shard_filenames.append(name)

    def _file(self, name):
        """The open shard ``name`` (reading: opened and checked on first use)."""
        if name not in self._files:
            if not _plain_name(name):
                raise LoadError(f"{self._where}: refusing shard name {name!r}.")
            shard = self.path.with_name(name)
            if shard.is_symlink():
                raise LoadError(f"{self._where}: shard {name!r} is a symbolic link.")
            self._files[name] = h5py.File(shard, "r")
            self._scanned[name] = h5_weights.scan(self._files[name], f"{self._where} ({name})",
                                                  group_attr=lambda key: True)
        return self._files[name]

    def _dataset(self, name, key):
        """``(dataset, dtype)`` of ``key`` in the selected group of shard ``name``, or None."""
        file = self._file(name)
        path = f"{self._entry}/{key}"
        if self.mode == "r":
            return self._scanned[name].get(path)
        dataset = file.get(path)
        if not isinstance(dataset, h5py.Dataset):
            return None
        return dataset, h5_weights.stored_dtype(dataset, self._where)

    # ------------------------------------------------------------------ groups
    def make(self, path, metadata=None):
        """Select the group ``path`` for writing (created with its first array)."""
        if self.mode != "w":
            raise ValueError("`make` is only allowed in write mode.")
        if not isinstance(metadata, (dict, type(None))):
            raise ValueError(f"`metadata` should be a dict or `None`. Received: {metadata}")
        self._entry = f"{path}/vars" if path else "vars"
        self._metadata = metadata
        self.current_shard_filenames = [self._current]
        return self

    def get(self, path):
        """Select the group ``path`` for reading, in the shards the map names for it."""
        self._entry = f"{path}/vars" if path else "vars"
        shards = self.sharding_config["weight_map"].get(f"/{self._entry}")
        self.current_shard_filenames = ([shards] if isinstance(shards, str)
                                        else list(shards or []))
        return self

    def has_path(self, path) -> bool:
        prefix = f"/{path}"
        return any(key == prefix or key.startswith(prefix + "/")
                   for key in self.sharding_config["weight_map"])

    # ------------------------------------------------------------------ arrays
    def __setitem__(self, key, value):
        if self.mode != "w":
            raise ValueError("Setting a value is only allowed in write mode.")
        value = np.asarray(value)
        size = value.nbytes
        if size > self.max_shard_size:
            raise ValueError(f"The size of {key} is {size} bytes which exceeds the maximum "
                             f"shard size {int(self.max_shard_size)} bytes. You can increase "
                             "the `max_shard_size` parameter to accommodate the size.")
        self.total_shard_size += size
        if self.current_shard_size + size > self.max_shard_size:
            self._new_shard()
        self.current_shard_size += size
        file = self._files[self._current]
        group = file.get(self._entry)
        if group is None:
            group = file.create_group(self._entry)
            for name, item in (self._metadata or {}).items():
                group.attrs[name] = item
        h5_weights.write_dataset(group, key, value)
        shards = self.sharding_config["weight_map"].setdefault(group.name, [])
        if self._current not in shards:  # as Keras writes it: a list of shard names
            shards.append(self._current)

    def __getitem__(self, key):
        for name in self.current_shard_filenames:
            found = self._dataset(name, key)
            if found is not None:
                dataset, dtype = found
                return h5_weights.read_dataset(dataset, tuple(dataset.shape), dtype,
                                               self._where)
        raise KeyError(f"Key '{key}' not found in any of the shards: "
                       f"{self.current_shard_filenames}")

    def __delitem__(self, key):
        if self.mode != "w":
            raise ValueError("Deleting a value is only allowed in write mode.")
        for name in self.current_shard_filenames:
            if self._dataset(name, key) is not None:
                del self._files[name][f"{self._entry}/{key}"]
                return
        raise KeyError(f"Key '{key}' not found in any of the shards: "
                       f"{self.current_shard_filenames}")

    def keys(self):
        found = []
        for name in self.current_shard_filenames:
            if self.mode == "r":
                self._file(name)
                prefix = self._entry + "/"
                found += [path[len(prefix):] for path in self._scanned[name]
                          if path.startswith(prefix) and "/" not in path[len(prefix):]]
            else:
                group = self._files[name].get(self._entry)
                found += list(group.keys()) if group is not None else []
        return found

    def __len__(self):
        return len(self.keys())

    def __contains__(self, key):
        return key in self.keys()

    # ------------------------------------------------------------------ end
    def close(self):
        """Reading: close the shards. Writing: rename the shards into place, then write
        the map (atomically)."""
        for file in self._files.values():
            file.close()
        if self.mode == "w" and self._files:
            for name in self._files:
                os.replace(self._temporary(name), self.path.with_name(name))
            self.sharding_config["metadata"]["total_size"] = self.total_shard_size
            with archive.atomic_write(self.path) as file:
                file.write(json.dumps(self.sharding_config, indent=4).encode("utf-8"))
        self._files = {}

    def abort(self):
        """Writing: close and remove the shards written so far (no map is written)."""
        for name, file in self._files.items():
            file.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._temporary(name))
        self._files = {}
