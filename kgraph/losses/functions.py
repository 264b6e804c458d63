"""Keras's loss functions, one value per sample, built on optax where optax has them.

Each ``fn(y_true, y_pred, ...)`` reduces the last axis, so ``(batch, d)`` inputs give
``(batch,)`` values and ``(batch, time, d)`` give ``(batch, time)``, as
``keras.losses.<name>`` does. The numbers are Keras's: probabilities are clipped to
``[1e-7, 1 - 1e-7]`` (categorical ones renormalised first), the cosine similarity loss is
negative, and binary labels are smoothed towards 0.5.

>>> import jax.numpy as jnp
>>> mean_squared_error(jnp.zeros((2, 3)), jnp.ones((2, 3))).tolist()
[1.0, 1.0]
>>> probs = jnp.array([[0.5, 0.5], [0.9, 0.1]])
>>> [round(v, 3) for v in sparse_categorical_crossentropy(jnp.array([0, 1]), probs).tolist()]
[0.693, 2.303]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

from kgraph.config import epsilon
from kgraph.ops import nn as ops_nn
from kgraph.losses.weighting import squeeze_or_expand_to_same_rank

__all__ = [
    "as_float", "binary_crossentropy", "binary_focal_crossentropy", "categorical_crossentropy",
    "categorical_focal_crossentropy", "categorical_generalized_cross_entropy",
    "categorical_hinge", "circle", "circle_and_mask", "cosine_similarity", "ctc", "dice",
    "hinge", "huber", "kl_divergence", "log_cosh", "mean_absolute_error",
    "mean_absolute_percentage_error", "mean_squared_error", "mean_squared_logarithmic_error",
    "poisson", "sparse_categorical_crossentropy", "sparse_categorical_crossentropy_and_mask",
    "squared_hinge", "tversky"
]


def as_float(x):
    """``x`` as a floating array (float32 unless it already is floating)."""
    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.floating) else x.astype(jnp.float32)


def _aligned(y_true, y_pred, broadcast=False):
    """Float ``y_true``/``y_pred`` with Keras's rank alignment (optionally broadcast)."""
    y_pred = as_float(y_pred)
    y_true = jnp.asarray(y_true).astype(y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    if broadcast and y_true.shape != y_pred.shape:
        y_true, y_pred = jnp.broadcast_arrays(y_true, y_pred)
    return y_true, y_pred


# ---------------------------------------------------------------- regression
def mean_squared_error(y_true, y_pred):
    """``mean(square(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = _aligned(y_true, y_pred, broadcast=True)
    return jnp.mean(optax.squared_error(y_pred, y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    return jnp.mean(jnp.abs(y_true - y_pred), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(abs((y_true - y_pred) / max(abs(y_true), 1e-7)), axis=-1)``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    diff = jnp.abs((y_true - y_pred) / jnp.maximum(jnp.abs(y_true), epsilon()))
    return 100.0 * jnp.mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    """``mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)``."""
    y_true, y_pred = _aligned(y_true, y_pred, broadcast=True)
    first = jnp.log(jnp.maximum(y_pred, epsilon()) + 1.0)
    second = jnp.log(jnp.maximum(y_true, epsilon()) + 1.0)
    return jnp.mean(optax.squared_error(first, second), axis=-1)


def huber(y_true, y_pred, delta=1.0):
    """Quadratic within ``delta`` of the target, linear beyond; mean over the last axis."""
    y_true, y_pred = _aligned(y_true, y_pred)
    return jnp.mean(optax.huber_loss(y_pred, y_true, delta=delta), axis=-1)


def log_cosh(y_true, y_pred):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    return jnp.mean(optax.log_cosh(y_pred, y_true), axis=-1)


def cosine_similarity(y_true, y_pred, axis=-1):
    """Negative cosine similarity along ``axis`` (Keras's loss sign: -1 is best)."""
    y_true, y_pred = _aligned(y_true, y_pred, broadcast=True)
    # Keras normalises with x * min(rsqrt(sum(x**2)), 1 / eps): optax's epsilon bounds
    # the squared norm, hence eps**2.
    return -optax.cosine_similarity(y_pred, y_true, epsilon=epsilon() ** 2, axis=axis)


def poisson(y_true, y_pred):
    """``mean(y_pred - y_true * log(y_pred + 1e-7), axis=-1)``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    return jnp.mean(y_pred - y_true * jnp.log(y_pred + epsilon()), axis=-1)


def kl_divergence(y_true, y_pred):
    """``sum(y_true * log(y_true / y_pred), axis=-1)``, both clipped to ``[1e-7, 1]``."""
    y_true, y_pred = _aligned(y_true, y_pred, broadcast=True)
    y_true = jnp.clip(y_true, epsilon(), 1.0)
    y_pred = jnp.clip(y_pred, epsilon(), 1.0)
    return optax.kl_divergence(jnp.log(y_pred), y_true, axis=-1)


# --------------------------------------------------------------------- hinge
def _hinge_labels(y_true):
    """0/1 labels become -1/1 (when every label is 0 or 1, as Keras decides)."""
    is_binary = jnp.all((y_true == 0) | (y_true == 1))
    return jnp.where(is_binary, 2.0 * y_true - 1.0, y_true)


def hinge(y_true, y_pred):
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)`` with -1/1 (or 0/1) labels."""
    y_true, y_pred = _aligned(y_true, y_pred)
    return jnp.mean(optax.hinge_loss(y_pred, _hinge_labels(y_true)), axis=-1)


def squared_hinge(y_true, y_pred):
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    return jnp.mean(jnp.square(optax.hinge_loss(y_pred, _hinge_labels(y_true))), axis=-1)


def categorical_hinge(y_true, y_pred):
    """``maximum(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0)``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    positive = jnp.sum(y_true * y_pred, axis=-1)
    negative = jnp.max((1.0 - y_true) * y_pred, axis=-1)
    return jnp.maximum(negative - positive + 1.0, 0.0)


# --------------------------------------------------------------- crossentropy
# The arithmetic is kgraph.ops's (as Keras's losses call keras.ops); here: Keras's loss
# options around it.
def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Crossentropy of one-hot (or soft) labels against class scores along ``axis``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    if label_smoothing:
        y_true = optax.smooth_labels(y_true, label_smoothing, axis=axis)
    return ops_nn.categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None,
                                    axis=-1):
    """Crossentropy of integer labels against class scores along ``axis``.

    Labels may have a trailing axis of size 1. With ``ignore_class``, entries whose label
    is that class give 0 (``sparse_categorical_crossentropy_and_mask`` also returns the
    mask that excludes them from the mean).
    """
    return sparse_categorical_crossentropy_and_mask(y_true, y_pred, from_logits,
                                                    ignore_class, axis)[0]


def sparse_categorical_crossentropy_and_mask(y_true, y_pred, from_logits=False,
                                             ignore_class=None, axis=-1):
    """``(values, valid)``: the sparse crossentropy and the mask of non-ignored labels."""
    y_pred = as_float(y_pred)
    y_true = jnp.asarray(y_true)
    if y_true.ndim == y_pred.ndim and y_true.shape[axis] == 1:
        y_true = jnp.squeeze(y_true, axis)
    labels = y_true.astype(jnp.int32)
    valid = None
    if ignore_class is not None:
        valid = labels != int(ignore_class)
        labels = jnp.where(valid, labels, 0)
    values = ops_nn._label_crossentropy(labels, y_pred, from_logits, axis % y_pred.ndim)
    if valid is not None:
        values = jnp.where(valid, values, 0.0)
    return values, valid


def _smooth_binary(y_true, label_smoothing):
    return y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Mean over ``axis`` of the crossentropy of 0/1 labels and probabilities (or logits)."""
    y_true, y_pred = _aligned(y_true, y_pred)
    if label_smoothing:
        y_true = _smooth_binary(y_true, label_smoothing)
    return jnp.mean(ops_nn.binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=axis)


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25,
                              gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary crossentropy scaled by ``(1 - p_t) ** gamma`` (and ``alpha`` balancing)."""
    y_true, y_pred = _aligned(y_true, y_pred)
    if label_smoothing:
        y_true = _smooth_binary(y_true, label_smoothing)
    if from_logits:
        y_pred = jax.nn.sigmoid(y_pred)
    bce = ops_nn.binary_crossentropy(y_true, y_pred)
    p_t = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
    focal = jnp.power(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * focal
    return jnp.mean(focal, axis=axis)


def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False,
                                   label_smoothing=0.0, axis=-1):
    """Categorical crossentropy scaled by ``alpha * (1 - p) ** gamma`` per class."""
    y_true, y_pred = _aligned(y_true, y_pred)
    if label_smoothing:
        y_true = optax.smooth_labels(y_true, label_smoothing, axis=axis)
    if from_logits:
        y_pred = jax.nn.softmax(y_pred, axis=axis)
    output = y_pred / jnp.sum(y_pred, axis=axis, keepdims=True)
    output = jnp.clip(output, epsilon(), 1.0 - epsilon())
    focal = alpha * jnp.power(1.0 - output, gamma) * (-y_true * jnp.log(output))
    return jnp.sum(focal, axis=axis)


def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """``(1 - p_true ** q) / q`` for integer labels: between crossentropy (q -> 0) and
    MAE (q = 1), robust to noisy labels."""
    y_pred = as_float(y_pred)
    labels = jnp.asarray(y_true).astype(jnp.int32)
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = labels[..., 0]
    p = jnp.sum(y_pred * jax.nn.one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype), axis=-1)
    return (1.0 - jnp.power(p, q)) / q


def dice(y_true, y_pred, axis=None):
    """``1 - 2 |y_true * y_pred| / (|y_true| + |y_pred|)``, summed over ``axis`` (None: all)."""
    y_pred = as_float(y_pred)
    y_true = jnp.asarray(y_true).astype(y_pred.dtype)
    intersection = jnp.sum(y_true * y_pred, axis=axis)
    total = jnp.sum(y_true, axis=axis) + jnp.sum(y_pred, axis=axis) + epsilon()
    return 1.0 - 2.0 * intersection / total


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """``1 - TP / (TP + alpha FP + beta FN)`` with soft counts over ``axis`` (None: all)."""
    y_pred = as_float(y_pred)
    y_true = jnp.asarray(y_true).astype(y_pred.dtype)
    intersection = jnp.sum(y_true * y_pred, axis=axis)
    fp = jnp.sum((1 - y_pred) * y_true, axis=axis)
    fn = jnp.sum(y_pred * (1 - y_true), axis=axis)
    return 1.0 - intersection / (intersection + fp * alpha + fn * beta + epsilon())


def circle_and_mask(y_true, y_pred, ref_labels=None, ref_embeddings=None,
                    remove_diagonal=True, gamma=80.0, margin=0.4):
    """``(values, mask)`` of the Circle loss of L2-normalised embeddings ``y_pred`` with
    integer labels ``y_true`` against references (default: the batch itself); the mask
    marks the samples whose loss is positive (Keras averages over those only)."""
    y_pred = as_float(y_pred)
    labels = jnp.asarray(y_true).astype(jnp.int32).reshape(-1)
    refs = y_pred if ref_embeddings is None else as_float(ref_embeddings)
    ref_labels = labels if ref_labels is None else jnp.asarray(ref_labels).astype(
        jnp.int32).reshape(-1)
    distances = jnp.maximum(1.0 - y_pred @ refs.T, 0.0)
    same = labels[:, None] == ref_labels[None, :]
    positive, negative = same, ~same
    if remove_diagonal:
        positive = positive & ~jnp.eye(labels.shape[0], ref_labels.shape[0], dtype=bool)
    pos_weights = jnp.maximum((margin + distances) * positive, 0.0)
    neg_weights = jnp.maximum((1 + margin - distances) * negative, 0.0)
    pos_terms = -gamma * pos_weights * (margin - distances)
    neg_terms = gamma * neg_weights * ((1 - margin) - distances)
    p_loss = jax.nn.logsumexp(jnp.where(positive, pos_terms, -jnp.inf), axis=1)
    n_loss = jax.nn.logsumexp(jnp.where(negative, neg_terms, -jnp.inf), axis=1)
    values = jax.nn.softplus(p_loss + n_loss)
    return values, values > 0


def circle(y_true, y_pred, ref_labels=None, ref_embeddings=None, remove_diagonal=True,
           gamma=80.0, margin=0.4):
    """The Circle loss per sample (see ``circle_and_mask``)."""
    return circle_and_mask(y_true, y_pred, ref_labels, ref_embeddings, remove_diagonal,
                           gamma, margin)[0]


def ctc(y_true, y_pred):
    """Connectionist temporal classification loss of label sequences ``(batch, max_len)``
    (0 is padding and the blank) against logits ``(batch, time, classes)`` (optax's)."""
    y_pred = as_float(y_pred)
    labels = jnp.asarray(y_true)
    if labels.ndim != 2:
        raise ValueError("Targets `y_true` are expected to be a tensor of shape "
                         f"`(batch_size, max_length)` in integer format. Received: "
                         f"y_true.shape={tuple(labels.shape)}")
    if y_pred.ndim != 3:
        raise ValueError("Logits `y_pred` are expected to be a tensor of shape "
                         f"`(batch_size, max_length, num_classes)`. Received: "
                         f"y_pred.shape={tuple(y_pred.shape)}")
    labels = labels.astype(jnp.int32)
    logit_paddings = jnp.zeros(y_pred.shape[:2], y_pred.dtype)
    label_paddings = (labels == 0).astype(y_pred.dtype)
    return optax.ctc_loss(y_pred, logit_paddings, labels, label_paddings, blank_id=0)
