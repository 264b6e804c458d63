"""Datasets: the UCI digits shipped with kgraph (``load_digits``, no download), and Keras's
loaders ``mnist``, ``fashion_mnist``, ``cifar10``, ``cifar100``, ``imdb``, ``reuters``,
``boston_housing``, ``california_housing`` (downloaded once from Keras's origins into
Keras's cache folder, hash-checked; pickled files read without running code).

>>> x, y = load_digits()
>>> x.shape, y.shape, int(x.max())
((1797, 8, 8), (1797,), 16)
"""

from kgraph.datasets import (boston_housing, california_housing, cifar10, cifar100,
                             fashion_mnist, imdb, mnist, reuters)
from kgraph.datasets.digits import load_digits

__all__ = ["boston_housing", "california_housing", "cifar10", "cifar100", "fashion_mnist",
           "imdb", "load_digits", "mnist", "reuters"]
