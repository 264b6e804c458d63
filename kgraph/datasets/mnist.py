"""MNIST digits as Keras loads them (``mnist.npz`` from Keras's origin and cache)."""

from kgraph.datasets._download import fetch, load_npz

__all__ = ["load_data"]


def load_data(path="mnist.npz"):
    """``(x_train, y_train), (x_test, y_test)``: uint8 28x28 images and uint8 labels."""
    x_train, y_train, x_test, y_test = load_npz(fetch("mnist.npz", path), "x_train",
                                                "y_train", "x_test", "y_test")
    return (x_train, y_train), (x_test, y_test)
