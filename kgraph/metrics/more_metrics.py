"""More of ``keras.metrics``: confusion counts, precision/recall trade-off points, F-scores,
R2, IoU family, and the loss-valued metrics (hinge, KL divergence, crossentropies ...).
Stateless like the others (``init`` / ``update`` / ``result``), with Keras's numbers.

>>> import jax.numpy as jnp
>>> m = TruePositives()
>>> float(m(jnp.array([1, 1, 0]), jnp.array([0.9, 0.2, 0.8])))
1.0
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from kgraph.config import epsilon
from kgraph.losses import functions as fns
from kgraph.metrics.metric import Metric
from kgraph.metrics.reduction_metrics import MeanMetricWrapper, merge_weights
from kgraph.metrics.confusion_metrics import _ThresholdMetric, confusion_counts
from kgraph.metrics.iou_metrics import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from kgraph.losses.weighting import divide_no_nan, squeeze_or_expand_to_same_rank

__all__ = ["BinaryCrossentropy", "BinaryIoU", "CategoricalCrossentropy", "CategoricalHinge",
           "F1Score", "FBetaScore", "FalseNegatives", "FalsePositives", "Hinge", "IoU",
           "KLDivergence", "MeanIoU", "OneHotIoU", "OneHotMeanIoU", "Poisson",
           "PrecisionAtRecall", "R2Score", "RecallAtPrecision", "SensitivityAtSpecificity",
           "SparseCategoricalCrossentropy", "SpecificityAtSensitivity", "SquaredHinge",
           "TrueNegatives", "TruePositives"]


# ------------------------------------------------------------------ confusion counts
class _Count(_ThresholdMetric):
    _count = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds=thresholds, name=name, dtype=dtype)
        self._counts = (self._count,)

    def result(self, state):
        return self._single(state[self._count])

    def get_config(self):
        return {**Metric.get_config(self), "thresholds": self.init_thresholds}


class TruePositives(_Count):
    """Weighted count of positives predicted positive (above ``thresholds``, 0.5)."""

    _count = "true_positives"


class FalsePositives(_Count):
    """Weighted count of negatives predicted positive."""

    _count = "false_positives"


class TrueNegatives(_Count):
    """Weighted count of negatives predicted negative."""

    _count = "true_negatives"


class FalseNegatives(_Count):
    """Weighted count of positives predicted negative."""

    _count = "false_negatives"


class _AtConstraint(Metric):
    """The best ``dependent`` rate among thresholds where ``constrained >= value``."""

    _argument = None
    _variable_order = ("true_positives", "false_positives", "true_negatives",
                       "false_negatives")

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(name, dtype)
        if not 0 <= value <= 1:
            raise ValueError(f"Argument `{self._argument}` must be in the range [0, 1]. "
                             f"Received: {self._argument}={value}")
        if num_thresholds <= 0:
            raise ValueError("Argument `num_thresholds` must be an integer > 0. Received: "
                             f"num_thresholds={num_thresholds}")
        self.value, self.num_thresholds, self.class_id = value, num_thresholds, class_id
        setattr(self, self._argument, value)  # Keras's attribute: ``recall``, ...
        inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.thresholds = [0.0] + inner + [1.0]

    def init(self):
        n = len(self.thresholds)
        return {k: jnp.zeros((n,), jnp.float32) for k in
                ("true_positives", "false_positives", "true_negatives", "false_negatives")}

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        counts = confusion_counts(y_true, y_pred, self.thresholds,
                                  merge_weights(sample_weight, mask), None, self.class_id,
                                  owner=self.name)
        return {k: state[k] + counts[k] for k in state}

    def _rates(self, state):
        tp, fp = state["true_positives"], state["false_positives"]
        tn, fn = state["true_negatives"], state["false_negatives"]
        return {"recall": divide_no_nan(tp, tp + fn), "precision": divide_no_nan(tp, tp + fp),
                "specificity": divide_no_nan(tn, tn + fp)}

    def _best(self, constrained, dependent):
        feasible = constrained >= self.value
        best = jnp.max(jnp.where(feasible, dependent, 0.0))
        return jnp.where(jnp.any(feasible), best, 0.0)

    def get_config(self):
        return {**Metric.get_config(self), self._argument: self.value,
                "num_thresholds": self.num_thresholds, "class_id": self.class_id}


class PrecisionAtRecall(_AtConstraint):
    """The best precision at a recall of at least ``recall``."""

    _argument = "recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name, dtype)

    def result(self, state):
        rates = self._rates(state)
        return self._best(rates["recall"], rates["precision"])


class RecallAtPrecision(_AtConstraint):
    """The best recall at a precision of at least ``precision``."""

    _argument = "precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name, dtype)

    def result(self, state):
        rates = self._rates(state)
        return self._best(rates["precision"], rates["recall"])


class SensitivityAtSpecificity(_AtConstraint):
    """The best sensitivity (recall) at a specificity of at least ``specificity``."""

    _argument = "specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name, dtype)

    def result(self, state):
        rates = self._rates(state)
        return self._best(rates["specificity"], rates["recall"])


class SpecificityAtSensitivity(_AtConstraint):
    """The best specificity at a sensitivity (recall) of at least ``sensitivity``."""

    _argument = "sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)

    def result(self, state):
        rates = self._rates(state)
        return self._best(rates["recall"], rates["specificity"])


# ---------------------------------------------------------- shape-dependent metrics
class _PerClass(Metric):
    """A metric whose state has one entry per class: sized by ``build_for_output`` (the
    compiled output's shape) or by the first batch seen, from ``(batch_size,
    output_dim)`` inputs, as Keras's ``_build`` makes the variables."""

    _width = None

    def build_for_output(self, shape):
        self._build(tuple(shape), tuple(shape))

    def _size_from(self, y_true, y_pred):
        if self._width is None:
            y_true, y_pred = squeeze_or_expand_to_same_rank(jnp.asarray(y_true),
                                                            jnp.asarray(y_pred))
            self._build(y_true.shape, y_pred.shape)

    def _build(self, y_true_shape, y_pred_shape):
        """Size the state from the shapes of ``y_true`` and ``y_pred``, ``(batch_size,
        output_dim)``, as Keras's ``_build`` makes the variables."""
        kind = self._keras_kind
        received = f"Received input shapes: y_pred.shape={tuple(y_pred_shape)} and " \
                   f"y_true.shape={tuple(y_true_shape)}."
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError(f"Metric {self.name!r}: {kind} expects 2D inputs with shape "
                             f"(batch_size, output_dim). {received}")
        if y_pred_shape[-1] is None or y_true_shape[-1] is None:
            raise ValueError(f"Metric {self.name!r}: {kind} expects 2D inputs with shape "
                             "(batch_size, output_dim), with output_dim fully defined (not "
                             f"None). {received}")
        self._width = int(y_pred_shape[-1])
        self.__dict__.pop("_keras_state", None)


class FBetaScore(_PerClass):
    """The F-beta score per class, or averaged (``average``: None, "micro", "macro",
    "weighted"); predictions above ``threshold`` (default: each row's maximum) count."""

    _variable_order = ("true_positives", "false_positives", "false_negatives",
                       "intermediate_weights")
    _keras_kind = "FBetaScore"  # the name Keras's errors give (also F1Score's)

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score",
                 dtype=None):
        super().__init__(name, dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError("Invalid `average` argument value. Expected one of: {None, "
                             f"'micro', 'macro', 'weighted'}}. Received: average={average}")
        if not isinstance(beta, float):
            raise ValueError(f"Metric {self.name!r}: Invalid `beta` argument value. It should "
                             f"be a Python float. Received: beta={beta} of type "
                             f"'{type(beta)}'")
        if beta <= 0.0:
            raise ValueError(f"Metric {self.name!r}: Invalid `beta` argument value. It should "
                             f"be > 0. Received: beta={beta}")
        if threshold is not None and not isinstance(threshold, float):
            raise ValueError(f"Metric {self.name!r}: Invalid `threshold` argument value. It "
                             f"should be a Python float. Received: threshold={threshold} of "
                             f"type '{type(threshold)}'")
        if threshold is not None and not 0.0 < threshold <= 1.0:
            raise ValueError(f"Metric {self.name!r}: Invalid `threshold` argument value. It "
                             f"should verify 0 < threshold <= 1. Received: "
                             f"threshold={threshold}")
        self.average, self.beta, self.threshold = average, beta, threshold

    def init(self):
        if self._width is None:
            raise ValueError(f"Metric {self.name!r} does not know the number of classes yet: "
                             "update it with a batch, or use it in compile(metrics=...).")
        shape = () if self.average == "micro" else (self._width,)
        return {k: jnp.zeros(shape, jnp.float32) for k in
                ("true_positives", "false_positives", "false_negatives",
                 "intermediate_weights")}

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        y_pred = jnp.asarray(y_pred, jnp.float32)
        y_true = jnp.asarray(y_true, jnp.float32)
        if self.threshold is None:
            top = jnp.max(y_pred, axis=-1, keepdims=True)
            y_pred = (y_pred >= top) & (jnp.abs(y_pred) > 1e-9)
        else:
            y_pred = y_pred > self.threshold
        y_pred = y_pred.astype(jnp.float32)
        weight = merge_weights(sample_weight, mask)
        axis = None if self.average == "micro" else 0

        def total(values):
            if weight is not None:
                values = values * jnp.expand_dims(weight, 1)
            return jnp.sum(values, axis=axis)

        return {"true_positives": state["true_positives"] + total(y_pred * y_true),
                "false_positives": state["false_positives"] + total(y_pred * (1 - y_true)),
                "false_negatives": state["false_negatives"] + total((1 - y_pred) * y_true),
                "intermediate_weights": state["intermediate_weights"] + total(y_true)}

    def result(self, state):
        tp, eps = state["true_positives"], epsilon()
        precision = tp / (tp + state["false_positives"] + eps)
        recall = tp / (tp + state["false_negatives"] + eps)
        beta2 = self.beta ** 2
        score = precision * recall / (beta2 * precision + recall + eps) * (1 + beta2)
        if self.average == "weighted":
            weights = state["intermediate_weights"]
            return jnp.sum(score * weights / (jnp.sum(weights) + eps))
        if self.average is not None:
            return jnp.mean(score)
        return score

    def get_config(self):
        return {**Metric.get_config(self), "beta": self.beta, "average": self.average,
                "threshold": self.threshold}


class F1Score(FBetaScore):
    """The F1 score (``FBetaScore`` with ``beta=1``)."""

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name,
                         dtype=dtype)

    def get_config(self):
        config = super().get_config()
        del config["beta"]
        return config


class R2Score(_PerClass):
    """The coefficient of determination, per output column or aggregated
    (``class_aggregation``: "uniform_average", "variance_weighted_average" or None)."""

    _variable_order = ("num_samples", "squared_sum", "sum", "total_mse", "count")
    _variable_names = {"total_mse": "residual"}
    _keras_kind = "R2Score"

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score",
                 dtype=None):
        super().__init__(name, dtype)
        if class_aggregation not in (None, "uniform_average", "variance_weighted_average"):
            raise ValueError("Invalid value for argument `class_aggregation`. Expected one of "
                             "{None, 'uniform_average', 'variance_weighted_average'}. "
                             f"Received: class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError("Invalid value for argument `num_regressors`. Expected a value "
                             f">= 0. Received: num_regressors={num_regressors}")
        self.class_aggregation, self.num_regressors = class_aggregation, num_regressors

    def init(self):
        if self._width is None:
            raise ValueError(f"Metric {self.name!r} does not know the number of outputs yet: "
                             "update it with a batch, or use it in compile(metrics=...).")
        state = {k: jnp.zeros((self._width,), jnp.float32)
                 for k in ("sum", "squared_sum", "total_mse", "count")}
        state["num_samples"] = jnp.zeros((), jnp.float32)
        return state

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        y_true, y_pred = squeeze_or_expand_to_same_rank(jnp.asarray(y_true, jnp.float32),
                                                        jnp.asarray(y_pred, jnp.float32))
        weight = merge_weights(sample_weight, mask)
        weight = jnp.ones((), jnp.float32) if weight is None else weight
        weight = weight[:, None] if weight.ndim == 1 else weight
        weight = jnp.broadcast_to(weight, y_true.shape)
        weighted = y_true * weight
        return {"sum": state["sum"] + jnp.sum(weighted, 0),
                "squared_sum": state["squared_sum"] + jnp.sum(y_true * weighted, 0),
                "total_mse": state["total_mse"] + jnp.sum((y_true - y_pred) ** 2 * weight, 0),
                "count": state["count"] + jnp.sum(weight, 0),
                "num_samples": state["num_samples"] + y_true.size}

    def result(self, state):
        mean = state["sum"] / state["count"]
        total = state["squared_sum"] - state["sum"] * mean
        raw = 1 - state["total_mse"] / total
        raw = jnp.where(jnp.isinf(raw), 0.0, raw)
        if self.class_aggregation == "uniform_average":
            score = jnp.mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = jnp.sum(total * raw) / jnp.sum(total)
        else:
            score = raw
        if self.num_regressors:
            n, p = state["num_samples"], float(self.num_regressors)
            adjusted = 1.0 - (1.0 - score) * (n - 1.0) / (n - p - 1.0)
            score = jnp.where(p < n - 1, adjusted, score)
        return score

    def get_config(self):
        return {**Metric.get_config(self),
                "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}


# ---------------------------------------------------------------- loss-valued metrics
def _wrapper(fn, default_name, doc):
    class Wrapped(MeanMetricWrapper):
        def __init__(self, name=default_name, dtype=None, **kwargs):
            super().__init__(fn, name=name, dtype=dtype, **kwargs)

    Wrapped.__doc__ = doc
    return Wrapped


Hinge = _wrapper(fns.hinge, "hinge", "Mean hinge loss.")
SquaredHinge = _wrapper(fns.squared_hinge, "squared_hinge", "Mean squared hinge loss.")
CategoricalHinge = _wrapper(fns.categorical_hinge, "categorical_hinge",
                            "Mean categorical hinge loss.")
KLDivergence = _wrapper(fns.kl_divergence, "kl_divergence", "Mean KL divergence.")
Poisson = _wrapper(fns.poisson, "poisson", "Mean Poisson loss.")
BinaryCrossentropy = _wrapper(fns.binary_crossentropy, "binary_crossentropy",
                              "Mean binary crossentropy (``from_logits``, ``label_smoothing``).")
CategoricalCrossentropy = _wrapper(fns.categorical_crossentropy, "categorical_crossentropy",
                                   "Mean categorical crossentropy.")


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """Mean sparse categorical crossentropy. With ``ignore_class``, ignored entries give 0
    and, as in Keras, leave the count only when the batch is weighted (``sample_weight``):
    unweighted, they still count as samples.

    >>> import jax.numpy as jnp
    >>> labels, scores = jnp.array([0, 1]), jnp.array([[0.5, 0.5], [0.5, 0.5]])
    >>> metric = SparseCategoricalCrossentropy(ignore_class=0)
    >>> round(float(metric(labels, scores)), 4), round(float(
    ...     SparseCategoricalCrossentropy(ignore_class=0)(labels, scores, jnp.ones(2))), 4)
    (0.3466, 0.6931)
    """

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, **kwargs):
        super().__init__(fns.sparse_categorical_crossentropy, name=name, dtype=dtype,
                         **kwargs)

    def values_and_mask(self, y_true, y_pred):
        return fns.sparse_categorical_crossentropy_and_mask(y_true, y_pred, **self._fn_kwargs)

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        values, valid = self.values_and_mask(y_true, y_pred)
        if valid is not None and sample_weight is not None:
            mask = valid if mask is None else merge_weights(jnp.asarray(mask) != 0, valid)
        return super(MeanMetricWrapper, self).update(state, values, sample_weight, mask)

for _name, _cls in [("Hinge", Hinge), ("SquaredHinge", SquaredHinge),
                    ("CategoricalHinge", CategoricalHinge), ("KLDivergence", KLDivergence),
                    ("Poisson", Poisson), ("BinaryCrossentropy", BinaryCrossentropy),
                    ("CategoricalCrossentropy", CategoricalCrossentropy)]:
    _cls.__name__ = _cls.__qualname__ = _name
del np
