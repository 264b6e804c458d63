"""Keras's correlation metrics: the Pearson and concordance correlation coefficients of each
sample along ``axis``, averaged over the samples seen.

>>> import jax.numpy as jnp
>>> y_true = jnp.array([[0.0, 1.0, 0.5], [1.0, 1.0, 0.2]])
>>> y_pred = jnp.array([[0.1, 0.9, 0.5], [1.0, 0.9, 0.2]])
>>> [round(float(v), 4) for v in concordance_correlation(y_true, y_pred)]
[0.9756, 0.9877]
>>> round(float(PearsonCorrelation()(y_true, y_pred)), 4)
0.9967
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph.config import epsilon
from kgraph.losses.functions import _aligned
from kgraph.metrics.reduction_metrics import MeanMetricWrapper

__all__ = ["ConcordanceCorrelation", "PearsonCorrelation", "concordance_correlation",
           "pearson_correlation"]


def pearson_correlation(y_true, y_pred, axis=-1):
    """Pearson's correlation coefficient of ``y_true`` and ``y_pred`` along ``axis``."""
    y_true, y_pred = _aligned(y_true, y_pred)
    true = y_true - jnp.mean(y_true, axis=axis, keepdims=True)
    pred = y_pred - jnp.mean(y_pred, axis=axis, keepdims=True)
    true = true / jnp.std(true, axis=axis, keepdims=True)
    pred = pred / jnp.std(pred, axis=axis, keepdims=True)
    return jnp.mean(true * pred, axis=axis)


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation coefficient along ``axis``, with Keras's numbers: its
    covariance term centres ``y_true`` on the mean of ``y_pred``, and ``epsilon`` is added
    to the denominator."""
    y_true, y_pred = _aligned(y_true, y_pred)
    true_mean = jnp.mean(y_true, axis=axis, keepdims=True)
    pred_mean = jnp.mean(y_pred, axis=axis, keepdims=True)
    true_var = jnp.var(y_true - true_mean, axis=axis, keepdims=True)
    pred_var = jnp.var(y_pred - pred_mean, axis=axis, keepdims=True)
    covariance = (y_true - pred_mean) * (y_pred - pred_mean)
    norm = true_var + pred_var + jnp.square(true_mean - pred_mean)
    return jnp.mean(2 * covariance / (norm + epsilon()), axis=axis)


class PearsonCorrelation(MeanMetricWrapper):
    """The mean over samples of Pearson's correlation coefficient along ``axis``."""

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(pearson_correlation, name=name, dtype=dtype, axis=axis)


class ConcordanceCorrelation(MeanMetricWrapper):
    """The mean over samples of the concordance correlation coefficient along ``axis``."""

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(concordance_correlation, name=name, dtype=dtype, axis=axis)
