"""CIFAR-10 as Keras loads it: 50,000 + 10,000 32x32 colour images in 10 classes."""

import os

import numpy as np

from kgraph.datasets.cifar import download, finish, load_batch

__all__ = ["load_data"]


def load_data():
    """``(x_train, y_train), (x_test, y_test)``: uint8 images, uint8 labels (n, 1)."""
    path = os.path.join(download("cifar10", "cifar-10-batches-py-target"),
                        "cifar-10-batches-py")
    parts = [load_batch(os.path.join(path, f"data_batch_{i}")) for i in range(1, 6)]
    x_train = np.concatenate([x for x, _ in parts]).astype("uint8")
    y_train = np.concatenate([np.asarray(y) for _, y in parts])
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))
    return finish(x_train, y_train, x_test, y_test)
