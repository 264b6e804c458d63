"""Keras metrics, stateless and jit-friendly: ``init``, ``update``, ``merge``, ``result``.

States are dicts of fixed-shape float32 arrays, so a whole epoch accumulates on the device
(under ``jax.jit`` or ``jax.lax.scan``). ``sample_weight`` weighs samples (padding rows
get 0 and change nothing); ``mask`` is the output's Keras mask. ``get`` resolves Keras
names, including "accuracy" against the loss, and any loss as a metric.

>>> import jax, jax.numpy as jnp
>>> metric = get("acc", loss="sparse_categorical_crossentropy")
>>> metric.name, type(metric).__name__
('acc', 'SparseCategoricalAccuracy')
>>> state = metric.init()
>>> scores = jnp.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
>>> state = jax.jit(metric.update)(state, jnp.array([1, 1, 1]), scores)
>>> round(float(metric.result(state)), 4)
0.6667
"""

from __future__ import annotations

import inspect

import jax.numpy as jnp

from kgraph.base.naming import to_snake_case
from kgraph.losses import functions as fns, losses
from kgraph.metrics.metric import Metric
from kgraph.metrics.reduction_metrics import Mean, MeanMetricWrapper, Sum
from kgraph.metrics.accuracy_metrics import (Accuracy, AutoAccuracy, BinaryAccuracy,
                                      CategoricalAccuracy, SparseCategoricalAccuracy,
                                      SparseTopKCategoricalAccuracy, TopKCategoricalAccuracy)
from kgraph.metrics.auc_metric import AUC
from kgraph.metrics.confusion_metrics import Precision, Recall
from kgraph.losses.weighting import squeeze_or_expand_to_same_rank

from kgraph.metrics import correlation_metrics as _correlation, more_metrics as _extra
from kgraph.metrics.correlation_metrics import *  # noqa: F401,F403 - correlation metrics
from kgraph.metrics.more_metrics import *  # noqa: F401,F403 - the rest of keras.metrics
from kgraph.losses.functions import (binary_crossentropy, categorical_crossentropy,  # noqa
                                    categorical_hinge, hinge, huber, kl_divergence, log_cosh,
                                    mean_absolute_error, mean_absolute_percentage_error,
                                    mean_squared_error, mean_squared_logarithmic_error,
                                    poisson, sparse_categorical_crossentropy, squared_hinge)
from kgraph.metrics.accuracy_metrics import (accuracy, binary_accuracy,  # noqa: F401,E402
                                      categorical_accuracy, sparse_categorical_accuracy,
                                      sparse_top_k_categorical_accuracy,
                                      top_k_categorical_accuracy)

__all__ = [
    "AUC", "Accuracy", "AutoAccuracy", "BinaryAccuracy", "CategoricalAccuracy",
    "CosineSimilarity", "LogCoshError", "LossMetric", "Mean", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanMetricWrapper", "MeanSquaredError",
    "MeanSquaredLogarithmicError", "Metric", "Precision", "Recall", "RootMeanSquaredError",
    "SparseCategoricalAccuracy", "SparseTopKCategoricalAccuracy", "Sum",
    "TopKCategoricalAccuracy", "get", "name_of", *_extra.__all__, *_correlation.__all__,
    "accuracy", "binary_accuracy", "binary_crossentropy", "categorical_accuracy",
    "categorical_crossentropy", "categorical_hinge", "hinge", "huber", "kl_divergence",
    "log_cosh", "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_error",
    "mean_squared_logarithmic_error", "poisson", "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy", "sparse_top_k_categorical_accuracy", "squared_hinge",
    "top_k_categorical_accuracy",
]


class MeanSquaredError(MeanMetricWrapper):
    """Mean of ``mean(square(y_true - y_pred), axis=-1)``."""

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(fns.mean_squared_error, name=name, dtype=dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    """Mean of ``mean(abs(y_true - y_pred), axis=-1)``."""

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(fns.mean_absolute_error, name=name, dtype=dtype)


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """Mean of ``100 * mean(abs((y_true - y_pred) / y_true), axis=-1)``."""

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(fns.mean_absolute_percentage_error, name=name, dtype=dtype)


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    """Mean of ``mean(square(log(y_pred + 1) - log(y_true + 1)), axis=-1)``."""

    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(fns.mean_squared_logarithmic_error, name=name, dtype=dtype)


class LogCoshError(MeanMetricWrapper):
    """Mean of ``mean(log(cosh(y_pred - y_true)), axis=-1)``."""

    def __init__(self, name="logcosh", dtype=None):
        super().__init__(fns.log_cosh, name=name, dtype=dtype)


def _cosine_similarity(y_true, y_pred, axis=-1):
    """Cosine similarity along ``axis`` (positive: 1 for identical directions)."""
    return -fns.cosine_similarity(y_true, y_pred, axis=axis)


class CosineSimilarity(MeanMetricWrapper):
    """Mean cosine similarity (the metric is positive; the loss of that name is negative)."""

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(_cosine_similarity, name=name, dtype=dtype, axis=axis)


class RootMeanSquaredError(Mean):
    """``sqrt`` of the weighted mean squared error over every entry.

    >>> import jax.numpy as jnp
    >>> float(RootMeanSquaredError()(jnp.zeros((2, 2)), jnp.full((2, 2), 3.0)))
    3.0
    """

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name, dtype)

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        y_pred = jnp.asarray(y_pred, jnp.float32)
        y_true, y_pred = squeeze_or_expand_to_same_rank(jnp.asarray(y_true, jnp.float32),
                                                        y_pred)
        return super().update(state, jnp.square(y_pred - y_true), sample_weight, mask)

    def result(self, state):
        return jnp.sqrt(super().result(state))


class LossMetric(MeanMetricWrapper):
    """A loss's per-sample values, averaged like any metric (``metrics=[losses.X()]``).

    The loss's own mask (``ignore_class``) excludes entries as it does in the loss. Keras
    averages the reduced loss of each batch instead; weighing samples keeps a padded
    batch's result equal to the unpadded one's.

    >>> import jax.numpy as jnp
    >>> metric = LossMetric(losses.MeanSquaredError())
    >>> metric.name, float(metric(jnp.zeros((2, 1)), jnp.array([[1.0], [3.0]])))
    ('mean_squared_error', 5.0)
    """

    def __init__(self, loss, name=None):
        loss = losses.as_loss(loss)
        super().__init__(loss.call, name=name or loss.name)
        self.loss = loss

    def values_and_mask(self, y_true, y_pred):
        y_pred = jnp.asarray(y_pred, jnp.float32)
        y_true = jnp.asarray(y_true)
        if not jnp.issubdtype(y_true.dtype, jnp.integer):
            y_true = y_true.astype(jnp.float32)
        return self.loss.call_with_mask(y_true, y_pred)

    def get_config(self) -> dict:
        return {"name": self.name, "loss": self.loss}


_CLASSES = [Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
            TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, MeanSquaredError,
            MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError,
            RootMeanSquaredError, LogCoshError, CosineSimilarity, Precision, Recall, AUC,
            _correlation.PearsonCorrelation, _correlation.ConcordanceCorrelation]
_BY_CLASS_NAME = {c.__name__: c for c in _CLASSES}
BY_NAME = {
    **{to_snake_case(c.__name__): c for c in _CLASSES},
    "mse": MeanSquaredError, "mae": MeanAbsoluteError, "mape": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError, "rmse": RootMeanSquaredError,
    "log_cosh_error": LogCoshError, "logcosh": LogCoshError, "auc": AUC,
}
_ACCURACY = ("accuracy", "acc")


def _accuracy_for(loss, name="accuracy") -> Metric:
    """The accuracy that fits ``loss`` (see ``get``)."""
    if isinstance(loss, (str, dict)) or (callable(loss) and not isinstance(loss, losses.Loss)):
        loss = losses.as_loss(loss)
    if isinstance(loss, losses.SparseCategoricalCrossentropy):
        return SparseCategoricalAccuracy(name=name)
    if isinstance(loss, losses.CategoricalCrossentropy):
        return CategoricalAccuracy(name=name)
    if isinstance(loss, (losses.BinaryCrossentropy, losses.BinaryFocalCrossentropy)):
        return BinaryAccuracy(name=name, threshold=0.0 if loss.from_logits else 0.5)
    return AutoAccuracy(name=name)


def get(identifier, loss=None) -> Metric:
    """A ``Metric`` from a Keras name, a loss name or object, a ``Metric`` or a callable
    (None gives None).

    "accuracy"/"acc" follow the loss: sparse categorical crossentropy gives
    ``SparseCategoricalAccuracy``, categorical crossentropy ``CategoricalAccuracy``,
    binary (focal) crossentropy ``BinaryAccuracy``; any other loss (or none) gets
    ``AutoAccuracy``, Keras's choice from the shapes. For a binary loss with
    ``from_logits=True`` the threshold is 0.0, not Keras's 0.5: a deliberate improvement,
    since a logit of 0 is a probability of 0.5.

    A string keeps its spelling as the metric's name (``get("acc").name == "acc"``, the
    name Keras logs); a plain function ``fn(y_true, y_pred)`` becomes
    ``MeanMetricWrapper(fn)`` named ``fn.__name__``.

    >>> from kgraph.losses import losses
    >>> get("accuracy", losses.BinaryCrossentropy(from_logits=True)).threshold
    0.0
    >>> get("mae").name, type(get("binary_crossentropy")).__name__
    ('mae', 'LossMetric')
    >>> get(None) is None  # as Keras's
    True
    """
    if identifier is None:
        return None
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str):
        metric = _from_name(identifier, loss)
        metric.name = identifier
        return metric
    if isinstance(identifier, dict) and "class_name" in identifier:
        cls = _BY_CLASS_NAME.get(identifier["class_name"])
        if cls is None:
            return LossMetric(identifier)
        return cls.from_config(identifier.get("config") or {})
    if inspect.isclass(identifier) and issubclass(identifier, Metric):
        return identifier()
    if isinstance(identifier, losses.Loss) or losses._from_keras(identifier) is not None:
        return LossMetric(identifier)
    if callable(identifier):
        return MeanMetricWrapper(identifier)
    raise ValueError(f"A metric must be a name, a Metric, a Loss or a callable "
                     f"fn(y_true, y_pred); received {identifier!r} of type "
                     f"{type(identifier).__name__}.")


def _from_name(name, loss):
    if name.lower() in _ACCURACY:
        return _accuracy_for(loss, name)
    cls = BY_NAME.get(name) or _BY_CLASS_NAME.get(name)
    if cls is not None:
        return cls()
    if name in losses.BY_NAME or name in {c.__name__ for c in losses.BY_NAME.values()}:
        return LossMetric(name)
    known = sorted({*BY_NAME, *losses.BY_NAME, *_ACCURACY})
    raise ValueError(f"Unknown metric {name!r}. Expected one of {known}, a Metric, a Loss, "
                     "or a callable fn(y_true, y_pred) -> per-sample values.")


def name_of(metric) -> str:
    """The name a metric logs under (``get`` sets it to the string the user gave)."""
    return getattr(metric, "name", None) or getattr(metric, "__name__", None) or "metric"
