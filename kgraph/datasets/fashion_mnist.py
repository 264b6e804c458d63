"""Fashion-MNIST as Keras loads it (four gzipped IDX files in ``datasets/fashion-mnist``)."""

import gzip
import os

import numpy as np

from kgraph.datasets._download import fetch

__all__ = ["FILES", "load_data"]


FILES = ["train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
         "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz"]


def _read(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


def load_data():
    """``(x_train, y_train), (x_test, y_test)``: uint8 28x28 images and uint8 labels."""
    paths = [fetch(name, cache_subdir=os.path.join("datasets", "fashion-mnist"))
             for name in FILES]
    y_train, y_test = _read(paths[0], 8), _read(paths[2], 8)
    x_train = _read(paths[1], 16).reshape(len(y_train), 28, 28)
    x_test = _read(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
