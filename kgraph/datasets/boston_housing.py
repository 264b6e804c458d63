"""Boston housing prices as Keras loads them (shuffled and split as Keras)."""

from kgraph.datasets._download import fetch, load_npz, split

__all__ = ["load_data"]


def load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """``(x_train, y_train), (x_test, y_test)`` with Keras's shuffle and split."""
    x, y = load_npz(fetch("boston_housing.npz", path), "x", "y")
    return split(x, y, test_split, seed)
