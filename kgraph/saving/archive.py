"""The ``.keras`` zip, read as untrusted data, and files written atomically.

``KerasArchive`` opens a ``.keras`` file without extracting it: only the members Keras 3
writes (``metadata.json``, ``config.json``, ``model.weights.h5``, ``assets/...``) are
accepted, each at most once, with plain relative names (no ``..``, absolute paths,
backslashes or links), stored or deflated, within a size cap and a compression-ratio cap
(a decompression bomb is refused);
members are read into memory, never onto disk.

``KerasFolder`` reads the same members from a folder (a model saved with ``zipped=False``):
plain files only (no links), with the same names and caps.

``atomic_write(path)`` writes through a temporary file in the same folder, flushed and
synced, then renamed over ``path``: an interrupted save leaves the previous file intact.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> with atomic_write(os.path.join(folder, "a.txt")) as f:
...     _ = f.write(b"done")
>>> sorted(os.listdir(folder))
['a.txt']
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import zipfile

from kgraph.saving.errors import LoadError

__all__ = [
    "ASSETS", "CONFIG", "KerasArchive", "KerasFolder", "MAX_CONFIG_BYTES", "MAX_MEMBERS",
    "MAX_METADATA_BYTES", "METADATA", "WEIGHTS", "atomic_write"
]


CONFIG = "config.json"
METADATA = "metadata.json"
WEIGHTS = "model.weights.h5"
ASSETS = "assets/"
MAX_CONFIG_BYTES = 64 << 20  # a config of this size describes ~10^5 layers
MAX_METADATA_BYTES = 1 << 20
MAX_MEMBERS = 10_000
# The guard against decompression bombs, under Keras's names for its settings: a member
# larger than the floor (``assets/`` members: their own floor) may expand at most
# ``_ZIP_MEMBER_MAX_EXPANSION`` times its stored size.
_ZIP_MEMBER_BOMB_FLOOR_BYTES = 64 << 10
_ZIP_EXTRACT_BOMB_FLOOR_BYTES = 64 << 10
_ZIP_MEMBER_MAX_EXPANSION = 100
_OTHER_WEIGHTS = ("model.weights.npz", "model.weights.json")


@contextlib.contextmanager
def atomic_write(path):
    """``with atomic_write(path) as f:`` writes ``f`` (binary) to ``path`` atomically."""
    path = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename durable where the OS allows
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _check_name(name: str, where: str) -> None:
    parts = name.rstrip("/").split("/")
    if (not name or name.startswith("/") or "\\" in name or ":" in parts[0]
            or any(part in ("", ".", "..") for part in parts)):
        raise LoadError(f"{where}: refusing member {name!r}: member names must be plain "
                        "relative paths (no '..', absolute paths or backslashes).")


def _check_expansion(info, where) -> None:
    """Refuse a zip member larger than the floor (``assets/`` members: their own floor)
    that expands more than ``_ZIP_MEMBER_MAX_EXPANSION`` times its stored size."""
    name = info.filename
    floor = (_ZIP_EXTRACT_BOMB_FLOOR_BYTES if name.startswith(ASSETS)
             else _ZIP_MEMBER_BOMB_FLOOR_BYTES)
    if info.file_size > floor and info.file_size > _ZIP_MEMBER_MAX_EXPANSION * max(
            info.compress_size, 1):
        raise LoadError(f"{where}: member {name!r} expands {info.file_size} bytes from "
                        f"{info.compress_size}: a compression ratio above "
                        f"{_ZIP_MEMBER_MAX_EXPANSION}; refusing to load a potential "
                        "decompression bomb.")


def _safe_zip_read(zf, name) -> bytes:
    """Member ``name`` of the open ``zipfile.ZipFile`` ``zf``, after the decompression-bomb
    check ``KerasArchive`` makes of every member (Keras's ``saving_lib._safe_zip_read``);
    never more than the size the member declares."""
    where = getattr(zf, "filename", None) or repr(zf)
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise LoadError(f"{where}: missing member {name!r}.") from None
    _check_expansion(info, where)
    with zf.open(info) as member:
        data = member.read(info.file_size + 1)
    if len(data) != info.file_size:
        raise LoadError(f"{where}: member {name!r} holds {len(data)} bytes, its header "
                        f"declares {info.file_size}.")
    return data


class KerasArchive:
    """A ``.keras`` file's members, checked (see the module docstring)."""

    def __init__(self, path, where=None):
        """``path``: a file path, or a binary file object (``where`` names it in errors)."""
        self.where = where if where is not None else os.fspath(path)
        try:
            self._zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as err:
            raise LoadError(f"{self.where}: not a .keras (zip) file ({err}).") from None
        infos = self._zip.infolist()
        if len(infos) > MAX_MEMBERS:
            self.close()
            raise LoadError(f"{self.where}: {len(infos)} members, more than {MAX_MEMBERS}.")
        self.members = {}
        try:
            for info in infos:
                self._admit(info)
        except LoadError:
            self.close()
            raise
        if CONFIG not in self.members:
            self.close()
            raise LoadError(f"{self.where}: missing {CONFIG}; not a Keras 3 .keras file.")

    def _admit(self, info):
        name, where = info.filename, self.where
        _check_name(name, where)
        if name in self.members:
            raise LoadError(f"{where}: member {name!r} appears twice.")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise LoadError(f"{where}: member {name!r} is a symbolic link.")
        if info.flag_bits & 0x1:
            raise LoadError(f"{where}: member {name!r} is encrypted.")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise LoadError(f"{where}: member {name!r} uses compression method "
                            f"{info.compress_type}; only stored and deflated are read.")
        if name in _OTHER_WEIGHTS:
            raise LoadError(f"{where}: weights stored as {name!r}; only Keras's default "
                            "HDF5 weights (model.weights.h5) are supported.")
        if name not in (CONFIG, METADATA, WEIGHTS) and not name.startswith(ASSETS):
            raise LoadError(f"{where}: unexpected member {name!r}; a .keras file holds "
                            f"{CONFIG}, {METADATA}, {WEIGHTS} and {ASSETS}.")
        _check_expansion(info, where)
        self.members[name] = info

    def read(self, name: str, cap: int) -> bytes:
        """Member ``name``'s bytes, refusing more than ``cap`` bytes (declared or actual)."""
        info = self.members.get(name)
        if info is None:
            raise LoadError(f"{self.where}: missing member {name!r}.")
        if info.file_size > cap:
            raise LoadError(f"{self.where}: member {name!r} declares {info.file_size} bytes, "
                            f"more than the {cap} this model can need.")
        try:
            with self._zip.open(info) as member:
                data = member.read(cap + 1)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as err:
            raise LoadError(f"{self.where}: cannot read member {name!r} ({err}).") from None
        if len(data) != info.file_size:
            raise LoadError(f"{self.where}: member {name!r} holds {len(data)} bytes, its "
                            f"header declares {info.file_size}.")
        return data

    def close(self):
        self._zip.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


class KerasFolder:
    """A model folder's files (``save_model(..., zipped=False)``), read as ``KerasArchive``
    reads a ``.keras`` zip: the same member names, plain files only (no symbolic links),
    each read within its cap. ``members`` maps each name to its size in bytes."""

    def __init__(self, path, where=None):
        self.where = where if where is not None else os.fspath(path)
        self.members = {}
        count = 0
        for root, folders, files in os.walk(self.where, followlinks=False):
            for name in folders + files:
                count += 1
                if count > MAX_MEMBERS:
                    raise LoadError(f"{self.where}: more than {MAX_MEMBERS} files.")
                full = os.path.join(root, name)
                member = os.path.relpath(full, self.where).replace(os.sep, "/")
                if os.path.islink(full):
                    raise LoadError(f"{self.where}: {member!r} is a symbolic link.")
                if name in files:
                    self._admit(member, os.path.getsize(full))
        if CONFIG not in self.members:
            raise LoadError(f"{self.where}: missing {CONFIG}; not a Keras 3 model folder.")

    def _admit(self, name, size):
        _check_name(name, self.where)
        if name not in (CONFIG, METADATA, WEIGHTS) and not name.startswith(ASSETS):
            raise LoadError(f"{self.where}: unexpected file {name!r}; a model folder holds "
                            f"{CONFIG}, {METADATA}, {WEIGHTS} and {ASSETS}.")
        self.members[name] = _Sized(size)

    def read(self, name: str, cap: int) -> bytes:
        """File ``name``'s bytes, refusing more than ``cap`` bytes."""
        info = self.members.get(name)
        if info is None:
            raise LoadError(f"{self.where}: missing file {name!r}.")
        if info.file_size > cap:
            raise LoadError(f"{self.where}: file {name!r} holds {info.file_size} bytes, more "
                            f"than the {cap} this model can need.")
        with open(os.path.join(self.where, name), "rb") as file:
            data = file.read(cap + 1)
        if len(data) != info.file_size:
            raise LoadError(f"{self.where}: file {name!r} changed while it was read.")
        return data

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        pass


class _Sized:
    """A folder member's size, as a zip member's info gives it (``file_size``)."""

    def __init__(self, size: int):
        self.file_size = size
