"""Keras's reduction metrics: ``Mean``, ``Sum`` and ``MeanMetricWrapper`` (the weighted mean
of a function of ``y_true`` and ``y_pred``), with the weighting every metric shares.

>>> import jax, jax.numpy as jnp
>>> mean = Mean()
>>> state = mean.update(mean.init(), jnp.array([1.0, 2.0, 3.0]))
>>> state = jax.jit(mean.update)(state, jnp.array([10.0, 0.0]), jnp.array([1.0, 0.0]))
>>> float(mean.result(state))
4.0
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from kgraph.base.naming import to_snake_case
from kgraph.losses.weighting import (broadcast_to_values, divide_no_nan, trailing_product,
                                     weighted)
from kgraph.metrics.metric import Metric

__all__ = ["Mean", "MeanMetricWrapper", "Sum", "mean_totals", "merge_weights"]


def _float32(x):
    return jnp.asarray(x).astype(jnp.float32)


def merge_weights(sample_weight, mask):
    """One float32 weight from a sample weight and a mask (either may be None).

    The lower-rank one gets trailing axes, so a ``(batch,)`` weight and a
    ``(batch, time)`` mask give ``(batch, time)``.
    """
    if mask is not None:
        mask = (jnp.asarray(mask) != 0).astype(jnp.float32)
    if sample_weight is None or mask is None:
        return mask if sample_weight is None else _float32(sample_weight)
    sample_weight = _float32(sample_weight)
    return trailing_product(sample_weight, mask)


@functools.partial(jax.jit, static_argnames="reduce")
def mean_totals(values, weight=None, reduce=jnp.mean):
    """``(total, count)`` of one batch for a weighted mean, as Keras's ``Mean`` counts them.

    Values are reduced to one per sample (``reduce`` over the non-batch axes) and weighed;
    the count is the number of samples, or the sum of per-sample (mean) weights.
    """
    values = _float32(values)
    if values.ndim == 0 and weight is not None and jnp.ndim(weight) > 0:
        # one value for the whole batch counts once, weighed by the mean of its nonzero
        # weights (a padded batch's 0/1 row mask: as the unpadded batch, a count of 1)
        weight = _float32(weight)
        scale = divide_no_nan(jnp.sum(weight), jnp.sum(weight != 0).astype(jnp.float32))
        return values * scale, scale
    if values.ndim == 0:
        values = values.reshape(1)
    trailing = tuple(range(1, values.ndim))
    if weight is None:
        per_sample = reduce(values, axis=trailing) if trailing else values
        return jnp.sum(per_sample), jnp.asarray(values.shape[0], jnp.float32)
    weight = broadcast_to_values(_float32(weight), values)
    products = weighted(values, weight)
    if trailing:
        products, weight = reduce(products, axis=trailing), jnp.mean(weight, axis=trailing)
    return jnp.sum(products), jnp.sum(weight)



def _zeros(*names, shape=()):
    return {n: jnp.zeros(shape, jnp.float32) for n in names}


class Mean(Metric):
    """The (weighted) mean of ``values``: ``update(state, values, sample_weight=None)``.

    >>> import jax.numpy as jnp
    >>> float(Mean()(jnp.array([[1.0, 3.0], [5.0, 7.0]]), jnp.array([1.0, 0.0])))
    2.0
    """

    _variable_order = ("total", "count")

    def __init__(self, name="mean", dtype=None):
        super().__init__(name, dtype)

    def init(self):
        return _zeros("total", "count")

    def update(self, state, values, sample_weight=None, mask=None):
        total, count = mean_totals(values, merge_weights(sample_weight, mask))
        return {"total": state["total"] + total, "count": state["count"] + count}

    def result(self, state):
        return divide_no_nan(state["total"], state["count"])


class Sum(Metric):
    """The (weighted) sum of ``values``: ``update(state, values, sample_weight=None)``.

    >>> import jax.numpy as jnp
    >>> float(Sum()(jnp.array([1.0, 3.0]), jnp.array([2.0, 1.0])))
    5.0
    """

    def __init__(self, name="sum", dtype=None):
        super().__init__(name, dtype)

    def init(self):
        return _zeros("total")

    def update(self, state, values, sample_weight=None, mask=None):
        values = _float32(values)
        weight = merge_weights(sample_weight, mask)
        if weight is not None:
            values = weighted(values, broadcast_to_values(weight, values))
        return {"total": state["total"] + jnp.sum(values)}

    def result(self, state):
        return state["total"]


class MeanMetricWrapper(Mean):
    """The weighted mean of ``fn(y_true, y_pred, **fn_kwargs)`` over all samples seen.

    >>> import jax.numpy as jnp
    >>> def abs_error(y_true, y_pred):
    ...     return jnp.abs(y_true - y_pred).mean(axis=-1)
    >>> metric = MeanMetricWrapper(abs_error)
    >>> metric.name, float(metric(jnp.zeros((2, 2)), jnp.array([[1.0, 1.0], [3.0, 3.0]])))
    ('abs_error', 2.0)
    """

    def __init__(self, fn, name=None, dtype=None, **fn_kwargs):
        super().__init__(name=name or getattr(fn, "__name__", None) or to_snake_case(
            type(fn).__name__), dtype=dtype)
        self.fn = fn
        self._fn_kwargs = fn_kwargs

    def values_and_mask(self, y_true, y_pred):
        """``(values, mask)``: the per-sample values and their own mask (None: all valid)."""
        return self.fn(y_true, y_pred, **self._fn_kwargs), None

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        values, own_mask = self.values_and_mask(y_true, y_pred)
        if own_mask is not None:
            mask = own_mask if mask is None else merge_weights(jnp.asarray(mask) != 0, own_mask)
        return super().update(state, values, sample_weight, mask)

    def get_config(self) -> dict:
        config = {"name": self.name, "dtype": self.dtype, **self._fn_kwargs}
        if type(self) is MeanMetricWrapper:
            config["fn"] = self.fn
        return config
