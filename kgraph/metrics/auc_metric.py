"""``AUC``: the area under the ROC, precision-recall or precision-recall-gain curve, by a
Riemann sum over thresholds, with Keras's numbers.

Its state holds the weighted true/false positive/negative counts per threshold (and per
label with ``multi_label``). With ``multi_label`` and no ``num_labels``, the number of
labels is taken from the first batch, or from the model's output in ``compile``, as Keras
builds its variables on the first update.

>>> import jax.numpy as jnp
>>> y_true, y_pred = jnp.array([0, 1, 1, 1]), jnp.array([0.8, 0.9, 0.2, 0.7])
>>> round(float(AUC()(y_true, y_pred)), 4)
0.3333
>>> auc = AUC(multi_label=True)
>>> _ = auc.update_state(jnp.array([[0, 1], [1, 0]]), jnp.array([[0.2, 0.9], [0.7, 0.4]]))
>>> auc.true_positives.shape, float(auc.result())
((200, 2), 1.0)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph.config import epsilon
from kgraph.losses.weighting import divide_no_nan
from kgraph.metrics.confusion_metrics import COUNTS, confusion_counts, thresholds_in_range
from kgraph.metrics.metric import Metric
from kgraph.metrics.metrics_utils import AUCCurve, AUCSummationMethod
from kgraph.metrics.reduction_metrics import merge_weights

__all__ = ["AUC"]


class AUC(Metric):
    """Area under the ROC, PR or PR-gain curve, by a Riemann sum over ``num_thresholds``.

    Args:
      num_thresholds: thresholds evenly spaced in [0, 1] (ignored if ``thresholds``).
      curve: "ROC", "PR" or "PRGAIN" (or a ``metrics_utils.AUCCurve``).
      summation_method: "interpolation", "minoring" or "majoring".
      thresholds: explicit thresholds in [0, 1] (0 and 1 are added).
      multi_label: one curve per label (averaged); the number of labels is ``num_labels``,
        else the first batch's (or the model output's) last dimension.
      label_weights: per-label weights (of the counts, or of the per-label AUCs with
        ``multi_label``).
      from_logits: apply a sigmoid to ``y_pred`` first.
    """

    _variable_order = COUNTS

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, dtype=None, thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False):
        super().__init__(name, dtype)
        try:
            self.curve = AUCCurve.from_str(curve)
            self.summation_method = AUCSummationMethod.from_str(summation_method)
        except ValueError as error:
            raise ValueError(f"Metric {self.name!r}: {error}") from None
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            inner = sorted(thresholds_in_range(thresholds, None, self.name))
            self.num_thresholds = len(inner) + 2
        else:
            if num_thresholds is None or num_thresholds <= 1:
                raise ValueError(f"Metric {self.name!r}: Argument `num_thresholds` must be an "
                                 f"integer > 1. Received: num_thresholds={num_thresholds}")
            self.num_thresholds = num_thresholds
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.thresholds = [0.0 - epsilon()] + inner + [1.0 + epsilon()]
        if num_labels and not multi_label:
            raise ValueError(f"Metric {self.name!r}: `num_labels` is needed only when "
                             "`multi_label` is True.")
        self.multi_label, self.num_labels = multi_label, num_labels
        self._num_labels = num_labels if multi_label else None
        self.label_weights = label_weights
        self._from_logits = from_logits

    @property
    def from_logits(self) -> bool:
        return self._from_logits

    def build_for_output(self, shape) -> None:
        """Take the number of labels from ``y_pred``'s shape ``(batch, labels)``, as Keras
        builds its variables (only with ``multi_label`` and no ``num_labels``)."""
        if not self.multi_label or self._num_labels is not None:
            return
        shape = tuple(shape)
        if len(shape) != 2:
            raise ValueError(f"Metric {self.name!r}: `y_pred` must have rank 2 when "
                             f"`multi_label=True`. Found rank {len(shape)}. Full shape "
                             f"received for `y_pred`: {shape}")
        if shape[1] is None:
            raise ValueError(f"Metric {self.name!r} (multi_label=True) needs a known number "
                             f"of labels; received y_pred of shape {shape}.")
        self._num_labels = int(shape[1])
        self.__dict__.pop("_keras_state", None)

    def _size_from(self, y_true, y_pred):
        self.build_for_output(jnp.shape(y_pred))

    def init(self):
        if self.multi_label and self._num_labels is None:
            raise ValueError(f"Metric {self.name!r} (multi_label=True) does not know the "
                             "number of labels yet: update it with a batch, give num_labels, "
                             "or use it in compile(metrics=...).")
        shape = (self.num_thresholds,) + ((self._num_labels,) if self.multi_label else ())
        return {k: jnp.zeros(shape, jnp.float32) for k in COUNTS}

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        y_pred = jnp.asarray(y_pred)
        if self.multi_label and (y_pred.ndim != 2 or y_pred.shape[1] != self._num_labels):
            raise ValueError(f"Metric {self.name!r} (multi_label=True) has "
                             f"{self._num_labels} labels: it expects y_pred of shape "
                             f"(batch, {self._num_labels}); received {y_pred.shape}.")
        if self._from_logits:
            y_pred = jax.nn.sigmoid(y_pred)
        counts = confusion_counts(
            y_true, y_pred, self.thresholds, merge_weights(sample_weight, mask),
            multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights, owner=self.name)
        return {k: state[k] + counts[k] for k in COUNTS}

    def result(self, state):
        tp, fp = state["true_positives"], state["false_positives"]
        tn, fn = state["true_negatives"], state["false_negatives"]
        if self.curve == AUCCurve.PR and \
                self.summation_method == AUCSummationMethod.INTERPOLATION:
            areas = _interpolated_pr_areas(tp, fp, fn)
        else:
            x, y = _curve(self.curve, tp, fp, tn, fn)
            if self.summation_method == AUCSummationMethod.INTERPOLATION:
                heights = (y[:-1] + y[1:]) / 2.0
            elif self.summation_method == AUCSummationMethod.MINORING:
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
        config = {**super().get_config(), "num_thresholds": self.num_thresholds,
                  "curve": self.curve.value, "summation_method": self.summation_method.value,
                  "multi_label": self.multi_label, "num_labels": self.num_labels,
                  "label_weights": self.label_weights, "from_logits": self._from_logits}
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return config


def _curve(curve, tp, fp, tn, fn):
    """``(x, y)`` of ``curve`` at each threshold."""
    recall = divide_no_nan(tp, tp + fn)
    if curve == AUCCurve.ROC:
        return divide_no_nan(fp, fp + tn), recall
    if curve == AUCCurve.PR:
        return recall, divide_no_nan(tp, tp + fp)
    # precision-recall gain (Flach & Kull 2015), as Keras computes it
    scale = divide_no_nan(tp + fn, tn + fp)
    no_tp = tp == 0.0
    recall_gain = jnp.where(no_tp, 0.0, 1.0 - scale * divide_no_nan(fn, tp))
    precision_gain = jnp.where(no_tp, 1.0, 1.0 - scale * divide_no_nan(fp, tp))
    return jnp.maximum(recall_gain, 0.0), precision_gain


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
