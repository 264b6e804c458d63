"""Initializers called as Keras calls them (``init(shape, dtype=None)``), with Keras 3 as the
oracle: which calls repeat their values (an int seed or none: the same values at every call
of one object; a ``SeedGenerator``: new values at every call; a clone: other values), the
functions ``get`` gives for a Keras-style function and for an array, and ``get(None)``."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg


def _repeats(lib, seed):
    init = lib.initializers.RandomNormal(seed=seed() if callable(seed) else seed)
    first, second = np.asarray(init(shape=(4, 3))), np.asarray(init(shape=(4, 3)))
    clone = np.asarray(type(init).from_config(init.get_config())(shape=(4, 3)))
    return np.array_equal(first, second), np.array_equal(first, clone)


@pytest.mark.parametrize("seed", [None, 7, "generator"])
def test_which_calls_repeat_their_values_as_keras(seed):
    def make(lib):
        return (lambda: lib.random.SeedGenerator(3)) if seed == "generator" else seed
    assert _repeats(kg, make(kg)) == _repeats(keras, make(keras))


def test_get_of_a_keras_style_function_and_an_array_is_called_as_keras():
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    for lib in (keras, kg):
        ones = lib.initializers.get(lambda shape, dtype=None: np.ones(shape, dtype))
        np.testing.assert_array_equal(np.asarray(ones(shape=(2, 2), dtype="float32")),
                                      np.ones((2, 2)))
        given = lib.initializers.get(values)
        np.testing.assert_array_equal(np.asarray(given(shape=(2, 3))), values)
        np.testing.assert_array_equal(np.asarray(given((2, 3), "float16")),
                                      values.astype("float16"))
        with pytest.raises(ValueError, match="Expected `shape` to be"):
            given(shape=(3, 2))


def test_get_none_is_none_as_keras():
    assert keras.initializers.get(None) is None
    assert kg.initializers.get(None) is None
    # a layer given None takes add_weight's default (glorot_uniform), as Keras's
    drawn = []
    for lib in (keras, kg):
        layer = lib.layers.Dense(2, kernel_initializer=None, bias_initializer=None)
        layer.build((None, 3))
        drawn.append([bool(np.asarray(w).any()) for w in layer.weights])
    assert drawn[1] == drawn[0]
    with pytest.raises(ValueError, match="initializer=None"):
        kg.Variable(None, shape=(2,))
