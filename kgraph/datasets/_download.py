"""Where the Keras datasets come from: Keras's origins, file names and hashes.

``ORIGIN`` can be changed (e.g. to a local mirror); files already in Keras's cache folder
are reused.
"""

from __future__ import annotations

import numpy as np

from kgraph.utils.file_utils import get_file

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
HASHES = {
    "mnist.npz": "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1",
    "boston_housing.npz": "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5",
    "california_housing.npz":
        "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f",
    "imdb.npz": "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
    "imdb_word_index.json": "bfafd718b763782e994055a2d397834f",
    "reuters.npz": "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916",
    "reuters_word_index.json": "4d44cc38712099c9e383dc6e5f11a921",
}


def fetch(name, fname=None, cache_subdir="datasets"):
    """The cached path of dataset file ``name`` (downloaded from ``ORIGIN`` if needed)."""
    return get_file(fname or name, origin=ORIGIN + name, file_hash=HASHES.get(name),
                    cache_subdir=cache_subdir)


def load_npz(path, *names):
    """Arrays from a plain ``.npz`` (never unpickling anything)."""
    with np.load(path, allow_pickle=False) as data:
        return tuple(data[n] for n in names)


def split(x, y, test_split, seed):
    """Keras's shuffle (``RandomState(seed)``) and train/test split."""
    if not 0 <= test_split < 1:
        raise ValueError(f"Invalid `test_split` argument: {test_split}. It must be between 0 "
                         "and 1 (exclusive of 1).")
    indices = np.arange(len(x))
    np.random.RandomState(seed).shuffle(indices)
    x, y = x[indices], y[indices]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))
