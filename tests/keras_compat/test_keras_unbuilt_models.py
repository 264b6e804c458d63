"""A subclassed model compiled before it is built builds on its first batch, as Keras's,
whatever the data: a generator or a ``PyDataset`` (fit, evaluate, predict)."""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip("keras")

import kgraph as kg


def subclassed(lib):
    class Model(lib.Model):
        def __init__(self):
            super().__init__()
            self.hidden = lib.layers.Dense(3, activation="tanh", kernel_initializer="ones",
                                           bias_initializer="zeros")
            self.out = lib.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")

        def call(self, x, training=False):
            return self.out(self.hidden(x))
    return Model()


def batches(lib, kind, x, y):
    pairs = [(x[i:i + 4], y[i:i + 4]) for i in range(0, len(x), 4)]
    if kind == "generator":
        return (pair for pair in pairs)

    class Batches(lib.utils.PyDataset):  # re-iterable
        def __len__(self):
            return len(pairs)

        def __getitem__(self, index):
            return pairs[index]
    return Batches()


@pytest.mark.parametrize("kind", ["generator", "py_dataset"])
def test_unbuilt_subclassed_model_fits_evaluates_and_predicts_on_iterables(kind):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(12, 2)).astype("float32")
    y = rng.normal(size=(12, 1)).astype("float32")
    results = []
    for lib in (keras, kg):
        model = subclassed(lib)
        model.compile(optimizer=lib.optimizers.SGD(0.1), loss="mse")
        history = model.fit(batches(lib, kind, x, y), epochs=1, shuffle=False, verbose=0)
        loss = model.evaluate(batches(lib, kind, x, y), verbose=0)
        fresh = subclassed(lib)
        fresh.compile(optimizer="sgd", loss="mse")
        predicted = fresh.predict(batches(lib, kind, x, y), verbose=0)
        results.append((history.history["loss"], loss, [np.asarray(w) for w in model.weights],
                        predicted))
    (k_hist, k_loss, k_weights, k_pred), (g_hist, g_loss, g_weights, g_pred) = results
    np.testing.assert_allclose(g_hist, k_hist, rtol=1e-5)
    np.testing.assert_allclose(g_loss, k_loss, rtol=1e-5)
    for mine, theirs in zip(g_weights, k_weights, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g_pred, k_pred, rtol=1e-5)
