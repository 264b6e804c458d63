"""``optimizer.update_step(gradient, variable, learning_rate)``: one step of the update
rule alone on one built weight, as Keras's (no clipping, weight decay, moving average or
accumulation; iterations unchanged; the other weights' slots untouched)."""

import keras
import numpy as np
import pytest

import kgraph as kg

_A = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
_B = np.array([1.0, 2.0], np.float32)
_GA = np.array([[3.0, -1.0], [1.0, 2.0]], np.float32)
_GB = np.array([3.0, -1.0], np.float32)

CASES = [("Adam", {"clipnorm": 0.1}), ("SGD", {"momentum": 0.9, "weight_decay": 0.1}),
         ("Muon", {"weight_decay": 0.1}), ("Muon", {}),
         ("Adam", {"gradient_accumulation_steps": 2}),
         ("AdamW", {"use_ema": True}), ("RMSprop", {"momentum": 0.5})]


def _steps(lib, name, kwargs):
    a, b = lib.Variable(_A, name="a"), lib.Variable(_B, name="b")
    optimizer = getattr(lib.optimizers, name)(**kwargs)
    optimizer.build([a, b])
    for _ in range(2):
        optimizer.update_step(_GA, a, 0.1)
        optimizer.update_step(_GB, b, 0.05)
    return np.asarray(a.numpy()), np.asarray(b.numpy()), int(np.asarray(optimizer.iterations))


@pytest.mark.parametrize("name, kwargs", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_update_step_as_keras(name, kwargs):
    ours, theirs = _steps(kg, name, kwargs), _steps(keras, name, kwargs)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-5)
    assert ours[2] == theirs[2] == 0


def test_update_step_needs_a_built_optimizer_and_one_of_its_weights():
    optimizer = kg.optimizers.Adam()
    weight = kg.Variable(_B)
    with pytest.raises(ValueError, match="build"):
        optimizer.update_step(_GB, weight, 0.1)
    optimizer.build([weight])
    with pytest.raises(ValueError, match="expected one of the variables"):
        optimizer.update_step(_GB, kg.Variable(_B), 0.1)
