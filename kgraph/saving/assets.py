"""Layers' assets (vocabularies and the like) in ``.keras`` files: Keras's
``assets/<layer path>/`` folders, written by a layer's ``save_assets(folder)`` and read
back by its ``load_assets(folder)`` (the layer paths are the weights file's, ``keras_layout``).

``DiskIOStore`` (Keras's class of the same name) is the folder store both directions use:
saving, each layer with ``save_assets`` writes into ``make(path)``, a folder of a temporary
working directory, whose files become the archive's ``assets/<path>/...`` members; loading,
the archive's ``assets/`` members (checked already by ``archive``: plain relative names, no
links, bounded sizes and compression ratios) are copied as data into a temporary folder and
each layer with ``load_assets`` is given ``get(path)``. A path that would leave the working
directory is refused, and so is an asset that no layer of the model loads (data the model
has no place for, as for weights). Nothing in an asset is run; the layer's own code reads it.

>>> store = DiskIOStore("assets", mode="w")
>>> import os; os.path.isdir(store.make("layers/string_lookup"))
True
>>> store.make("../escape")
Traceback (most recent call last):
ValueError: Invalid asset path: '../escape' escapes the asset directory.
>>> store.close()
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile

from kgraph.saving import archive as archive_lib
from kgraph.saving.errors import LoadError

__all__ = ["DiskIOStore", "layer_assets", "load_layer_assets"]

_ROOT = archive_lib.ASSETS.rstrip("/")


class DiskIOStore:
    """A folder of assets. With ``archive`` (a ``zipfile.ZipFile``, or kgraph's checked
    ``KerasArchive`` / ``KerasFolder`` when reading), ``root_path`` names the archive's
    folder: ``mode="r"`` copies its members into a temporary working directory,
    ``mode="w"`` writes the working directory into the archive on ``close()``. Without an
    archive, ``mode="r"`` reads the folder ``root_path`` itself; otherwise the working
    directory is temporary. ``make(path)`` / ``get(path)`` give the folder of a layer
    path; ``close()`` removes what is temporary."""

    def __init__(self, root_path, archive=None, mode=None):
        self.root_path, self.archive, self.mode = str(root_path), archive, mode
        self.tmp_dir = None
        if archive is None and mode == "r":
            self.working_dir = self.root_path
            return
        self.tmp_dir = tempfile.mkdtemp(prefix="kgraph_assets_")
        self.working_dir = os.path.join(self.tmp_dir, self.root_path)
        os.makedirs(self.working_dir, exist_ok=True)
        if archive is not None and mode == "r":
            try:
                self._extract()
            except BaseException:
                self.close()
                raise

    def _members(self):
        """``(member name, bytes reader)`` of the archive's members under ``root_path``."""
        prefix = self.root_path.rstrip("/") + "/"
        if isinstance(self.archive, zipfile.ZipFile):
            for info in self.archive.infolist():
                if info.filename.startswith(prefix):
                    archive_lib._check_name(info.filename, self.archive.filename or "archive")
                    yield info.filename, (lambda n=info.filename: archive_lib._safe_zip_read(
                        self.archive, n))
            return
        for name, info in self.archive.members.items():  # KerasArchive / KerasFolder
            if name.startswith(prefix):
                yield name, (lambda n=name, size=info.file_size: self.archive.read(n, size))

    def _extract(self):
        prefix = self.root_path.rstrip("/") + "/"
        for name, read in self._members():
            target = self._full_path(name[len(prefix):].rstrip("/"))
            if name.endswith("/"):
                os.makedirs(target, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as file:
                file.write(read())

    def _full_path(self, path):
        """``path`` under the working directory; a path that escapes it is refused."""
        path = str(path).replace("\\", "/")
        if "://" in self.working_dir:  # a remote folder: checked as a string, not resolved
            if path.startswith("/") or "://" in path or ".." in path.split("/"):
                raise ValueError(f"Invalid asset path: '{path}' escapes the asset directory.")
            return f"{self.working_dir.rstrip('/')}/{path}"
        base = os.path.realpath(self.working_dir)
        resolved = os.path.realpath(os.path.join(base, path))
        if resolved != base and not resolved.startswith(base + os.sep):
            raise ValueError(f"Invalid asset path: '{path}' escapes the asset directory.")
        return resolved

    def make(self, path):
        """The folder of layer path ``path`` (made if needed)."""
        if not path:
            return self.working_dir
        folder = self._full_path(path)
        os.makedirs(folder, exist_ok=True)
        return folder

    def get(self, path):
        """The folder of layer path ``path``, or None if there is none."""
        if not path:
            return self.working_dir
        folder = self._full_path(path)
        return folder if os.path.exists(folder) else None

    def has_path(self, path) -> bool:
        if not path:
            return os.path.exists(self.working_dir)
        try:
            return os.path.exists(self._full_path(path))
        except ValueError:
            return False

    def files(self) -> dict:
        """``{member name: bytes}`` of the files in the working directory, named as the
        archive holds them (``assets/<path>/<file>``)."""
        found = {}
        for folder, _, names in os.walk(self.working_dir):
            for name in sorted(names):
                full = os.path.join(folder, name)
                member = os.path.relpath(full, self.working_dir).replace(os.sep, "/")
                with open(full, "rb") as file:
                    found[f"{self.root_path}/{member}"] = file.read()
        return found

    def close(self):
        if self.mode == "w" and isinstance(self.archive, zipfile.ZipFile):
            for name, data in self.files().items():
                self.archive.writestr(name, data)
        if self.tmp_dir is not None and os.path.exists(self.tmp_dir):
            shutil.rmtree(self.tmp_dir)
        self.tmp_dir = None


def _with(model, method, groups):
    return {group.path: group.layer for group in groups
            if callable(getattr(group.layer, method, None))}


def layer_assets(model, groups) -> dict:
    """``{member name: bytes}``: what the model's layers with ``save_assets`` write (their
    paths are those of ``groups``, ``keras_layout.weight_groups``)."""
    savers = _with(model, "save_assets", groups)
    if not savers:
        return {}
    store = DiskIOStore(_ROOT, mode="w")
    try:
        for path, layer in savers.items():
            layer.save_assets(store.make(path))
        return store.files()
    finally:
        store.close()


def load_layer_assets(model, groups, source, where) -> None:
    """Give each layer with ``load_assets`` its folder of ``source``'s assets (a
    ``KerasArchive`` or ``KerasFolder``); an asset no such layer claims is refused."""
    names = [name for name in source.members
             if name.startswith(archive_lib.ASSETS) and not name.endswith("/")]
    if not names:
        return
    loaders = _with(model, "load_assets", groups)
    for name in names:
        relative = name[len(archive_lib.ASSETS):]
        if not any(path == "" or relative.startswith(path + "/") for path in loaders):
            raise LoadError(f"{where}: asset {name!r} belongs to no layer of this model that "
                            f"loads assets (those that do: {sorted(loaders)[:10]}).")
    store = DiskIOStore(_ROOT, archive=source, mode="r")
    try:
        for path, layer in loaders.items():
            folder = store.get(path)
            if folder is not None and (path or any(os.scandir(folder))):
                layer.load_assets(folder)
    finally:
        store.close()
