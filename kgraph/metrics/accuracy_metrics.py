"""Accuracy metrics, as Keras computes them: a 0/1 hit per sample (or entry), averaged.

>>> import jax.numpy as jnp
>>> scores = jnp.array([[0.1, 0.9], [0.2, 0.8]])
>>> sparse_categorical_accuracy(jnp.array([1, 0]), scores).tolist()
[1.0, 0.0]
>>> float(SparseCategoricalAccuracy()(jnp.array([1, 0]), scores))
0.5
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph.losses.compile_losses import crossentropy_kind
from kgraph.losses.functions import as_float
from kgraph.metrics.reduction_metrics import MeanMetricWrapper
from kgraph.losses.weighting import squeeze_or_expand_to_same_rank

__all__ = [
    "Accuracy", "AutoAccuracy", "BinaryAccuracy", "CategoricalAccuracy",
    "SparseCategoricalAccuracy", "SparseTopKCategoricalAccuracy", "TopKCategoricalAccuracy",
    "accuracy", "accuracy_kind", "binary_accuracy", "categorical_accuracy",
    "shape_resolved_accuracy", "sparse_categorical_accuracy",
    "sparse_top_k_categorical_accuracy", "top_k_categorical_accuracy"
]


def accuracy(y_true, y_pred):
    """1.0 where ``y_true == y_pred`` exactly."""
    y_pred = as_float(y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(jnp.asarray(y_true, y_pred.dtype), y_pred)
    return (y_true == y_pred).astype(jnp.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where ``y_pred > threshold`` agrees with the 0/1 label."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(jnp.asarray(y_true), jnp.asarray(y_pred))
    predicted = (y_pred > threshold).astype(y_true.dtype)
    return (y_true == predicted).astype(jnp.float32)


def _argmax_hits(labels, y_pred, squeeze_when_same_rank):
    """Hits of ``argmax(y_pred)`` against ``labels``, shaped like Keras's results."""
    y_pred = as_float(y_pred)
    labels = jnp.asarray(labels).astype(y_pred.dtype)
    original_shape = labels.shape
    reshape = labels.ndim == y_pred.ndim and squeeze_when_same_rank(labels)
    if reshape:
        labels = jnp.squeeze(labels, -1)
    predicted = jnp.argmax(y_pred, axis=-1).astype(labels.dtype)
    hits = (labels == predicted).astype(jnp.float32)
    return hits.reshape(original_shape) if reshape else hits


def categorical_accuracy(y_true, y_pred):
    """1.0 where ``argmax(y_pred) == argmax(y_true)`` (one-hot labels)."""
    return _argmax_hits(jnp.argmax(jnp.asarray(y_true), axis=-1), y_pred, lambda _: True)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where ``argmax(y_pred)`` equals the integer label (``(batch,)`` or ``(batch, 1)``)."""
    hits = _argmax_hits(y_true, y_pred, lambda labels: labels.shape[-1] == 1)
    return jnp.squeeze(hits, -1) if hits.ndim > 1 and hits.shape[-1] == 1 else hits


def _in_top_k(labels, y_pred, k):
    """Keras's ``in_top_k``: the label's score has fewer than ``k`` strictly higher scores."""
    at_label = jnp.take_along_axis(y_pred, labels[..., None], axis=-1)
    at_label = jnp.where(jnp.isnan(at_label), -jnp.inf, at_label)
    return 1 + jnp.sum(y_pred > at_label, axis=-1) <= k


def _top_k_hits(labels, y_pred, k):
    original_shape = labels.shape
    y_pred = as_float(y_pred)
    if y_pred.ndim > 2:
        y_pred = y_pred.reshape(-1, y_pred.shape[-1])
    hits = _in_top_k(labels.reshape(-1).astype(jnp.int32), y_pred, k)
    return hits.astype(jnp.float32).reshape(original_shape)


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot label's class is among the ``k`` highest scores."""
    return _top_k_hits(jnp.argmax(jnp.asarray(y_true), axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """1.0 where the integer label is among the ``k`` highest scores; with
    ``from_sorted_ids``, ``y_pred`` holds class ids from the highest score down
    ``(batch, n)`` and the label must be among its first ``k``."""
    if not from_sorted_ids:
        return _top_k_hits(jnp.asarray(y_true), y_pred, k)
    y_pred = jnp.asarray(y_pred)
    labels = jnp.asarray(y_true).astype(y_pred.dtype)
    original_shape = labels.shape
    if y_pred.ndim > 2:
        y_pred = y_pred.reshape(-1, y_pred.shape[-1])
    hits = jnp.any(labels.reshape(-1)[:, None] == y_pred[:, :k], axis=1)
    return hits.astype(jnp.float32).reshape(original_shape)


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels exactly."""

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name=name, dtype=dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often ``y_pred > threshold`` matches 0/1 labels (use ``threshold=0.0`` for logits)."""

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the top class matches one-hot labels."""

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the top class matches integer labels."""

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot label is among the ``k`` highest scores."""

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the ``k`` highest scores."""

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None,
                 from_sorted_ids=False):
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k,
                         from_sorted_ids=from_sorted_ids)
        self.k, self.from_sorted_ids = k, from_sorted_ids


def accuracy_kind(y_true_shape, y_pred_shape) -> str:
    """Keras's choice for "accuracy" by shapes: "binary", "sparse" or "categorical" (the
    one Keras's ``compile`` makes for "crossentropy")."""
    return crossentropy_kind(y_true_shape, y_pred_shape)


_BY_KIND = {"binary": binary_accuracy, "sparse": sparse_categorical_accuracy,
            "categorical": categorical_accuracy}


def shape_resolved_accuracy(y_true, y_pred):
    """Binary, sparse categorical or categorical accuracy, chosen from the static shapes."""
    kind = accuracy_kind(tuple(jnp.shape(y_true)), tuple(jnp.shape(y_pred)))
    return _BY_KIND[kind](y_true, y_pred)


class AutoAccuracy(MeanMetricWrapper):
    """"accuracy" as Keras's ``compile`` resolves it from shapes, when the loss can't tell.

    Predictions with a last axis of 1 get binary accuracy; labels with one rank less than
    the predictions (or a last axis of 1) get sparse categorical accuracy; otherwise
    categorical accuracy. The choice is static, so it costs nothing under ``jit``.
    """

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(shape_resolved_accuracy, name=name, dtype=dtype)
