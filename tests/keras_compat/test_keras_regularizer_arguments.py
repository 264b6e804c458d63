"""Regularizers and constraints as Keras 3's: factors are validated as Keras validates them
(a negative, infinite, NaN or non-number factor is refused with Keras's phrase; None is the
default), the names ``get`` accepts, the base classes as no-op objects, and variables as
inputs, with Keras 3 as the oracle."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg


@pytest.mark.parametrize("make", [
    lambda lib: lib.regularizers.L1(-0.1),
    lambda lib: lib.regularizers.L2(float("inf")),
    lambda lib: lib.regularizers.L1L2(l1=float("nan")),
    lambda lib: lib.regularizers.L1L2(l2="0.1"),
    lambda lib: lib.regularizers.OrthogonalRegularizer(factor=-1),
])
def test_bad_factors_are_refused_as_keras(make):
    with pytest.raises(ValueError, match="expected a non-negative float"):
        make(keras)
    with pytest.raises(ValueError, match="expected a non-negative float"):
        make(kg)


@pytest.mark.parametrize("make", [
    lambda lib: lib.regularizers.L2(None),
    lambda lib: lib.regularizers.L1L2(None, 0.3),
    lambda lib: lib.regularizers.L1L2(l1=2),
])
def test_factor_defaults_and_ints_as_keras(make):
    theirs, ours = make(keras).get_config(), make(kg).get_config()
    assert ours.keys() == theirs.keys()
    for key in theirs:
        assert ours[key] == pytest.approx(theirs[key])
        assert type(ours[key]) is float


@pytest.mark.parametrize("name", ["l1l2", "L1", "L1L2", "OrthogonalRegularizer",
                                  "regularizer", "Regularizer"])
def test_regularizer_names_as_keras(name):
    theirs, ours = keras.regularizers.get(name), kg.regularizers.get(name)
    assert type(ours).__name__ == type(theirs).__name__
    x = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-6)


@pytest.mark.parametrize("name", ["MaxNorm", "NonNeg", "UnitNorm", "MinMaxNorm",
                                  "constraint", "Constraint"])
def test_constraint_names_as_keras(name):
    theirs, ours = keras.constraints.get(name), kg.constraints.get(name)
    assert type(ours).__name__ == type(theirs).__name__
    x = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda lib: lib.regularizers.L1L2(l1=0.1, l2=0.2),
    lambda lib: lib.regularizers.OrthogonalRegularizer(0.1, mode="columns"),
    lambda lib: lib.constraints.MaxNorm(1.5),
    lambda lib: lib.constraints.NonNeg(),
    lambda lib: lib.constraints.MinMaxNorm(0.5, 1.0, rate=0.5),
])
def test_variables_as_inputs_as_keras(make):
    value = np.array([[1.0, -2.0, 0.3], [0.5, 3.0, -1.0]], np.float32)
    theirs = make(keras)(keras.Variable(value))
    ours = make(kg)(kg.Variable(value))
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5)
