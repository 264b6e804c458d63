"""CIFAR-10 and CIFAR-100 as Keras loads them (Toronto's Python-pickle batches, read with
an allow-list unpickler: ``safe_pickle``)."""

from __future__ import annotations


import numpy as np

from kgraph import config
from kgraph.datasets import safe_pickle
from kgraph.utils.file_utils import get_file

__all__ = ["HASHES", "ORIGINS", "download", "finish", "load_batch"]


ORIGINS = {"cifar10": "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
           "cifar100": "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"}
HASHES = {"cifar10": "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
          "cifar100": "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"}


def load_batch(fpath, label_key="labels"):
    """``(data (n, 3, 32, 32) uint8, labels)`` of one pickled batch file."""
    with open(fpath, "rb") as f:
        batch = safe_pickle.load(f, encoding="bytes")
    batch = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in batch.items()}
    data = np.asarray(batch["data"])
    return data.reshape(data.shape[0], 3, 32, 32), batch[label_key]


def finish(x_train, y_train, x_test, y_test):
    """Keras's shapes: labels (n, 1) uint8, images channels-last unless configured."""
    y_train = np.reshape(np.asarray(y_train, np.uint8), (len(y_train), 1))
    y_test = np.reshape(np.asarray(y_test, np.uint8), (len(y_test), 1))
    if config.image_data_format() == "channels_last":
        x_train, x_test = x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test.astype(x_train.dtype), y_test.astype(y_train.dtype))


def download(name, dirname):
    return get_file(fname=dirname, origin=ORIGINS[name], extract=True, file_hash=HASHES[name])
