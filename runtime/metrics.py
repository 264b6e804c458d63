"""Metrics by Keras name. Each returns one value per sample; epochs average them.

``"accuracy"`` resolves against the loss as in Keras: sparse categorical accuracy for a
sparse categorical loss, categorical for categorical, binary for binary.

>>> import jax.numpy as jnp
>>> SparseCategoricalAccuracy()(jnp.array([1, 0]), jnp.array([[0.1, 0.9], [0.2, 0.8]])).tolist()
[1.0, 0.0]
"""

from __future__ import annotations

import jax.numpy as jnp

from runtime import losses


class Metric:
    """A named per-sample metric, averaged (sample-weighted) over an epoch."""

    name = "metric"

    def __call__(self, y_true, y_pred):
        raise NotImplementedError


class SparseCategoricalAccuracy(Metric):
    name = "accuracy"

    def __call__(self, y_true, y_pred):
        labels = jnp.asarray(y_true).astype(jnp.int32).reshape(y_pred.shape[:-1])
        return (jnp.argmax(y_pred, axis=-1) == labels).astype(jnp.float32)


class CategoricalAccuracy(Metric):
    name = "accuracy"

    def __call__(self, y_true, y_pred):
        return (jnp.argmax(y_pred, -1) == jnp.argmax(y_true, -1)).astype(jnp.float32)


class BinaryAccuracy(Metric):
    name = "accuracy"

    def __init__(self, threshold=0.5):
        self.threshold = threshold

    def __call__(self, y_true, y_pred):
        hits = (y_pred > self.threshold) == (jnp.asarray(y_true).reshape(y_pred.shape) > 0.5)
        return hits.astype(jnp.float32).reshape(hits.shape[0], -1).mean(axis=1)


def get(identifier, loss=None) -> Metric:
    """A metric from a Keras name (resolved against ``loss``) or a callable."""
    if identifier in ("accuracy", "acc"):
        if isinstance(loss, losses.CategoricalCrossentropy):
            return CategoricalAccuracy()
        if isinstance(loss, losses.BinaryCrossentropy):
            return BinaryAccuracy(threshold=0.0 if loss.from_logits else 0.5)
        return SparseCategoricalAccuracy()
    names = {"sparse_categorical_accuracy": SparseCategoricalAccuracy,
             "categorical_accuracy": CategoricalAccuracy, "binary_accuracy": BinaryAccuracy}
    if isinstance(identifier, str):
        if identifier not in names:
            raise ValueError(f"Unknown metric {identifier!r}. Expected 'accuracy', one of "
                             f"{sorted(names)}, or a callable fn(y_true, y_pred).")
        return names[identifier]()
    if callable(identifier):
        return identifier
    raise ValueError(f"A metric must be a name or a callable, received {identifier!r}.")


def name_of(metric) -> str:
    return getattr(metric, "name", None) or getattr(metric, "__name__", "metric")
