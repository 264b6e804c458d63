"""A variable made on its own (``keras.Variable(...)``) computes as an array, with Keras 3 as
the oracle: ``keras.ops`` take it, Python operators and comparisons read its value, and
NumPy converts it; after ``assign`` each use reads the new value."""

from __future__ import annotations

import keras
import numpy as np

import kgraph as kg


def _uses(lib):
    v = lib.Variable(np.array([[1.0, -2.0], [3.0, 0.5]], np.float32), name="v")
    first = [lib.ops.sum(v), lib.ops.absolute(v), lib.ops.matmul(v, lib.ops.transpose(v)),
             v * 2.0, 1.0 - v, v @ v, -v, v > 0.0, v[1], float(v[0, 0]), np.asarray(v)]
    v.assign(np.full((2, 2), 4.0, np.float32))
    return first + [lib.ops.sum(v), v + v]


def test_standalone_variables_compute_as_kerass():
    for ours, theirs in zip(_uses(kg), _uses(keras), strict=True):
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
