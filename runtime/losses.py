"""Losses by Keras name, built on optax. Each returns one value per sample.

A loss is ``fn(y_true, y_pred) -> per_sample`` of shape ``(batch,)``; the training step
takes the (sample-weighted) mean. Strings follow Keras (``from_logits=False``); use the
classes for logits, as in Keras.

>>> import jax.numpy as jnp
>>> loss = SparseCategoricalCrossentropy(from_logits=True)
>>> loss(jnp.array([0, 1]), jnp.array([[2.0, 0.0], [0.0, 2.0]])).shape
(2,)
"""

from __future__ import annotations

import jax.numpy as jnp
import optax

_EPSILON = 1e-7  # Keras's backend epsilon, for probabilities clipped away from 0 and 1


def _per_sample(values):
    """Mean over every axis but the first (Keras reduces the last axes per sample)."""
    return values.reshape(values.shape[0], -1).mean(axis=1) if values.ndim > 1 else values


class Loss:
    """Base class: a named per-sample loss."""

    name = "loss"

    def __call__(self, y_true, y_pred):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


class MeanSquaredError(Loss):
    name = "mean_squared_error"

    def __call__(self, y_true, y_pred):
        y_true = jnp.asarray(y_true, y_pred.dtype).reshape(y_pred.shape)
        return _per_sample(optax.squared_error(y_pred, y_true))


class SparseCategoricalCrossentropy(Loss):
    """Integer labels ``(batch,)`` against class scores ``(batch, classes)``."""

    name = "sparse_categorical_crossentropy"

    def __init__(self, from_logits=False):
        self.from_logits = from_logits

    def __call__(self, y_true, y_pred):
        labels = jnp.asarray(y_true).astype(jnp.int32)
        if labels.ndim == y_pred.ndim:  # (batch, 1) labels, as Keras accepts
            labels = labels.squeeze(-1)
        logits = y_pred if self.from_logits else jnp.log(jnp.clip(y_pred, _EPSILON, 1.0))
        return _per_sample(optax.softmax_cross_entropy_with_integer_labels(logits, labels))


class CategoricalCrossentropy(Loss):
    """One-hot (or soft) labels against class scores on the last axis."""

    name = "categorical_crossentropy"

    def __init__(self, from_logits=False, label_smoothing=0.0):
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing

    def __call__(self, y_true, y_pred):
        labels = jnp.asarray(y_true, y_pred.dtype)
        if self.label_smoothing:
            labels = optax.smooth_labels(labels, self.label_smoothing)
        logits = y_pred if self.from_logits else jnp.log(jnp.clip(y_pred, _EPSILON, 1.0))
        return _per_sample(optax.softmax_cross_entropy(logits, labels))


class BinaryCrossentropy(Loss):
    """0/1 labels against one probability (or logit) per output unit."""

    name = "binary_crossentropy"

    def __init__(self, from_logits=False):
        self.from_logits = from_logits

    def __call__(self, y_true, y_pred):
        labels = jnp.asarray(y_true, y_pred.dtype).reshape(y_pred.shape)
        if self.from_logits:
            return _per_sample(optax.sigmoid_binary_cross_entropy(y_pred, labels))
        p = jnp.clip(y_pred, _EPSILON, 1.0 - _EPSILON)
        return _per_sample(-(labels * jnp.log(p) + (1.0 - labels) * jnp.log(1.0 - p)))


_BY_NAME = {
    "mse": MeanSquaredError, "mean_squared_error": MeanSquaredError,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "binary_crossentropy": BinaryCrossentropy,
}


def get(identifier) -> Loss:
    """A loss from a Keras name or a callable ``fn(y_true, y_pred)``."""
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown loss {identifier!r}. Expected one of {sorted(_BY_NAME)} "
                             "or a callable fn(y_true, y_pred).")
        return _BY_NAME[identifier]()
    if callable(identifier):
        return identifier
    raise ValueError(f"A loss must be a name or a callable, received {identifier!r}. Pass "
                     "loss=... to model.compile.")
