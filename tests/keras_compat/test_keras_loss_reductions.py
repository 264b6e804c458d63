"""Keras's loss reductions (``"sum"``, ``"mean_with_sample_weight"``, ``None`` / ``"none"``
besides ``"sum_over_batch_size"``) and ``dtype``, and metrics' ``dtype`` and
``from_sorted_ids``, against Keras 3: eager values, and ``fit`` / ``evaluate`` over a
partial last batch."""

from __future__ import annotations

import inspect

import keras
import numpy as np
import pytest

import kgraph as kg

REDUCTIONS = ["sum_over_batch_size", "mean", "sum", "mean_with_sample_weight", None, "none"]
LOSSES = ["MeanSquaredError", "Huber", "CategoricalCrossentropy", "BinaryCrossentropy"]


def _data(seed, shape=(6, 3)):
    rng = np.random.default_rng(seed)
    y_true = rng.uniform(size=shape).astype("float32")
    y_pred = rng.uniform(0.05, 0.95, size=shape).astype("float32")
    weight = rng.uniform(size=shape[:1]).astype("float32")
    mask = rng.uniform(size=shape[:1]) > 0.3
    return y_true, y_pred, weight, mask


@pytest.mark.parametrize("reduction", REDUCTIONS, ids=str)
@pytest.mark.parametrize("name", LOSSES)
def test_each_reduction_gives_kerass_value(name, reduction):
    y_true, y_pred, weight, _ = _data(1)
    ours = getattr(kg.losses, name)(reduction=reduction)
    theirs = getattr(keras.losses, name)(reduction=reduction)
    assert ours.get_config()["reduction"] == theirs.get_config()["reduction"]
    for sample_weight in (None, weight):
        got = np.asarray(ours(y_true, y_pred, sample_weight=sample_weight))
        want = np.asarray(theirs(y_true, y_pred, sample_weight=sample_weight))
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def _assert_masked_equal(ours, theirs, y_true, y_pred, weight, mask):
    """``ours(..., mask=mask)`` equals Keras's loss on ``y_pred`` carrying ``mask`` as its
    ``_keras_mask``, without and with ``weight``."""
    from keras.src.backend import set_keras_mask

    masked = keras.ops.convert_to_tensor(y_pred)
    set_keras_mask(masked, keras.ops.convert_to_tensor(mask))
    for sample_weight in (None, weight):
        np.testing.assert_allclose(
            np.asarray(ours(y_true, y_pred, sample_weight=sample_weight, mask=mask)),
            np.asarray(theirs(y_true, masked, sample_weight=sample_weight)), rtol=1e-5)


@pytest.mark.parametrize("reduction", ["sum", "mean_with_sample_weight", None])
def test_a_mask_weighs_entries_as_kerass_keras_mask(reduction):
    """kgraph's ``mask=`` plays Keras's ``y_pred._keras_mask``."""
    y_true, y_pred, weight, mask = _data(2, (6, 4))
    ours = kg.losses.MeanSquaredError(reduction=reduction)
    theirs = keras.losses.MeanSquaredError(reduction=reduction)
    _assert_masked_equal(ours, theirs, y_true, y_pred, weight, mask)


@pytest.mark.parametrize("reduction", ["sum", "mean_with_sample_weight"])
def test_fit_and_evaluate_with_a_reduction_equal_kerass_over_a_partial_batch(reduction):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(10, 3)).astype("float32")
    y = rng.normal(size=(10, 2)).astype("float32")
    weight = rng.uniform(size=(10,)).astype("float32")

    def build(lib):
        inputs = lib.Input((3,))
        return lib.Model(inputs, lib.layers.Dense(2, name="d")(inputs))

    theirs, ours = build(keras), build(kg)
    ours.set_weights(theirs.get_weights())
    results = []
    for model, lib in ((ours, kg), (theirs, keras)):
        model.compile(lib.optimizers.SGD(0.01), lib.losses.MeanSquaredError(reduction=reduction))
        history = model.fit(x, y, sample_weight=weight, batch_size=4, epochs=2, shuffle=False,
                            verbose=0)
        results.append((history.history["loss"],
                        model.evaluate(x, y, sample_weight=weight, batch_size=4, verbose=0),
                        model.get_weights()))
    (loss, evaluated, weights), (their_loss, their_evaluated, their_weights) = results
    np.testing.assert_allclose(loss, their_loss, rtol=1e-5)
    np.testing.assert_allclose(evaluated, their_evaluated, rtol=1e-5)
    for a, b in zip(weights, their_weights):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("reduction", ["sum", "mean_with_sample_weight", None,
                                       "sum_over_batch_size"], ids=str)
def test_one_value_for_the_batch_is_weighed_and_masked_as_kerass(reduction):
    """A loss that reduces the batch itself: Keras broadcasts its value over the weights
    and the mask, then reduces."""
    from keras.src.losses.losses import LossFunctionWrapper

    y_true, y_pred, weight, _ = _data(6, (4, 3))
    mask = np.array([1, 1, 0, 1], bool)
    ours = kg.losses.LossFunctionWrapper(lambda a, b: kg.ops.mean((a - b) ** 2),
                                         reduction=reduction)
    theirs = LossFunctionWrapper(lambda a, b: keras.ops.mean((a - b) ** 2), reduction=reduction)
    _assert_masked_equal(ours, theirs, y_true, y_pred, weight, mask)


def test_a_loss_without_reduction_is_refused_by_compile():
    x = kg.Input((3,))
    model = kg.Model(x, kg.layers.Dense(1, name="d")(x))
    with pytest.raises(ValueError, match="reduction=None: it gives one value per sample"):
        model.compile("sgd", kg.losses.MeanSquaredError(reduction=None))


def test_unknown_reductions_are_refused_as_keras():
    for lib in (kg, keras):
        with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
            lib.losses.MeanSquaredError(reduction="max")


def test_a_loss_dtype_is_its_computation_dtype_as_keras():
    y_true, y_pred, weight, _ = _data(4)
    for dtype in (None, "float32", "bfloat16", "mixed_bfloat16"):
        ours = kg.losses.Huber(dtype=dtype)
        theirs = keras.losses.Huber(dtype=dtype)
        assert ours.dtype == theirs.dtype
        got = ours(y_true, y_pred, sample_weight=weight)
        want = theirs(y_true, y_pred, sample_weight=weight)
        assert np.dtype(got.dtype) == np.dtype(want.dtype)
        np.testing.assert_allclose(np.asarray(got, "float32"), np.asarray(want, "float32"),
                                   rtol=1e-2 if "bfloat16" in str(dtype) else 1e-6)


_METRIC_ARGUMENTS = {"num_classes": 2, "target_class_ids": [0], "recall": 0.5,
                     "precision": 0.5, "specificity": 0.5, "sensitivity": 0.5,
                     "fn": lambda y_true, y_pred: y_pred, "loss": "mse"}


def _metric_classes():
    for name in sorted(dir(kg.metrics)):
        cls = getattr(kg.metrics, name)
        if inspect.isclass(cls) and issubclass(cls, kg.metrics.Metric) and (
                "dtype" in inspect.signature(cls).parameters):
            yield name


@pytest.mark.parametrize("name", list(_metric_classes()))
def test_every_metric_dtype_is_the_given_one_as_kerass(name):
    # A metric's dtype is its state's and result's, as Keras's: the one given (also float16
    # and bfloat16), floatx() unless given (the IoU family: int32, its confusion matrix's).
    cls = getattr(kg.metrics, name)
    required = {p.name: _METRIC_ARGUMENTS[p.name]
                for p in inspect.signature(cls).parameters.values()
                if p.default is p.empty and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    for dtype in ("float32", "float16", "bfloat16"):
        assert cls(**required, dtype=dtype).dtype == dtype
    default = "int32" if "IoU" in name else "float32"
    assert cls(**required).dtype == default
    if hasattr(keras.metrics, name):
        theirs = getattr(keras.metrics, name)
        for dtype in (None, "float32", "float16", "bfloat16"):
            assert cls(**required, dtype=dtype).dtype == theirs(**required, dtype=dtype).dtype


def test_metrics_and_compile_work_whatever_floatx_is():
    previous = kg.config.floatx(), keras.config.floatx()
    try:
        kg.config.set_floatx("float16")
        keras.config.set_floatx("float16")
        assert kg.metrics.Mean().dtype == keras.metrics.Mean().dtype == "float16"
        x = kg.Input((3,))
        model = kg.Model(x, kg.layers.Dense(1, dtype="float32", name="d")(x))
        model.compile("sgd", "mse", metrics=["mae"])
    finally:
        kg.config.set_floatx(previous[0])
        keras.config.set_floatx(previous[1])


def test_sparse_top_k_from_sorted_ids_equals_kerass():
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 9, size=(12, 1))
    sorted_ids = np.argsort(-rng.normal(size=(12, 9)), axis=1)
    for k in (1, 3):
        ours = kg.metrics.SparseTopKCategoricalAccuracy(k=k, from_sorted_ids=True)
        theirs = keras.metrics.SparseTopKCategoricalAccuracy(k=k, from_sorted_ids=True)
        ours.update_state(labels, sorted_ids)
        theirs.update_state(labels, sorted_ids)
        assert float(ours.result()) == pytest.approx(float(theirs.result()), abs=1e-7)
        np.testing.assert_allclose(
            np.asarray(kg.metrics.sparse_top_k_categorical_accuracy(
                labels[:, 0], sorted_ids, k=k, from_sorted_ids=True)),
            np.asarray(keras.metrics.sparse_top_k_categorical_accuracy(
                labels[:, 0], sorted_ids, k=k, from_sorted_ids=True)))
