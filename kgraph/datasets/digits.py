"""Small real datasets shipped with kgraph (no download needed).

>>> x, y = load_digits()
>>> x.shape, y.shape, int(x.max())
((1797, 8, 8), (1797,), 16)
"""

from __future__ import annotations

import gzip
import os

import numpy as np

__all__ = ["load_digits"]


_HERE = os.path.dirname(__file__)


def load_digits():
    """The 1,797 8x8 handwritten digits of the UCI optical digits set (see DIGITS.md).

    Returns ``(images, labels)``: images float32 (1797, 8, 8) with pixel counts 0..16,
    labels int32 (1797,) in 0..9.
    """
    with gzip.open(os.path.join(_HERE, "digits.csv.gz"), "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float32)
    return table[:, :64].reshape(-1, 8, 8), table[:, 64].astype(np.int32)
