"""Stateless metrics: ``init -> update* -> result``, with states as pytrees of arrays.

A metric object holds only its configuration. Its state is a dict of fixed-shape float32
arrays, so ``update`` and ``result`` run under ``jax.jit`` and inside ``jax.lax.scan``, and
``merge`` combines states from shards or devices. Weights follow Keras: ``sample_weight``
weighs samples (0 for padding rows, so a padded batch gives the unpadded result), and
``mask`` (an output's Keras mask) multiplies into it.

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
from kgraph.base.state_arrays import StateArray
from kgraph.losses.weighting import broadcast_to_values, divide_no_nan, weighted

__all__ = ["Mean", "MeanMetricWrapper", "Metric", "Sum", "mean_totals", "merge_weights"]


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
    rank = max(sample_weight.ndim, mask.ndim)
    expand = lambda w: w.reshape(w.shape + (1,) * (rank - w.ndim))  # noqa: E731
    return expand(sample_weight) * expand(mask)


@functools.partial(jax.jit, static_argnames="reduce")
def mean_totals(values, weight=None, reduce=jnp.mean):
    """``(total, count)`` of one batch for a weighted mean, as Keras's ``Mean`` counts them.

    Values are reduced to one per sample (``reduce`` over the non-batch axes) and weighed;
    the count is the number of samples, or the sum of per-sample (mean) weights.
    """
    values = _float32(values)
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


class Metric:
    """Base class of stateless metrics.

    Subclasses implement ``init() -> state``, ``update(state, y_true, y_pred,
    sample_weight=None, mask=None) -> state`` (pure) and ``result(state) -> array``;
    ``merge`` adds states leaf by leaf, which suits every metric here (sums and counts).
    """

    def __init__(self, name=None):
        self.name = name or to_snake_case(type(self).__name__)

    def init(self):
        raise NotImplementedError(f"{type(self).__name__} must implement init().")

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        raise NotImplementedError(f"{type(self).__name__} must implement update(...).")

    def result(self, state):
        raise NotImplementedError(f"{type(self).__name__} must implement result(state).")

    # Keras's object API, on the stateless core: the object keeps a current state.
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "result" in cls.__dict__:
            cls.result = _result_with_default_state(cls.__dict__["result"])

    def _current(self):
        state = self.__dict__.get("_keras_state")
        return self.init() if state is None else state

    def _size_from(self, y_pred):
        """Metrics whose state depends on the number of classes size it here."""

    def update_state(self, *args, **kwargs):
        """Add a batch to the metric's own state (Keras's stateful update)."""
        if len(args) >= 2:
            self._size_from(args[1])
        self._keras_state = self.update(self._current(), *args, **kwargs)

    def reset_state(self):
        """Forget every batch seen by ``update_state``."""
        self._keras_state = None

    @property
    def variables(self) -> list:
        """The current state's arrays, in a fixed order (``len`` slices Keras states)."""
        return [StateArray(v, f"{self.name}/{i}")
                for i, v in enumerate(jax.tree_util.tree_leaves(self._current()))]

    def stateless_update_state(self, metric_variables, *args, **kwargs):
        """``update`` on a list of state arrays; returns the new list (jittable)."""
        treedef = jax.tree_util.tree_structure(self.init())
        state = jax.tree_util.tree_unflatten(treedef, [getattr(v, "value", v)
                                                        for v in metric_variables])
        return jax.tree_util.tree_leaves(self.update(state, *args, **kwargs))

    def stateless_result(self, metric_variables):
        """``result`` of a list of state arrays."""
        treedef = jax.tree_util.tree_structure(self.init())
        return self.result(jax.tree_util.tree_unflatten(
            treedef, [getattr(v, "value", v) for v in metric_variables]))

    def stateless_reset_state(self) -> list:
        """A fresh state as a list of arrays."""
        return jax.tree_util.tree_leaves(self.init())

    @property
    def dtype(self) -> str:
        return "float32"

    def merge(self, a, b):
        """The state of the union of the batches behind states ``a`` and ``b``."""
        return jax.tree_util.tree_map(jnp.add, a, b)

    def __call__(self, *args, **kwargs):
        """The result on one batch: ``result(update(init(), ...))``."""
        return self.result(self.update(self.init(), *args, **kwargs))

    def get_config(self) -> dict:
        return {"name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items() if k != "fn")
        return f"{type(self).__name__}({args})"


def _result_with_default_state(result):
    """``result(state)`` that, called as ``result()``, reads the object's own state."""
    @functools.wraps(result)
    def wrapped(self, state=None):
        return result(self, self._current() if state is None else state)

    return wrapped


def _zeros(*names, shape=()):
    return {n: jnp.zeros(shape, jnp.float32) for n in names}


class Mean(Metric):
    """The (weighted) mean of ``values``: ``update(state, values, sample_weight=None)``.

    >>> import jax.numpy as jnp
    >>> float(Mean()(jnp.array([[1.0, 3.0], [5.0, 7.0]]), jnp.array([1.0, 0.0])))
    2.0
    """

    def __init__(self, name="mean"):
        super().__init__(name)

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

    def __init__(self, name="sum"):
        super().__init__(name)

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

    def __init__(self, fn, name=None, **fn_kwargs):
        super().__init__(name=name or getattr(fn, "__name__", None) or to_snake_case(
            type(fn).__name__))
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
        config = {"name": self.name, **self._fn_kwargs}
        if type(self) is MeanMetricWrapper:
            config["fn"] = self.fn
        return config
