"""``use_ema`` together with ``gradient_accumulation_steps`` against Keras: Keras updates
the moving average at every batch, also the batches that only accumulate gradients, and
overwrites the weights by the ``iterations`` (updates) count. Compared: the final weights
(``fit`` ends on the average) and the optimizer variables (averages, accumulators,
moments) after several epochs, from the same weights."""

import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(1)
X = _rng.normal(size=(40, 3)).astype("float32")
Y = _rng.normal(size=(40, 2)).astype("float32")

CASES = [
    {"gradient_accumulation_steps": 3},
    {"gradient_accumulation_steps": 2, "ema_momentum": 0.5, "ema_overwrite_frequency": 2},
    {"gradient_accumulation_steps": 4, "ema_momentum": 0.9, "ema_overwrite_frequency": 3},
]


def _fitted(name, kwargs):
    """Keras's and kgraph's small model, from Keras's initial weights, fitted alike."""
    models = []
    for lib in (keras, kg):
        x = lib.Input((3,))
        h = lib.layers.Dense(4, activation="tanh", name="a")(x)
        model = lib.Model(x, lib.layers.Dense(2, name="b")(h))
        if models:
            model.set_weights(models[0].get_weights())
        model.compile(getattr(lib.optimizers, name)(learning_rate=0.05, use_ema=True,
                                                    **kwargs), "mse")
        models.append(model)
    for model in models:
        model.fit(X, Y, epochs=3, batch_size=8, shuffle=False, verbose=0)  # 15 batches
    return models


@pytest.mark.parametrize("name", ["SGD", "Adam"])
@pytest.mark.parametrize("kwargs", CASES, ids=[str(i) for i in range(len(CASES))])
def test_moving_average_under_accumulation_matches_keras(name, kwargs):
    theirs, ours = _fitted(name, kwargs)
    for a, b in zip(ours.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    ours_vars, their_vars = ours.optimizer.variables, theirs.optimizer.variables
    assert [v.name for v in ours_vars] == [v.name for v in their_vars]
    assert any(v.name.endswith("_average") for v in ours_vars)
    for a, b in zip(ours_vars, their_vars, strict=True):
        np.testing.assert_allclose(a.numpy(), np.asarray(b.value), rtol=1e-5, atol=1e-6,
                                   err_msg=b.name)
