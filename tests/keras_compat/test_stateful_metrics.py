"""Metrics written in Keras's stateful style, with Keras 3 as the oracle.

A ``Metric`` subclass with ``add_variable`` state, changed by ``assign_add`` in its own
``update_state`` and read by ``result()`` (keras.io's training guide), and a built-in
metric extended by overriding ``update_state``: used eagerly, and compiled into ``fit``
and ``evaluate`` (their state is the metric's state inside the jitted step), they give
Keras's values. A partial last batch runs unpadded for them: such a metric may ignore the
sample weights that would leave padding rows out.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(11)
X = _rng.normal(size=(50, 3)).astype(np.float32)  # batches of 16: the last one has 2 rows
Y = _rng.integers(0, 4, size=(50, 1)).astype(np.int32)


def _true_positives(lib):
    class CategoricalTruePositives(lib.metrics.Metric):
        def __init__(self, name="categorical_true_positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.true_positives = self.add_variable(shape=(), name="ctp",
                                                    initializer="zeros")

        def update_state(self, y_true, y_pred, sample_weight=None):
            y_pred = lib.ops.reshape(lib.ops.argmax(y_pred, axis=1), (-1, 1))
            values = lib.ops.cast(y_true, "int32") == lib.ops.cast(y_pred, "int32")
            values = lib.ops.cast(values, "float32")
            if sample_weight is not None:
                values = lib.ops.multiply(values, lib.ops.cast(sample_weight, "float32"))
            self.true_positives.assign_add(lib.ops.sum(values))

        def result(self):
            return self.true_positives.value

        def reset_state(self):
            self.true_positives.assign(0.0)
    return CategoricalTruePositives()


def _extended_mean(lib):
    class MeanTopLogit(lib.metrics.Mean):
        def update_state(self, y_true, y_pred, sample_weight=None):
            super().update_state(lib.ops.max(y_pred, axis=-1), sample_weight)
    return MeanTopLogit(name="mean_top_logit")


def _counter(lib):
    class Counter(lib.metrics.Metric):
        """Two variables, one an integer, and a ratio as the result."""

        def __init__(self, **kwargs):
            super().__init__(name="counter", **kwargs)
            self.batches = self.add_variable((), initializer="zeros", dtype="int32",
                                             name="batches")
            self.total = self.add_weight(shape=(), initializer="zeros", name="total")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.batches.assign_add(1)
            self.total.assign_add(lib.ops.sum(y_pred))

        def result(self):
            return self.total.value / lib.ops.cast(self.batches.value, "float32")
    return Counter()


METRICS = {"true_positives": _true_positives, "extended_mean": _extended_mean,
           "counter": _counter}


@pytest.mark.parametrize("metric", sorted(METRICS))
def test_stateful_metric_used_eagerly_as_keras(metric):
    values = []
    for lib in (keras, kg):
        m = METRICS[metric](lib)
        m.update_state(Y[:16], X[:16, :2] * 3.0)
        first = float(np.asarray(m.result()))
        m.update_state(Y[16:20], X[16:20, :2])
        second = float(np.asarray(m.result()))
        m.reset_state()
        values.append((first, second, float(np.asarray(m.result())), len(m.variables)))
    np.testing.assert_allclose(values[1], values[0], rtol=1e-6, equal_nan=True)


def _model(lib):
    x = lib.Input((3,), name="x")
    return lib.Model(x, lib.layers.Dense(4, name="logits")(x), name="classifier")


def _train(model, lib, metric):
    model.compile(optimizer="sgd",
                  loss=lib.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[METRICS[metric](lib)])
    history = model.fit(X, Y, batch_size=16, epochs=2, shuffle=False, verbose=0,
                        validation_data=(X[:20], Y[:20]))
    evaluated = model.evaluate(X, Y, batch_size=16, verbose=0, return_dict=True)
    return history.history, evaluated


@pytest.mark.parametrize("metric", sorted(METRICS))
def test_stateful_metric_compiled_into_fit_as_keras(metric):
    keras.utils.set_random_seed(4)
    theirs, ours = _model(keras), _model(kg)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    expected, got = _train(theirs, keras, metric), _train(ours, kg, metric)
    assert sorted(got[0]) == sorted(expected[0])
    for key in expected[0]:
        np.testing.assert_allclose(got[0][key], expected[0][key], rtol=1e-5, err_msg=key)
    assert sorted(got[1]) == sorted(expected[1])
    for key in expected[1]:
        np.testing.assert_allclose(got[1][key], expected[1][key], rtol=1e-5, err_msg=key)
