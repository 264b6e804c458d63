"""Metric objects answer as Keras 3's, with Keras as the oracle: calling a metric adds the
batch to what it has seen (``update_state`` then ``result()``), ``metric.variables`` lists
Keras's variables in Keras's order and names (also for a metric written in Keras's
stateful style that extends a built-in one and holds another metric), a metric's ``dtype``
is its state's and result's, and ``compile(loss="crossentropy")`` and an unweighted
``SparseCategoricalCrossentropy(ignore_class=...)`` metric give Keras's numbers in
``fit`` / ``evaluate``, also over a partial last batch.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(3)


def test_calling_a_metric_accumulates_like_keras():
    batches = [_rng.normal(size=(4, 3)).astype(np.float32) for _ in range(3)]
    ours, theirs = kg.metrics.Mean(), keras.metrics.Mean()
    for batch in batches:
        np.testing.assert_allclose(ours(batch), theirs(batch), rtol=1e-6)
    np.testing.assert_allclose(ours.result(), theirs.result(), rtol=1e-6)


def _updated(lib, name):
    y_true = np.array([[0, 1, 1], [1, 0, 1]], np.float32)
    y_pred = np.array([[0.2, 0.7, 0.9], [0.6, 0.4, 0.3]], np.float32)
    metric = {"precision": lambda: lib.metrics.Precision(),
              "recall": lambda: lib.metrics.Recall(thresholds=[0.3, 0.6]),
              "auc": lambda: lib.metrics.AUC(num_thresholds=5),
              "multi_label_auc": lambda: lib.metrics.AUC(num_thresholds=5, multi_label=True),
              "f1": lambda: lib.metrics.F1Score(),
              "r2": lambda: lib.metrics.R2Score(),
              "mean_iou": lambda: lib.metrics.MeanIoU(num_classes=2),
              "sensitivity": lambda: lib.metrics.SensitivityAtSpecificity(0.5, 5),
              "mse": lambda: lib.metrics.MeanSquaredError()}[name]()
    if name == "mean_iou":
        metric.update_state(y_true > 0.5, y_pred > 0.5)
    else:
        metric.update_state(y_true, y_pred)
    return metric


@pytest.mark.parametrize("name", ["precision", "recall", "auc", "multi_label_auc", "f1", "r2", "mse",
                                  "sensitivity", "mean_iou"])
def test_variables_are_kerass_in_order_name_and_value(name):
    ours, theirs = _updated(kg, name), _updated(keras, name)
    assert [v.name for v in ours.variables] == [v.name for v in theirs.variables]
    for mine, keras_variable in zip(ours.variables, theirs.variables):
        np.testing.assert_allclose(mine.numpy(), keras_variable.numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours.result(), theirs.result(), rtol=1e-5, atol=1e-7)


def _extended_mean(lib):
    class CountedMean(lib.metrics.Mean):
        def __init__(self):
            super().__init__(name="counted_mean")
            self.batches = self.add_variable(shape=(), initializer="zeros", name="batches")
            self.largest = lib.metrics.Sum(name="largest")

        def update_state(self, values, sample_weight=None):
            super().update_state(values, sample_weight)
            self.batches.assign_add(1.0)
            self.largest.update_state(lib.ops.max(values))

        def result(self):
            return super().result() + self.batches.value + self.largest.result()

    return CountedMean()


def test_keras_style_metric_lists_inner_own_and_sub_metric_variables_like_keras():
    ours, theirs = _extended_mean(kg), _extended_mean(keras)
    for values in (np.array([1.0, 5.0]), np.array([2.0, 3.0, 4.0])):
        ours.update_state(values)
        theirs.update_state(values)
    assert [v.name for v in ours.variables] == [v.name for v in theirs.variables]
    np.testing.assert_allclose([np.asarray(v) for v in ours.variables],
                               [np.asarray(v) for v in theirs.variables], rtol=1e-6)
    np.testing.assert_allclose(ours.result(), theirs.result(), rtol=1e-6)
    # the same numbers purely, from the flat list of variables Keras's stateless API uses
    fresh = _extended_mean(kg)
    variables = fresh.stateless_reset_state()
    for values in (np.array([1.0, 5.0]), np.array([2.0, 3.0, 4.0])):
        variables = fresh.stateless_update_state(variables, values)
    np.testing.assert_allclose(fresh.stateless_result(variables), theirs.result(), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_a_metric_dtype_is_its_state_and_result_dtype(dtype):
    values = _rng.uniform(size=(6, 2)).astype(np.float32)
    ours, theirs = kg.metrics.Mean(dtype=dtype), keras.metrics.Mean(dtype=dtype)
    assert ours(values).dtype == theirs(values).dtype
    assert [v.dtype for v in ours.variables] == [np.dtype(v.dtype) for v in theirs.variables]
    np.testing.assert_allclose(np.float32(ours.result()), np.float32(theirs.result()),
                               rtol=1e-2)
    assert ours.get_config() == theirs.get_config()


def _fit_history(lib, loss, metrics, x, y):
    model = lib.Sequential([lib.Input((x.shape[1],)), lib.layers.Dense(y_width(loss, y))])
    model.layers[-1].set_weights([np.full((x.shape[1], y_width(loss, y)), 0.1, np.float32),
                                  np.zeros(y_width(loss, y), np.float32)])
    model.compile(optimizer=lib.optimizers.SGD(0.1), loss=loss, metrics=metrics)
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history
    return history, model.evaluate(x, y, batch_size=4, verbose=0, return_dict=True)


def y_width(loss, y):
    return 1 if y.ndim == 2 and y.shape[1] == 1 and y.dtype == np.float32 else 3


@pytest.mark.parametrize("targets", ["binary", "sparse", "categorical"])
def test_compile_crossentropy_resolves_from_shapes_like_keras(targets):
    x = _rng.normal(size=(10, 2)).astype(np.float32)  # batches of 4: the last one has 2
    labels = _rng.integers(0, 3, size=10)
    y = {"binary": (labels[:, None] > 0).astype(np.float32), "sparse": labels,
         "categorical": np.eye(3, dtype=np.float32)[labels]}[targets]
    if targets == "binary":
        x = np.abs(x)  # logits kept positive: probabilities in (0.5, 1)
    loss = "crossentropy" if targets != "binary" else "ce"
    ours = _fit_history(kg, loss, ["accuracy"], x, y)
    theirs = _fit_history(keras, loss, ["accuracy"], x, y)
    for key in theirs[0]:
        np.testing.assert_allclose(ours[0][key], theirs[0][key], rtol=1e-5)
    for key in theirs[1]:
        np.testing.assert_allclose(ours[1][key], theirs[1][key], rtol=1e-5)


def test_unweighted_ignore_class_metric_over_a_partial_batch_is_kerass():
    x = _rng.normal(size=(10, 2)).astype(np.float32)  # batches of 4: the last one has 2
    y = _rng.integers(0, 3, size=10)
    y[[1, 9]] = 0  # ignored entries, one in the partial last batch

    def run(lib):
        model = lib.Sequential([lib.Input((2,)), lib.layers.Dense(3, activation="softmax")])
        model.layers[-1].set_weights([np.full((2, 3), 0.2, np.float32),
                                      np.array([0.1, 0.0, -0.1], np.float32)])
        metric = lib.metrics.SparseCategoricalCrossentropy(ignore_class=0, name="scce")
        model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy",
                      metrics=[metric])
        return model.evaluate(x, y, batch_size=4, verbose=0, return_dict=True)

    ours, theirs = run(kg), run(keras)
    np.testing.assert_allclose(ours["scce"], theirs["scce"], rtol=1e-6)
