"""kgraph.metrics.metrics: stateless states under jit and scan, merging, padding, masks and get."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from kgraph.losses import losses
from kgraph.metrics import metrics

B, C = 6, 4


def _batch(rng, batch=B):
    logits = rng.normal(size=(batch, C)).astype(np.float32)
    labels = rng.integers(0, C, batch)
    return {
        "logits": logits,
        "probs": (np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).astype(np.float32),
        "sigmoid": (1 / (1 + np.exp(-logits))).astype(np.float32),
        "labels": labels,
        "guesses": np.where(rng.uniform(size=batch) > 0.5, labels, rng.integers(0, C, batch)),
        "onehot": np.eye(C, dtype=np.float32)[labels],
        "binary": rng.integers(0, 2, (batch, C)).astype(np.float32),
        "real": rng.normal(size=(batch, C)).astype(np.float32),
        "positive": rng.uniform(0.1, 2, (batch, C)).astype(np.float32),
    }


def _abs_error(y_true, y_pred):
    return jnp.abs(y_true - y_pred).mean(axis=-1)


CATALOG = {
    "accuracy": (metrics.Accuracy(), "labels", "guesses"),
    "binary_accuracy": (metrics.BinaryAccuracy(), "binary", "sigmoid"),
    "categorical_accuracy": (metrics.CategoricalAccuracy(), "onehot", "probs"),
    "sparse_categorical_accuracy": (metrics.SparseCategoricalAccuracy(), "labels", "logits"),
    "sparse_top_k": (metrics.SparseTopKCategoricalAccuracy(k=2), "labels", "logits"),
    "mae": (metrics.MeanAbsoluteError(), "real", "logits"),
    "mse": (metrics.MeanSquaredError(), "real", "logits"),
    "rmse": (metrics.RootMeanSquaredError(), "real", "logits"),
    "mape": (metrics.MeanAbsolutePercentageError(), "positive", "logits"),
    "cosine": (metrics.CosineSimilarity(), "real", "logits"),
    "precision": (metrics.Precision(), "binary", "sigmoid"),
    "precision_thresholds": (metrics.Precision(thresholds=[0.2, 0.5, 0.7]), "binary",
                             "sigmoid"),
    "recall_top_k_class": (metrics.Recall(top_k=2, class_id=1), "onehot", "probs"),
    "auc": (metrics.AUC(num_thresholds=50), "binary", "sigmoid"),
    "auc_pr_multi_label": (metrics.AUC(curve="PR", multi_label=True, num_labels=C), "binary",
                           "sigmoid"),
    "scce_metric": (metrics.get(losses.SparseCategoricalCrossentropy(from_logits=True)),
                    "labels", "logits"),
    "bce_metric": (metrics.get("binary_crossentropy"), "binary", "sigmoid"),
    "wrapper": (metrics.MeanMetricWrapper(_abs_error), "real", "logits"),
}


def _pad(array, rows):
    return jnp.concatenate([array, jnp.zeros((rows,) + array.shape[1:], array.dtype)])


def _close(a, b, rtol=1e-6):
    jax.tree_util.tree_map(
        lambda x, y: np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol,
                                                atol=1e-6), a, b)


@pytest.mark.parametrize("case", sorted(CATALOG))
def test_metric_is_pure_scans_merges_and_ignores_padding(case, rng):
    """States are fixed float32 pytrees; updates scanned under jit and states merged from
    two shards equal eager sequential updates; rows padded with sample weight 0 (how
    training pads a batch) change nothing."""
    metric, true_key, pred_key = CATALOG[case]
    ys = [(b[true_key], b[pred_key], rng.uniform(0.5, 2, B).astype(np.float32))
          for b in (_batch(rng), _batch(rng))]
    state = metric.init()
    leaves = jax.tree_util.tree_leaves(state)
    assert leaves and all(isinstance(x, jax.Array) and x.dtype == jnp.float32 for x in leaves)
    spec = jax.tree_util.tree_map(lambda x: (x.shape, x.dtype), state)
    after = jax.eval_shape(metric.update, state, *ys[0])
    assert jax.tree_util.tree_map(lambda x: (x.shape, x.dtype), after) == spec

    eager = metric.update(metric.update(state, *ys[0]), *ys[1])

    @jax.jit
    def traced(ys, stacked):
        scanned, _ = jax.lax.scan(lambda s, b: (metric.update(s, *b), None), metric.init(),
                                  stacked)
        merged = metric.merge(metric.update(metric.init(), *ys[0]),
                              metric.update(metric.init(), *ys[1]))
        y_true, y_pred, weight = ys[0]
        valid = _pad(jnp.ones((B,)), 5)
        padded = [_pad(y_true, 5), _pad(y_pred, 5)]
        pairs = [(metric.update(metric.init(), y_true, y_pred),
                  metric.update(metric.init(), *padded, valid)),
                 (metric.update(metric.init(), y_true, y_pred, weight),
                  metric.update(metric.init(), *padded, _pad(weight, 5)))]
        return scanned, merged, [(metric.result(a), metric.result(b)) for a, b in pairs]

    scanned, merged, pairs = traced(ys, [np.stack(parts) for parts in zip(*ys)])
    _close(scanned, eager)
    _close(merged, eager)
    _close(metric.result(merged), metric.result(eager))
    assert np.all(np.isfinite(np.asarray(metric.result(merged))))
    for unpadded, padded in pairs:
        _close(padded, unpadded)


# ----------------------------------------------------------------- weighting
def test_mean_accepts_scalar_values_and_weights():
    mean = metrics.Mean()
    state = mean.update(mean.init(), jnp.float32(2.0), jnp.float32(3.0))
    state = mean.update(state, jnp.float32(6.0), jnp.float32(1.0))
    assert float(mean.result(state)) == 3.0
    assert float(mean.result(mean.init())) == 0.0


def test_mean_weighs_samples_like_keras():
    values = np.array([[1.0, 3.0], [5.0, 7.0], [9.0, 11.0]], np.float32)
    assert float(metrics.Mean()(values)) == 6.0
    assert float(metrics.Mean()(values, np.array([1.0, 3.0, 0.0]))) == 5.0
    assert float(metrics.Mean()(values, np.array([[1, 0], [0, 1], [0, 0]]))) == 4.0
    assert float(metrics.Sum()(values, np.array([1.0, 0.0, 2.0]))) == 44.0


def test_mask_combines_with_sample_weight_over_time():
    metric = metrics.SparseCategoricalAccuracy()
    labels = np.array([[0, 1, 2], [1, 1, 0]])
    scores = np.eye(3, dtype=np.float32)[np.array([[0, 2, 2], [1, 0, 0]])]
    mask = np.array([[1, 1, 0], [1, 1, 1]])
    weight = np.array([1.0, 3.0], np.float32)
    # hits [[1, 0, -], [1, 0, 1]] weighted by rows 1 and 3: (1 + 3 + 3) / (2 + 9)
    np.testing.assert_allclose(metric(labels, scores, weight, mask), 7 / 11, rtol=1e-6)
    np.testing.assert_allclose(metrics.SparseCategoricalAccuracy()(labels, scores, mask=mask),
                               3 / 5, rtol=1e-6)


def test_confusion_metrics_use_the_mask():
    y_true = np.array([[1, 0], [1, 1]], np.float32)
    y_pred = np.array([[0.9, 0.8], [0.1, 0.9]], np.float32)
    mask = np.array([[1, 1], [0, 1]])
    # counted entries: (1, .9) tp, (0, .8) fp, (1, .9) tp
    assert float(metrics.Precision()(y_true[..., None], y_pred[..., None], mask=mask)) == (
        pytest.approx(2 / 3))
    assert float(metrics.Recall()(y_true, y_pred, mask=mask)) == 1.0


def test_loss_metric_skips_ignored_entries(rng):
    metric = metrics.get(losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0))
    logits = rng.normal(size=(4, C)).astype(np.float32)
    labels = np.array([1, 0, 2, 0])
    kept = metrics.get(losses.SparseCategoricalCrossentropy(from_logits=True))
    np.testing.assert_allclose(metric(labels, logits), kept(labels[[0, 2]], logits[[0, 2]]),
                               rtol=1e-6)


def test_precision_with_several_thresholds_gives_one_value_each():
    result = metrics.Precision(thresholds=[0.1, 0.5, 0.95])(
        np.array([1, 0, 1, 0]), np.array([0.9, 0.6, 0.4, 0.2]))
    np.testing.assert_allclose(result, [0.5, 0.5, 0.0])


# ----------------------------------------------------------------------- get
@pytest.mark.parametrize("loss, cls, threshold", [
    ("sparse_categorical_crossentropy", metrics.SparseCategoricalAccuracy, None),
    (losses.SparseCategoricalCrossentropy(from_logits=True), metrics.SparseCategoricalAccuracy,
     None),
    ("categorical_crossentropy", metrics.CategoricalAccuracy, None),
    (losses.BinaryCrossentropy(), metrics.BinaryAccuracy, 0.5),
    (losses.BinaryCrossentropy(from_logits=True), metrics.BinaryAccuracy, 0.0),
    (losses.BinaryFocalCrossentropy(from_logits=True), metrics.BinaryAccuracy, 0.0),
    ("mse", metrics.AutoAccuracy, None),
    (None, metrics.AutoAccuracy, None),
])
def test_accuracy_resolves_against_the_loss(loss, cls, threshold):
    for name in ("accuracy", "acc"):
        metric = metrics.get(name, loss)
        assert type(metric) is cls and metric.name == name == metrics.name_of(metric)
        if threshold is not None:
            assert metric.threshold == threshold


def test_binary_accuracy_from_logits_thresholds_at_zero():
    metric = metrics.get("accuracy", losses.BinaryCrossentropy(from_logits=True))
    logits = np.array([[-2.0], [-0.1], [0.2], [3.0]], np.float32)
    assert float(metric(np.array([0, 0, 1, 1]), logits)) == 1.0


@pytest.mark.parametrize("true_shape, pred_shape, kind", [
    ((B, 1), (B, 1), "binary"), ((B,), (B, C), "sparse"), ((B, 1), (B, C), "sparse"),
    ((B, C), (B, C), "categorical"), ((B, 3), (B, 3, C), "sparse")])
def test_auto_accuracy_follows_keras_shape_rule(true_shape, pred_shape, kind):
    from kgraph.metrics.accuracy_metrics import accuracy_kind
    assert accuracy_kind(true_shape, pred_shape) == kind


@pytest.mark.parametrize("name, cls", [
    ("binary_accuracy", metrics.BinaryAccuracy),
    ("categorical_accuracy", metrics.CategoricalAccuracy),
    ("sparse_categorical_accuracy", metrics.SparseCategoricalAccuracy),
    ("top_k_categorical_accuracy", metrics.TopKCategoricalAccuracy),
    ("sparse_top_k_categorical_accuracy", metrics.SparseTopKCategoricalAccuracy),
    ("mae", metrics.MeanAbsoluteError), ("mse", metrics.MeanSquaredError),
    ("rmse", metrics.RootMeanSquaredError), ("mape", metrics.MeanAbsolutePercentageError),
    ("msle", metrics.MeanSquaredLogarithmicError), ("precision", metrics.Precision),
    ("recall", metrics.Recall), ("auc", metrics.AUC), ("AUC", metrics.AUC),
    ("cosine_similarity", metrics.CosineSimilarity), ("logcosh", metrics.LogCoshError),
    ("binary_crossentropy", metrics.LossMetric), ("kld", metrics.LossMetric),
    ("huber", metrics.LossMetric),
])
def test_get_resolves_names_and_logs_them_as_given(name, cls):
    metric = metrics.get(name)
    assert type(metric) is cls and metric.name == name


def test_get_objects_losses_and_callables():
    precision = metrics.Precision(name="p")
    assert metrics.get(precision) is precision
    assert type(metrics.get(metrics.Recall)) is metrics.Recall
    from_loss = metrics.get(losses.CategoricalCrossentropy(label_smoothing=0.1))
    assert type(from_loss) is metrics.LossMetric and from_loss.name == "categorical_crossentropy"
    wrapped = metrics.get(_abs_error)
    assert type(wrapped) is metrics.MeanMetricWrapper and metrics.name_of(wrapped) == "_abs_error"
    assert float(wrapped(np.zeros((2, 2)), np.ones((2, 2)))) == 1.0
    # The cosine similarity metric is positive; the loss of that name is negative.
    y = np.array([[1.0, 2.0]], np.float32)
    assert float(metrics.get("cosine_similarity")(y, y)) == pytest.approx(1.0)
    assert float(metrics.get(losses.CosineSimilarity())(y, y)) == pytest.approx(-1.0)


def test_get_rejects_unknown_metrics_listing_known_names():
    with pytest.raises(ValueError, match=r"Unknown metric 'acuracy'. Expected one of \[.*"
                                         r"'accuracy'.*'auc'.*'mse'"):
        metrics.get("acuracy")
    with pytest.raises(ValueError, match="A metric must be a name"):
        metrics.get(42)


def test_invalid_configurations_raise_clearly():
    with pytest.raises(ValueError, match="multi_label=True.*does not know the number of labels"):
        metrics.AUC(multi_label=True).init()
    with pytest.raises(ValueError, match='Invalid AUC curve value: "ROCK"'):
        metrics.AUC(curve="ROCK")
    with pytest.raises(ValueError, match=r"Threshold values must be in \[0, 1\]"):
        metrics.Precision(thresholds=[0.5, 1.5])
    with pytest.raises(ValueError, match=r"expects y_pred of shape \(batch, 3\)"):
        metrics.AUC(multi_label=True, num_labels=3)(np.zeros((2, 4)), np.zeros((2, 4)))


@pytest.mark.parametrize("metric", [
    metrics.BinaryAccuracy(threshold=0.2), metrics.TopKCategoricalAccuracy(k=3),
    metrics.Precision(thresholds=[0.3, 0.6], class_id=1), metrics.Recall(top_k=2),
    metrics.AUC(curve="PR", summation_method="majoring", from_logits=True),
    metrics.AUC(thresholds=[0.2, 0.4]), metrics.RootMeanSquaredError(name="rms"),
])
def test_config_round_trip(metric):
    config = metric.get_config()
    clone = type(metric).from_config(config)
    assert type(clone) is type(metric) and clone.get_config() == config
