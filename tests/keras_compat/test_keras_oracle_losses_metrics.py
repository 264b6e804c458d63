"""Keras 3 as the oracle: every loss (weights, masks) and metric (several batches)."""

import re

import jax.numpy as jnp
import numpy as np
import pytest

keras = pytest.importorskip("keras")

from keras.src.backend.common.masking import set_keras_mask
from keras.src.trainers import compile_utils

from kgraph.losses import losses
from kgraph.metrics import metrics

B, C = 6, 4


def _data(rng, batch=B, classes=C):
    """Named inputs of one batch: targets and predictions of every kind."""
    logits = rng.normal(size=(batch, classes)).astype(np.float32)
    labels = rng.integers(0, classes, batch)
    return {
        "probs": rng.dirichlet(np.ones(classes), batch).astype(np.float32),
        "logits": logits,
        "sigmoid": (1 / (1 + np.exp(-logits))).astype(np.float32),
        "onehot": np.eye(classes, dtype=np.float32)[labels],
        "labels": labels,
        "labels_col": labels[:, None],
        "binary": rng.integers(0, 2, (batch, classes)).astype(np.float32),
        "signs": (rng.integers(0, 2, (batch, classes)) * 2 - 1).astype(np.float32),
        "real": rng.normal(size=(batch, classes)).astype(np.float32),
        "positive": rng.uniform(0, 2, (batch, classes)).astype(np.float32),
        "binary_col": rng.integers(0, 2, (batch,)).astype(np.float32),
        "sigmoid_col": rng.uniform(size=(batch, 1)).astype(np.float32),
    }


LOSS_CASES = {
    "mse": (losses.MeanSquaredError(), keras.losses.MeanSquaredError(), "real", "logits"),
    "mae": (losses.MeanAbsoluteError(), keras.losses.MeanAbsoluteError(), "real", "logits"),
    "mape": (losses.MeanAbsolutePercentageError(), keras.losses.MeanAbsolutePercentageError(),
             "real", "logits"),
    "msle": (losses.MeanSquaredLogarithmicError(), keras.losses.MeanSquaredLogarithmicError(),
             "positive", "sigmoid"),
    "huber": (losses.Huber(0.5), keras.losses.Huber(0.5), "real", "logits"),
    "log_cosh": (losses.LogCosh(), keras.losses.LogCosh(), "real", "logits"),
    "cce": (losses.CategoricalCrossentropy(), keras.losses.CategoricalCrossentropy(),
            "onehot", "probs"),
    "cce_logits_smooth": (losses.CategoricalCrossentropy(True, 0.1),
                          keras.losses.CategoricalCrossentropy(True, 0.1), "onehot", "logits"),
    "cce_unnormalised_smooth": (losses.CategoricalCrossentropy(False, 0.2),
                                keras.losses.CategoricalCrossentropy(False, 0.2), "onehot",
                                "positive"),
    "scce": (losses.SparseCategoricalCrossentropy(),
             keras.losses.SparseCategoricalCrossentropy(), "labels", "probs"),
    "scce_logits_col": (losses.SparseCategoricalCrossentropy(True),
                        keras.losses.SparseCategoricalCrossentropy(True), "labels_col",
                        "logits"),
    "scce_ignore": (losses.SparseCategoricalCrossentropy(True, ignore_class=2),
                    keras.losses.SparseCategoricalCrossentropy(True, ignore_class=2), "labels",
                    "logits"),
    "bce": (losses.BinaryCrossentropy(), keras.losses.BinaryCrossentropy(), "binary",
            "sigmoid"),
    "bce_logits_smooth": (losses.BinaryCrossentropy(True, 0.1),
                          keras.losses.BinaryCrossentropy(True, 0.1), "binary", "logits"),
    "bce_column": (losses.BinaryCrossentropy(), keras.losses.BinaryCrossentropy(),
                   "binary_col", "sigmoid_col"),
    "focal": (losses.BinaryFocalCrossentropy(True, 0.3, 1.5, True, 0.1),
              keras.losses.BinaryFocalCrossentropy(True, 0.3, 1.5, True, 0.1), "binary",
              "logits"),
    "kld": (losses.KLDivergence(), keras.losses.KLDivergence(), "sigmoid", "probs"),
    "cosine": (losses.CosineSimilarity(), keras.losses.CosineSimilarity(), "real", "logits"),
    "poisson": (losses.Poisson(), keras.losses.Poisson(), "positive", "sigmoid"),
    "hinge": (losses.Hinge(), keras.losses.Hinge(), "binary", "logits"),
    "hinge_signs": (losses.Hinge(), keras.losses.Hinge(), "signs", "logits"),
    "squared_hinge": (losses.SquaredHinge(), keras.losses.SquaredHinge(), "binary", "logits"),
    "categorical_hinge": (losses.CategoricalHinge(), keras.losses.CategoricalHinge(), "onehot",
                          "logits"),
}


def _keras_loss(loss, y_true, y_pred, sample_weight=None, mask=None):
    y_pred = jnp.asarray(y_pred)
    if mask is not None:
        set_keras_mask(y_pred, jnp.asarray(mask, bool))
    return float(loss(y_true, y_pred, sample_weight=sample_weight))


@pytest.mark.parametrize("case", sorted(LOSS_CASES))
def test_loss_matches_keras_with_weights_and_masks(case, rng):
    ours, theirs, true_key, pred_key = LOSS_CASES[case]
    data = _data(rng)
    y_true, y_pred = data[true_key], data[pred_key]
    weight = rng.uniform(0, 2, B).astype(np.float32)
    mask = np.array([1, 1, 0, 1, 0, 1], bool)
    for w, m in ((None, None), (weight, mask)):
        expected = _keras_loss(theirs, y_true, y_pred, w, m)
        got = float(ours(y_true, y_pred, sample_weight=w, mask=m))
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-7,
                                   err_msg=f"{case} weighted and masked: {w is not None}")


@pytest.mark.parametrize("ours, theirs, kind", [
    (losses.SparseCategoricalCrossentropy(True), keras.losses.SparseCategoricalCrossentropy(True),
     "sparse"),
    (losses.CategoricalCrossentropy(), keras.losses.CategoricalCrossentropy(), "onehot"),
    (losses.MeanSquaredError(), keras.losses.MeanSquaredError(), "real"),
    (losses.BinaryCrossentropy(True), keras.losses.BinaryCrossentropy(True), "binary"),
])
def test_sequence_loss_with_temporal_mask_matches_keras(ours, theirs, kind, rng):
    t = 5
    logits = rng.normal(size=(B, t, C)).astype(np.float32)
    labels = rng.integers(0, C, (B, t))
    y_true = {"sparse": labels, "onehot": np.eye(C, dtype=np.float32)[labels],
              "real": rng.normal(size=(B, t, C)).astype(np.float32),
              "binary": rng.integers(0, 2, (B, t, C)).astype(np.float32)}[kind]
    y_pred = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True) if kind == "onehot" else logits
    mask = rng.uniform(size=(B, t)) > 0.3
    weight = rng.uniform(0, 2, (B, t)).astype(np.float32)
    np.testing.assert_allclose(float(ours(y_true, y_pred, sample_weight=weight, mask=mask)),
                               _keras_loss(theirs, y_true, y_pred, weight, mask), rtol=2e-6)
    np.testing.assert_allclose(float(ours(y_true, y_pred, mask=mask)),
                               _keras_loss(theirs, y_true, y_pred, None, mask), rtol=2e-6)


def test_loss_names_match_keras():
    pairs = [(losses.as_loss(n), keras.losses.get(n)) for n in
             ("mse", "mae", "mape", "msle", "kld", "binary_crossentropy", "poisson", "hinge")]
    for ours, theirs in pairs:
        theirs = theirs if isinstance(theirs, keras.losses.Loss) else None
        if theirs is not None:
            assert ours.name == theirs.name
    for cls in ("Huber", "LogCosh", "CosineSimilarity", "KLDivergence", "CategoricalHinge",
                "SparseCategoricalCrossentropy", "BinaryFocalCrossentropy"):
        assert getattr(losses, cls)().name == getattr(keras.losses, cls)().name


def test_loss_config_matches_keras():
    ours = losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1).get_config()
    theirs = keras.losses.CategoricalCrossentropy(from_logits=True,
                                                  label_smoothing=0.1).get_config()
    assert {k: ours[k] for k in theirs if k != "dtype"} == {
        k: v for k, v in theirs.items() if k != "dtype"}
    # A Keras-format config round-trips through get.
    keras_config = {"class_name": "SparseCategoricalCrossentropy",
                    "config": keras.losses.SparseCategoricalCrossentropy(
                        from_logits=True, ignore_class=3).get_config()}
    keras_config["config"].pop("dtype", None)
    loss = losses.as_loss(keras_config)
    assert loss.from_logits and loss.ignore_class == 3


def test_keras_loss_objects_are_translated(rng):
    theirs = keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)
    ours = losses.as_loss(theirs)
    assert type(ours) is losses.CategoricalCrossentropy
    assert ours.from_logits and ours.label_smoothing == 0.1
    data = _data(rng)
    np.testing.assert_allclose(float(ours(data["onehot"], data["logits"])),
                               _keras_loss(theirs, data["onehot"], data["logits"]), rtol=2e-6)
    metric = metrics.get(keras.losses.Huber(delta=0.5))
    assert type(metric) is metrics.LossMetric and metric.loss.delta == 0.5


# -------------------------------------------------------------------- metrics
METRIC_CASES = {
    "accuracy": (metrics.Accuracy(), keras.metrics.Accuracy(), "labels", "labels_pred"),
    "binary_accuracy": (metrics.BinaryAccuracy(threshold=0.3),
                        keras.metrics.BinaryAccuracy(threshold=0.3), "binary", "sigmoid"),
    "binary_accuracy_col": (metrics.BinaryAccuracy(), keras.metrics.BinaryAccuracy(),
                            "binary_col", "sigmoid_col"),
    "categorical_accuracy": (metrics.CategoricalAccuracy(), keras.metrics.CategoricalAccuracy(),
                             "onehot", "probs"),
    "sparse_accuracy": (metrics.SparseCategoricalAccuracy(),
                        keras.metrics.SparseCategoricalAccuracy(), "labels", "probs"),
    "sparse_accuracy_col": (metrics.SparseCategoricalAccuracy(),
                            keras.metrics.SparseCategoricalAccuracy(), "labels_col", "logits"),
    "top_k": (metrics.TopKCategoricalAccuracy(k=2), keras.metrics.TopKCategoricalAccuracy(k=2),
              "onehot", "logits"),
    "sparse_top_k": (metrics.SparseTopKCategoricalAccuracy(k=2),
                     keras.metrics.SparseTopKCategoricalAccuracy(k=2), "labels", "logits"),
    "mae": (metrics.MeanAbsoluteError(), keras.metrics.MeanAbsoluteError(), "real", "logits"),
    "mse": (metrics.MeanSquaredError(), keras.metrics.MeanSquaredError(), "real", "logits"),
    "rmse": (metrics.RootMeanSquaredError(), keras.metrics.RootMeanSquaredError(), "real",
             "logits"),
    "mape": (metrics.MeanAbsolutePercentageError(), keras.metrics.MeanAbsolutePercentageError(),
             "real", "logits"),
    "msle": (metrics.MeanSquaredLogarithmicError(),
             keras.metrics.MeanSquaredLogarithmicError(), "positive", "sigmoid"),
    "logcosh": (metrics.LogCoshError(), keras.metrics.LogCoshError(), "real", "logits"),
    "cosine": (metrics.CosineSimilarity(), keras.metrics.CosineSimilarity(), "real", "logits"),
    "precision": (metrics.Precision(), keras.metrics.Precision(), "binary", "sigmoid"),
    "precision_thresholds_class": (metrics.Precision(thresholds=[0.3, 0.5, 0.8], class_id=1),
                                   keras.metrics.Precision(thresholds=[0.3, 0.5, 0.8],
                                                           class_id=1), "binary", "sigmoid"),
    "precision_even": (metrics.Precision(thresholds=[0.0, 0.25, 0.5, 0.75, 1.0]),
                       keras.metrics.Precision(thresholds=[0.0, 0.25, 0.5, 0.75, 1.0]),
                       "binary", "sigmoid"),
    "precision_top_k": (metrics.Precision(top_k=2), keras.metrics.Precision(top_k=2), "onehot",
                        "probs"),
    "recall_column": (metrics.Recall(), keras.metrics.Recall(), "binary_col", "sigmoid_col"),
    "recall_top_k_class": (metrics.Recall(top_k=2, class_id=2),
                           keras.metrics.Recall(top_k=2, class_id=2), "onehot", "probs"),
    "auc": (metrics.AUC(), keras.metrics.AUC(), "binary", "sigmoid"),
    "auc_pr": (metrics.AUC(curve="PR"), keras.metrics.AUC(curve="PR"), "binary", "sigmoid"),
    "auc_roc_minoring": (metrics.AUC(summation_method="minoring"),
                         keras.metrics.AUC(summation_method="minoring"), "binary", "sigmoid"),
    "auc_logits_label_weights": (metrics.AUC(from_logits=True, label_weights=[1, 2, 0, 1]),
                                 keras.metrics.AUC(from_logits=True, label_weights=[1, 2, 0, 1]),
                                 "binary", "logits"),
    "auc_thresholds": (metrics.AUC(num_thresholds=3, thresholds=[0.2, 0.5, 0.9]),
                       keras.metrics.AUC(thresholds=[0.2, 0.5, 0.9]), "binary", "sigmoid"),
    "auc_multi_label": (metrics.AUC(multi_label=True, num_labels=C, label_weights=[1, 2, 0, 1]),
                        keras.metrics.AUC(multi_label=True, num_labels=C,
                                          label_weights=[1, 2, 0, 1]), "binary", "sigmoid"),
    "bce": (metrics.get("binary_crossentropy"), keras.metrics.BinaryCrossentropy(), "binary",
            "sigmoid"),
    "cce": (metrics.get("categorical_crossentropy"), keras.metrics.CategoricalCrossentropy(),
            "onehot", "probs"),
    "scce_logits": (metrics.get(losses.SparseCategoricalCrossentropy(from_logits=True)),
                    keras.metrics.SparseCategoricalCrossentropy(from_logits=True), "labels",
                    "logits"),
    "kld": (metrics.get("kl_divergence"), keras.metrics.KLDivergence(), "sigmoid", "probs"),
    "poisson": (metrics.get("poisson"), keras.metrics.Poisson(), "positive", "sigmoid"),
    "hinge": (metrics.get("hinge"), keras.metrics.Hinge(), "binary", "logits"),
    "squared_hinge": (metrics.get("squared_hinge"), keras.metrics.SquaredHinge(), "signs",
                      "logits"),
    "categorical_hinge": (metrics.get("categorical_hinge"), keras.metrics.CategoricalHinge(),
                          "onehot", "logits"),
}


def _batches(rng, true_key, pred_key):
    """Three batches ``(y_true, y_pred, sample_weight)``: weighted, unweighted, weighted."""
    out = []
    for size, weighted in ((6, True), (6, False), (6, True)):
        data = _data(rng, batch=size)
        data["labels_pred"] = np.where(rng.uniform(size=size) > 0.5, data["labels"],
                                       rng.integers(0, C, size))
        weight = rng.uniform(0, 2, size).astype(np.float32) if weighted else None
        out.append((data[true_key], data[pred_key], weight))
    return out


@pytest.mark.parametrize("case", sorted(METRIC_CASES))
def test_metric_accumulates_like_keras(case, rng):
    ours, theirs, true_key, pred_key = METRIC_CASES[case]
    theirs.reset_state()
    state = ours.init()
    for y_true, y_pred, weight in _batches(rng, true_key, pred_key):
        theirs.update_state(y_true, y_pred, sample_weight=weight)
        state = ours.update(state, y_true, y_pred, sample_weight=weight)
    np.testing.assert_allclose(np.asarray(ours.result(state)), np.asarray(theirs.result()),
                               rtol=2e-6, atol=1e-6)
    keras_name = re.sub(r"_\d+$", "", theirs.name)  # Keras numbers repeated auto names
    assert ours.name == keras_name or case in {"bce", "cce", "scce_logits", "kld", "poisson",
                                               "hinge", "squared_hinge", "categorical_hinge"}


def test_mean_and_sum_match_keras_with_weights(rng):
    values = rng.normal(size=(4, 3)).astype(np.float32)
    for weight in (None, rng.uniform(size=(4,)).astype(np.float32),
                   rng.uniform(size=(4, 3)).astype(np.float32)):
        for ours, theirs in ((metrics.Mean(), keras.metrics.Mean()),
                             (metrics.Sum(), keras.metrics.Sum())):
            second = None if weight is None else weight[:2]
            state = ours.update(ours.update(ours.init(), values, weight), values[:2] * 2, second)
            theirs.update_state(values, sample_weight=weight)
            theirs.update_state(values[:2] * 2, sample_weight=second)
            np.testing.assert_allclose(float(ours.result(state)), float(theirs.result()),
                                       rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("ours, theirs", [
    (metrics.SparseCategoricalAccuracy(), keras.metrics.SparseCategoricalAccuracy()),
    (metrics.get("sparse_categorical_crossentropy"),
     keras.metrics.SparseCategoricalCrossentropy()),
    (metrics.MeanSquaredError(), keras.metrics.MeanSquaredError()),
])
def test_metric_with_keras_mask_matches_keras(ours, theirs, rng):
    t = 5
    probs = rng.dirichlet(np.ones(C), (B, t)).astype(np.float32)
    labels = rng.integers(0, C, (B, t))
    y_true = labels if "sparse" in ours.name else np.eye(C, dtype=np.float32)[labels]
    mask = rng.uniform(size=(B, t)) > 0.4
    weight = rng.uniform(0, 2, (B, t)).astype(np.float32)
    for w in (None, weight):
        y_pred = jnp.asarray(probs)
        set_keras_mask(y_pred, jnp.asarray(mask))
        theirs.reset_state()
        ours.reset_state()
        theirs.update_state(y_true, y_pred, sample_weight=w)
        np.testing.assert_allclose(float(ours(y_true, probs, sample_weight=w, mask=mask)),
                                   float(theirs.result()), rtol=2e-6)


@pytest.mark.parametrize("true_shape, pred_shape", [
    ((B, 1), (B, 1)), ((B,), (B, C)), ((B, 1), (B, C)), ((B, C), (B, C))])
def test_accuracy_without_informative_loss_resolves_like_keras_compile(true_shape, pred_shape, rng):
    y_pred = rng.uniform(size=pred_shape).astype(np.float32)
    if true_shape == pred_shape and pred_shape[-1] > 1:
        y_true = np.eye(C, dtype=np.float32)[rng.integers(0, C, B)]
    elif pred_shape[-1] == 1:
        y_true = rng.integers(0, 2, true_shape).astype(np.float32)
    else:
        y_true = rng.integers(0, C, true_shape)
    theirs = compile_utils.get_metric("acc", y_true, y_pred)
    theirs.update_state(y_true, y_pred)
    ours = metrics.get("acc", loss="mse")
    assert ours.name == theirs.name == "acc"
    np.testing.assert_allclose(float(ours(y_true, y_pred)), float(theirs.result()), rtol=1e-6)
