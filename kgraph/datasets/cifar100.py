"""CIFAR-100 as Keras loads it (``label_mode`` "fine": 100 classes, "coarse": 20)."""

import os

from kgraph.datasets.cifar import download, finish, load_batch

__all__ = ["load_data"]


def load_data(label_mode="fine"):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images, uint8 labels (n, 1)."""
    if label_mode not in ("fine", "coarse"):
        raise ValueError('`label_mode` must be one of `"fine"`, `"coarse"`. '
                         f"Received: label_mode={label_mode}.")
    path = os.path.join(download("cifar100", "cifar-100-python-target"), "cifar-100-python")
    key = f"{label_mode}_labels"
    x_train, y_train = load_batch(os.path.join(path, "train"), label_key=key)
    x_test, y_test = load_batch(os.path.join(path, "test"), label_key=key)
    return finish(x_train, y_train, x_test, y_test)
