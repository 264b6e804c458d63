"""California housing prices as Keras loads them (``version`` "large" or "small")."""

from kgraph.datasets._download import fetch, load_npz, split

__all__ = ["load_data"]


def load_data(version="large", path="california_housing.npz", test_split=0.2, seed=113):
    """``(x_train, y_train), (x_test, y_test)`` with Keras's shuffle and split."""
    x, y = load_npz(fetch("california_housing.npz", path), "x", "y")
    if version == "small":
        x, y = x[:600], y[:600]
    elif version != "large":
        raise ValueError(f"Argument `version` must be one of 'small', 'large'. Received: "
                         f"version={version}")
    return split(x, y, test_split, seed)
