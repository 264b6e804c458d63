"""Confusion-matrix metrics: ``Precision`` and ``Recall``, and the counting ``AUC`` and the
others share, with Keras's numbers.

States hold weighted true/false positive/negative counts per threshold. A prediction is
positive at threshold ``t`` when ``y_pred > t``. Evenly spaced thresholds (``AUC``'s) are
counted by bucketing each prediction once, as Keras does, in O(batch + thresholds).

Unlike Keras, which ignores an output's Keras mask in these metrics, ``mask`` multiplies
into the sample weight here, as it does for every other metric.

>>> import jax.numpy as jnp
>>> y_true, y_pred = jnp.array([0, 1, 1, 1]), jnp.array([0.8, 0.9, 0.2, 0.7])
>>> round(float(Precision()(y_true, y_pred)), 4), round(float(Recall()(y_true, y_pred)), 4)
(0.6667, 0.6667)
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.config import epsilon
from kgraph.metrics.metric import Metric
from kgraph.metrics.reduction_metrics import merge_weights
from kgraph.losses.weighting import divide_no_nan, squeeze_or_expand_to_same_rank

__all__ = ["COUNTS", "NEG_INF", "Precision", "Recall", "confusion_counts", "evenly_distributed",
           "thresholds_in_range"]


NEG_INF = -1e10  # the threshold used with top_k, as in Keras

COUNTS = ("true_positives", "false_positives", "true_negatives", "false_negatives")


def thresholds_in_range(thresholds, default, owner) -> list:
    """``thresholds`` (one or several) as a list of floats, ``[default]`` if None; a value
    outside [0, 1] is an error naming metric ``owner``."""
    if thresholds is None:
        return [float(default)]
    if isinstance(thresholds, np.ndarray):
        thresholds = thresholds.tolist()
    values = list(thresholds) if isinstance(thresholds, (list, tuple)) else [thresholds]
    bad = [t for t in values if t is None or not 0 <= t <= 1]
    if bad:
        raise ValueError(f"Metric {owner!r}: Threshold values must be in [0, 1]. "
                         f"Received: {bad}")
    return [float(t) for t in values]


def evenly_distributed(thresholds) -> bool:
    """Whether ``thresholds`` are ``0, 1/(n-1), ..., 1`` (n >= 3), as Keras checks."""
    n = len(thresholds)
    return n >= 3 and np.allclose(thresholds, np.arange(n, dtype=np.float32) / (n - 1),
                                  atol=epsilon())


def _filter_top_k(x, k):
    """Scores outside the top ``k`` of the last axis set to ``NEG_INF``."""
    _, indices = jax.lax.top_k(x, k)
    keep = jnp.sum(jax.nn.one_hot(indices, x.shape[-1], dtype=x.dtype), axis=-2)
    return x * keep + NEG_INF * (1 - keep)


def _prepare(y_true, y_pred, sample_weight, top_k=None, class_id=None):
    """Keras's alignment of labels, predictions and weights (``update_confusion_matrix_
    variables``); weights come back broadcast to the predictions' shape (or None)."""
    y_true = jnp.asarray(y_true).astype(jnp.float32)
    y_pred = jnp.asarray(y_pred).astype(jnp.float32)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = jnp.expand_dims(jnp.asarray(sample_weight, jnp.float32), -1)
        _, sample_weight = squeeze_or_expand_to_same_rank(y_true, sample_weight,
                                                          expand_rank_1=False)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true, y_pred = y_true[..., class_id, None], y_pred[..., class_id, None]
        per_class_weight = sample_weight is not None and sample_weight.shape[-1] != 1
        if per_class_weight and sample_weight.ndim == y_pred.ndim:
            sample_weight = sample_weight[..., class_id, None]
    if sample_weight is not None:
        sample_weight = jnp.broadcast_to(sample_weight, y_pred.shape)
    return y_true, y_pred, sample_weight


def _flatten(x, multi_label):
    """``(entries,)``, or ``(samples, labels)`` when each label keeps its own counts."""
    return x.reshape(-1, x.shape[-1]) if multi_label else x.reshape(-1)


def _bucket_counts(labels, weights, y_pred, num_thresholds, with_epsilon):
    """``(tp, fp)`` at evenly spaced thresholds by bucketing (Keras's optimized path)."""
    y_pred = jnp.clip(y_pred, 0.0, 1.0)
    buckets = jnp.ceil(y_pred * (num_thresholds - 1)) - 1
    if with_epsilon:
        buckets = jax.nn.relu(buckets)
    buckets = buckets.astype(jnp.int32)

    def per_threshold(data):  # weight in bucket i counts for every threshold <= i
        counts = jax.ops.segment_sum(data, buckets, num_segments=num_thresholds)
        return jnp.flip(jnp.cumsum(jnp.flip(counts)))

    return per_threshold(labels * weights), per_threshold((1.0 - labels) * weights)


def _compare_counts(labels, weights, y_pred, thresholds):
    """``(tp, fp)`` at arbitrary thresholds by comparing every prediction to each."""
    positive = y_pred[None] > jnp.asarray(thresholds, jnp.float32).reshape(
        (-1,) + (1,) * y_pred.ndim)
    tp = jnp.sum(jnp.where(positive, labels * weights, 0.0), axis=1)
    fp = jnp.sum(jnp.where(positive, (1.0 - labels) * weights, 0.0), axis=1)
    return tp, fp


def confusion_counts(y_true, y_pred, thresholds, sample_weight=None, top_k=None, class_id=None,
                     multi_label=False, label_weights=None, owner="metric"):
    """Weighted ``{"true_positives": ..., ...}`` per threshold, shape ``(thresholds,)`` or
    ``(thresholds, labels)`` with ``multi_label``; errors name metric ``owner``."""
    if class_id is not None and jnp.ndim(y_pred) == 1:
        raise ValueError(f"Metric {owner!r}: When class_id is provided, y_pred must be a 2D "
                         "array with shape (num_samples, num_classes), found shape: "
                         f"{jnp.shape(y_pred)}")
    return _confusion_counts(y_true, y_pred, sample_weight, tuple(thresholds), top_k, class_id,
                             multi_label, None if label_weights is None else
                             tuple(float(w) for w in np.ravel(label_weights)))


@functools.partial(jax.jit, static_argnums=(3, 4, 5, 6, 7))
def _confusion_counts(y_true, y_pred, sample_weight, thresholds, top_k, class_id, multi_label,
                      label_weights):
    y_true, y_pred, weights = _prepare(y_true, y_pred, sample_weight, top_k, class_id)
    weights = jnp.ones_like(y_pred) if weights is None else weights
    if label_weights is not None and not multi_label:
        weights = weights * jnp.asarray(label_weights, jnp.float32)
    labels = (y_true != 0).astype(jnp.float32)
    labels, weights, y_pred = (_flatten(x, multi_label) for x in (labels, weights, y_pred))
    if evenly_distributed(_even_check_values(thresholds)):
        count = lambda l, w, p: _bucket_counts(  # noqa: E731
            l, w, p, len(thresholds), thresholds[0] < 0.0 or thresholds[-1] > 1.0)
        if multi_label:
            count = jax.vmap(count, in_axes=1, out_axes=1)
        tp, fp = count(labels, weights, y_pred)
    else:
        tp, fp = _compare_counts(labels, weights, y_pred, thresholds)
    total_true = jnp.sum(labels * weights, axis=0)
    total_false = jnp.sum((1.0 - labels) * weights, axis=0)
    return {"true_positives": tp, "false_positives": fp,
            "true_negatives": total_false - fp, "false_negatives": total_true - tp}


def _even_check_values(thresholds):
    """AUC's outer thresholds carry a +-epsilon; Keras checks evenness without it."""
    inner = list(thresholds)
    if inner and inner[0] < 0.0:
        inner[0] = 0.0
    if inner and inner[-1] > 1.0:
        inner[-1] = 1.0
    return inner


class _ThresholdMetric(Metric):
    """Precision/Recall: counts at ``thresholds`` (0.5 by default, NEG_INF with top_k)."""

    _counts = ()

    @property
    def _variable_order(self):
        return self._counts

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name, dtype)
        self.init_thresholds, self.top_k, self.class_id = thresholds, top_k, class_id
        self.thresholds = thresholds_in_range(thresholds, 0.5 if top_k is None else NEG_INF,
                                              self.name)

    def init(self):
        return {k: jnp.zeros((len(self.thresholds),), jnp.float32) for k in self._counts}

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        counts = confusion_counts(y_true, y_pred, self.thresholds,
                                  merge_weights(sample_weight, mask), self.top_k,
                                  self.class_id, owner=self.name)
        return {k: state[k] + counts[k] for k in self._counts}

    def _single(self, value):
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict:
        return {**Metric.get_config(self), "thresholds": self.init_thresholds, "top_k": self.top_k,
                "class_id": self.class_id}


class Precision(_ThresholdMetric):
    """``tp / (tp + fp)``: a scalar, or one value per threshold when given several.

    >>> import jax.numpy as jnp
    >>> float(Precision(top_k=1)(jnp.array([[0, 1], [0, 1]]), jnp.array([[0.2, 0.8], [0.6, 0.4]])))
    0.5
    """

    _counts = ("true_positives", "false_positives")

    def result(self, state):
        tp, fp = state["true_positives"], state["false_positives"]
        return self._single(divide_no_nan(tp, tp + fp))


class Recall(_ThresholdMetric):
    """``tp / (tp + fn)``: a scalar, or one value per threshold when given several."""

    _counts = ("true_positives", "false_negatives")

    def result(self, state):
        tp, fn = state["true_positives"], state["false_negatives"]
        return self._single(divide_no_nan(tp, tp + fn))
