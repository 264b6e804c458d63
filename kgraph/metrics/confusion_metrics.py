"""Confusion-matrix metrics: ``Precision``, ``Recall`` and ``AUC``, with Keras's numbers.

States hold weighted true/false positive/negative counts per threshold. A prediction is
positive at threshold ``t`` when ``y_pred > t``. Evenly spaced thresholds (``AUC``'s) are
counted by bucketing each prediction once, as Keras does, in O(batch + thresholds).

Unlike Keras, which ignores an output's Keras mask in these metrics, ``mask`` multiplies
into the sample weight here, as it does for every other metric.

>>> import jax.numpy as jnp
>>> y_true, y_pred = jnp.array([0, 1, 1, 1]), jnp.array([0.8, 0.9, 0.2, 0.7])
>>> round(float(Precision()(y_true, y_pred)), 4), round(float(Recall()(y_true, y_pred)), 4)
(0.6667, 0.6667)
>>> round(float(AUC()(y_true, y_pred)), 4)
0.3333
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.config import epsilon
from kgraph.metrics.metric import Metric, merge_weights
from kgraph.losses.weighting import divide_no_nan, squeeze_or_expand_to_same_rank

__all__ = ["AUC", "NEG_INF", "Precision", "Recall", "confusion_counts", "evenly_distributed"]


NEG_INF = -1e10  # the threshold used with top_k, as in Keras

_COUNTS = ("true_positives", "false_positives", "true_negatives", "false_negatives")


def _thresholds(thresholds, default):
    values = [default] if thresholds is None else list(np.atleast_1d(thresholds))
    if thresholds is not None:
        bad = [t for t in values if t is None or not 0 <= t <= 1]
        if bad:
            raise ValueError(f"Threshold values must be in [0, 1]; received {bad}.")
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
        if y_pred.ndim == 1:
            raise ValueError("With class_id, y_pred must have shape (num_samples, "
                             f"num_classes); received shape {y_pred.shape}.")
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
                     multi_label=False, label_weights=None):
    """Weighted ``{"true_positives": ..., ...}`` per threshold, shape ``(thresholds,)`` or
    ``(thresholds, labels)`` with ``multi_label``."""
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

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name, dtype)
        self.init_thresholds, self.top_k, self.class_id = thresholds, top_k, class_id
        self.thresholds = _thresholds(thresholds, 0.5 if top_k is None else NEG_INF)

    def init(self):
        return {k: jnp.zeros((len(self.thresholds),), jnp.float32) for k in self._counts}

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        counts = confusion_counts(y_true, y_pred, self.thresholds,
                                  merge_weights(sample_weight, mask), self.top_k,
                                  self.class_id)
        return {k: state[k] + counts[k] for k in self._counts}

    def _single(self, value):
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict:
        return {"name": self.name, "thresholds": self.init_thresholds, "top_k": self.top_k,
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


class AUC(Metric):
    """Area under the ROC or PR curve, by a Riemann sum over ``num_thresholds``.

    Args:
      num_thresholds: thresholds evenly spaced in [0, 1] (ignored if ``thresholds``).
      curve: "ROC" or "PR".
      summation_method: "interpolation", "minoring" or "majoring".
      thresholds: explicit thresholds in [0, 1] (0 and 1 are added).
      multi_label: one curve per label (averaged); needs ``num_labels`` so the state has
        a fixed shape.
      label_weights: per-label weights (of the counts, or of the per-label AUCs with
        ``multi_label``).
      from_logits: apply a sigmoid to ``y_pred`` first.
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False, dtype=None):
        super().__init__(name, dtype)
        self.curve = str(curve).upper()
        self.summation_method = str(summation_method).lower()
        if self.curve not in ("ROC", "PR"):
            raise ValueError(f"AUC curve must be 'ROC' or 'PR'; received curve={curve!r}.")
        if self.summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError("AUC summation_method must be 'interpolation', 'minoring' or "
                             f"'majoring'; received summation_method={summation_method!r}.")
        if thresholds is not None:
            inner = sorted(_thresholds(thresholds, None))
            self.num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError("AUC needs num_thresholds > 1; received "
                                 f"num_thresholds={num_thresholds}.")
            self.num_thresholds = num_thresholds
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.init_thresholds = thresholds
        self.thresholds = [0.0 - epsilon()] + inner + [1.0 + epsilon()]
        if multi_label and not num_labels:
            raise ValueError("AUC(multi_label=True) needs num_labels=<number of labels>: "
                             "metric states have fixed shapes.")
        if num_labels and not multi_label:
            raise ValueError("num_labels is only used with multi_label=True.")
        self.multi_label, self.num_labels = multi_label, num_labels
        self.label_weights = label_weights
        self.from_logits = from_logits

    def init(self):
        shape = (self.num_thresholds,) + ((self.num_labels,) if self.multi_label else ())
        return {k: jnp.zeros(shape, jnp.float32) for k in _COUNTS}

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        y_pred = jnp.asarray(y_pred)
        if self.multi_label and (y_pred.ndim != 2 or y_pred.shape[1] != self.num_labels):
            raise ValueError(f"AUC(multi_label=True, num_labels={self.num_labels}) expects "
                             f"y_pred of shape (batch, {self.num_labels}); received "
                             f"{y_pred.shape}.")
        if self.from_logits:
            y_pred = jax.nn.sigmoid(y_pred)
        counts = confusion_counts(
            y_true, y_pred, self.thresholds, merge_weights(sample_weight, mask),
            multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights)
        return {k: state[k] + counts[k] for k in _COUNTS}

    def result(self, state):
        tp, fp = state["true_positives"], state["false_positives"]
        tn, fn = state["true_negatives"], state["false_negatives"]
        if self.curve == "PR" and self.summation_method == "interpolation":
            areas = _interpolated_pr_areas(tp, fp, fn)
        else:
            recall = divide_no_nan(tp, tp + fn)
            if self.curve == "ROC":
                x, y = divide_no_nan(fp, fp + tn), recall
            else:
                x, y = recall, divide_no_nan(tp, tp + fp)
            if self.summation_method == "interpolation":
                heights = (y[:-1] + y[1:]) / 2.0
            elif self.summation_method == "minoring":
                heights = jnp.minimum(y[:-1], y[1:])
            else:
                heights = jnp.maximum(y[:-1], y[1:])
            areas = (x[:-1] - x[1:]) * heights
        by_label = jnp.sum(areas, axis=0)
        if not self.multi_label:
            return by_label
        if self.label_weights is None:
            return jnp.mean(by_label)
        weights = jnp.asarray(self.label_weights, jnp.float32)
        return divide_no_nan(jnp.sum(by_label * weights), jnp.sum(weights))

    def get_config(self) -> dict:
        config = {"name": self.name, "num_thresholds": self.num_thresholds,
                  "curve": self.curve, "summation_method": self.summation_method,
                  "multi_label": self.multi_label, "num_labels": self.num_labels,
                  "label_weights": self.label_weights, "from_logits": self.from_logits}
        if self.init_thresholds is not None:
            config["thresholds"] = self.thresholds[1:-1]
        return config


def _interpolated_pr_areas(tp, fp, fn):
    """Davis & Goadrich's interpolated PR-AUC terms (Keras's ``interpolate_pr_auc``)."""
    dtp = tp[:-1] - tp[1:]
    p = tp + fp
    dp = p[:-1] - p[1:]
    slope = divide_no_nan(dtp, jnp.maximum(dp, 0))
    intercept = tp[1:] - slope * p[1:]
    ratio = jnp.where((p[:-1] > 0) & (p[1:] > 0), divide_no_nan(p[:-1], jnp.maximum(p[1:], 0)),
                      jnp.ones_like(p[1:]))
    return divide_no_nan(slope * (dtp + intercept * jnp.log(ratio)),
                         jnp.maximum(tp[1:] + fn[1:], 0))
