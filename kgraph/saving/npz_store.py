"""``NpzIOStore``: Keras's store of named arrays in a NumPy ``.npz`` file (or an ``.npz``
member of a zip archive), as ``keras.src.saving.saving_lib`` names it.

A file read is data: no pickles, and before a member is read its ``.npy`` header is
checked against the bytes it stores, so a member declaring a huge array it does not hold
(a decompression or shape bomb) is refused before anything is allocated.

>>> import io, numpy as np
>>> buffer = io.BytesIO()
>>> np.savez(buffer, w=np.arange(3.0)); _ = buffer.seek(0)
>>> NpzIOStore(buffer, mode="r").get("w")
[0.0, 1.0, 2.0]
"""

from __future__ import annotations

import math

import numpy as np
from numpy.lib import format as npy_format

__all__ = ["NpzIOStore"]

# Deflate expands at most ~1032 times; a member past this ratio (above a small floor) declares
# data it does not store.
_MAX_EXPANSION = 1100
_FLOOR_BYTES = 1 << 20


class NpzIOStore:
    """Named arrays in an ``.npz`` file: ``root_path`` (a path or binary file object), or,
    with ``archive`` (a ``zipfile.ZipFile``), the member ``root_path`` of that archive.
    ``mode="w"``: ``make(path)`` gives a dict to fill, written on ``close()``;
    ``mode="r"``: ``get(path)`` gives the stored value (``{}`` when there is none)."""

    def __init__(self, root_path, archive=None, mode="r"):
        self.root_path, self.archive, self.mode = root_path, archive, mode
        self.f = None
        if mode == "w":
            self.contents = {}
            return
        if archive is not None:
            self.f = archive.open(root_path, mode="r")
        elif hasattr(root_path, "read"):
            self.f = root_path
        else:
            self.f = open(root_path, mode="rb")
        self.contents = np.load(self.f, allow_pickle=False)

    def make(self, path, metadata=None):
        """A new dict stored under ``path`` (``"__root__"`` for the empty path)."""
        self.contents[path or "__root__"] = {}
        return self.contents[path or "__root__"]

    def has_path(self, path) -> bool:
        return path in self.contents

    def get(self, path):
        """The value stored under ``path`` (as Keras's: ``tolist()`` of the array), or ``{}``."""
        if not path:
            return dict(self.contents["__root__"]) if "__root__" in self.contents else {}
        if path not in self.contents:
            return {}
        self._check_member(path)
        return self.contents[path].tolist()

    def _check_member(self, path) -> None:
        zip_file = getattr(self.contents, "zip", None)
        if zip_file is None:
            return
        info = zip_file.getinfo(f"{path}.npy")
        with zip_file.open(info) as member:
            major, _ = npy_format.read_magic(member)
            read_header = (npy_format.read_array_header_1_0 if major == 1
                           else npy_format.read_array_header_2_0)
            shape, _, dtype = read_header(member)
        declared = math.prod(shape) * dtype.itemsize
        if declared > _FLOOR_BYTES and declared > _MAX_EXPANSION * max(info.compress_size, 1):
            raise ValueError(f"Refusing to load npz weight {path!r}: its header declares "
                             f"{declared} bytes (shape {shape}, dtype {dtype}) but only "
                             f"{info.compress_size} bytes are stored for it.")

    def close(self) -> None:
        if self.mode == "w":
            target = self.root_path
            if self.archive is not None:
                with self.archive.open(self.root_path, mode="w") as member:
                    np.savez(member, **self.contents)
            else:
                np.savez(target, **self.contents)
        elif self.f is not None:
            self.contents.close()
            if self.f is not self.root_path:
                self.f.close()
