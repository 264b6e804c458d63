"""Datasets: the UCI digits shipped with kgraph (``load_digits``, no download), and Keras's
loaders ``mnist``, ``fashion_mnist``, ``boston_housing``, ``california_housing`` (downloaded
once from Keras's origin into Keras's cache folder, hash-checked; see ``_download``).

>>> x, y = load_digits()
>>> x.shape, y.shape, int(x.max())
((1797, 8, 8), (1797,), 16)
"""

from kgraph.datasets import boston_housing, california_housing, fashion_mnist, mnist
from kgraph.datasets.digits import load_digits

__all__ = ["boston_housing", "california_housing", "fashion_mnist", "load_digits", "mnist"]
