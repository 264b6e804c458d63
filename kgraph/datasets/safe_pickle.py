"""Reading the pickled dataset files without running code from them.

CIFAR batches are Python pickles and the IMDB/Reuters ``.npz`` files hold object arrays
(pickled lists). ``load`` unpickles with an allow-list: NumPy's array reconstruction and
the byte-string codec, nothing else; any other global in the file is an error naming it.
``load_npz`` reads every array of an ``.npz``, object arrays through ``load``.
"""

from __future__ import annotations

import pickle
import zipfile

import numpy as np
from numpy.lib import format as npy_format

__all__ = ["load", "load_npz"]


_ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
            ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
            ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode")}


class _AllowListUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(
                f"Refusing to load {module}.{name}: dataset files may only hold NumPy arrays "
                "and plain Python values.")
        return super().find_class(module, name)


def load(file, encoding="ASCII"):
    """Unpickle ``file`` (an open binary file) allowing only arrays and plain values."""
    return _AllowListUnpickler(file, encoding=encoding).load()


def load_npz(path) -> dict:
    """``{name: array}`` of an ``.npz``; object arrays unpickled with ``load``."""
    arrays = {}
    with zipfile.ZipFile(path) as archive:
        for member in archive.namelist():
            if not member.endswith(".npy"):
                continue
            with archive.open(member) as f:
                version = npy_format.read_magic(f)
                read_header = (npy_format.read_array_header_1_0 if version == (1, 0)
                               else npy_format.read_array_header_2_0)
                shape, fortran, dtype = read_header(f)
                if dtype.hasobject:
                    array = np.asarray(load(f, encoding="latin1"), dtype=object)
                else:
                    data = np.frombuffer(f.read(), dtype=dtype)
                    array = data.reshape(shape, order="F" if fortran else "C")
                arrays[member[:-4]] = array.reshape(shape) if array.shape != shape else array
    return arrays
