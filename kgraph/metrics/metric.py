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

from kgraph import dtype_policies
from kgraph.base import call_args
from kgraph.base.naming import to_snake_case
from kgraph.base.state_arrays import StateArray
from kgraph.base.variables import Variable
from kgraph.losses.weighting import (broadcast_to_values, divide_no_nan, trailing_product,
                                     weighted)

__all__ = ["Mean", "MeanMetricWrapper", "Metric", "Sum", "mean_totals", "merge_weights",
           "state_dtype"]


def _float32(x):
    return jnp.asarray(x).astype(jnp.float32)


def state_dtype(name, dtype) -> str:
    """A metric's ``dtype`` argument: None (whatever ``floatx()`` is) and float32 (or a
    policy computing in it) are what kgraph's float32 states hold; another dtype is
    refused, not ignored."""
    if dtype is None:
        return "float32"
    resolved = dtype_policies.get(dtype).compute_dtype
    if resolved != "float32":
        raise ValueError(f'Metric "{name}": dtype={dtype!r} is not supported; kgraph\'s '
                         "metrics keep float32 states and results (dtype=None or "
                         "'float32').")
    return resolved


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

    def __init__(self, name=None, dtype=None):
        self.name = name or to_snake_case(type(self).__name__)
        state_dtype(self.name, dtype)  # float32 (``dtype``), or an error

    def init(self):
        raise NotImplementedError(f"{type(self).__name__} must implement init().")

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        raise NotImplementedError(f"{type(self).__name__} must implement update(...).")

    def result(self, state):
        raise NotImplementedError(f"{type(self).__name__} must implement result(state).")

    # Keras's object API, on the stateless core: the object keeps a current state.
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        own_result = cls.__dict__.get("result")
        if "update_state" in cls.__dict__ and not getattr(cls, "_by_update_state", False):
            # Keras's stateful style: update_state (and result()) on the metric's
            # variables, run purely on a state (see ``_update_by_update_state``)
            cls._by_update_state = True
            cls._pure = {name: _inherited(cls, name) for name in ("init", "update", "result")}
            cls.init, cls.update = _init_by_update_state, _update_by_update_state
            cls.result = _result_by_update_state
        if own_result is None:
            return
        if getattr(cls, "_by_update_state", False):
            cls._own_result = own_result
            cls.result = _result_by_update_state
        else:
            cls.result = _result_with_default_state(own_result)

    def _current(self):
        state = self.__dict__.get("_keras_state")
        return self.init() if state is None else state

    def _size_from(self, y_pred):
        """Metrics whose state depends on the number of classes size it here."""

    def update_state(self, *args, **kwargs):
        """Add a batch to the metric's own state (Keras's stateful update)."""
        if len(args) >= 2:
            self._size_from(args[1])
        if getattr(self, "_by_update_state", False):  # a subclass's update_state called this
            inner, values = self._current()
            self._keras_state = (self._pure["update"](self, inner, *args, **kwargs), values)
            return
        self._keras_state = self.update(self._current(), *args, **kwargs)

    def reset_state(self):
        """Forget every batch seen by ``update_state``."""
        self._keras_state = None

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="sum",
                     name=None):
        """A state variable, as Keras's ``Metric.add_variable``: ``update_state`` changes it
        with ``assign`` / ``assign_add``, ``result()`` reads it. Its value lives in the
        metric's state, so training updates it inside the compiled step.

        >>> class Count(Metric):
        ...     def __init__(self):
        ...         super().__init__(name="count")
        ...         self.seen = self.add_variable((), name="seen")
        ...     def update_state(self, y_true, y_pred, sample_weight=None):
        ...         self.seen.assign_add(float(len(y_true)))
        ...     def result(self):
        ...         return self.seen.value
        >>> count = Count()
        >>> count.update_state([1, 2], [1, 2]); count.update_state([3], [3])
        >>> float(count.result())
        3.0
        """
        variable = Variable(initializer if initializer is not None else "zeros",
                            shape=shape, dtype=dtype or self.dtype, trainable=False,
                            aggregation=aggregation, name=name or "variable")
        variables = self.__dict__.setdefault("_metric_variables", [])
        variable._metric_index = len(variables)
        variables.append(variable)
        variable.bind_view(self)  # reads and writes go to the metric's state
        self.__dict__.pop("_keras_state", None)
        return variable

    def add_weight(self, shape=(), initializer=None, dtype=None, name=None):
        """Keras's older name of ``add_variable``."""
        return self.add_variable(shape, initializer, dtype, name=name)

    def read_variable(self, variable):
        return self._current()[1][variable._metric_index]

    def write_variable(self, variable, value) -> None:
        inner, values = self._current()
        index = variable._metric_index
        self._keras_state = (inner, (*values[:index], value, *values[index + 1:]))

    @property
    def variables(self) -> list:
        """The current state's arrays, in a fixed order (``len`` slices Keras states); a
        metric's own ``add_variable`` variables first."""
        own = list(self.__dict__.get("_metric_variables", ()))
        state = self._current()[0] if getattr(self, "_by_update_state", False) else \
            self._current()
        return own + [StateArray(v, f"{self.name}/{i}")
                      for i, v in enumerate(jax.tree_util.tree_leaves(state), len(own))]

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
        """The dtype of the metric's state and result: float32."""
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


def _inherited(cls, name):
    return next(base.__dict__[name] for base in cls.__mro__[1:] if name in base.__dict__)


def _init_by_update_state(self):
    """The state of a metric written in Keras's stateful style: ``(the state of the
    metric it extends, or None; its variables' initial values)``."""
    pure_init = self._pure["init"]
    inner = None if pure_init is Metric.init else pure_init(self)
    key = jax.random.PRNGKey(0)
    return inner, tuple(v.initial_value(key) for v in self.__dict__.get("_metric_variables", ()))


def _update_by_update_state(self, state, *args, mask=None, **kwargs):
    """``update`` of a Keras-style metric: its own ``update_state`` run on ``state`` (its
    variables read and assign the state), which is pure, so it runs inside ``jit``. A
    ``mask`` reaches ``update_state`` only if it takes one (as Keras's compiled metrics)."""
    if mask is not None and call_args.accepts(type(self).update_state, "mask"):
        kwargs["mask"] = mask
    saved = self.__dict__.get("_keras_state")
    self._keras_state = state
    try:
        self.update_state(*args, **kwargs)
        return self._keras_state
    finally:
        self._keras_state = saved


def _result_by_update_state(self, state=None):
    """``result`` of a Keras-style metric on ``state`` (None: its own): its ``result()``
    reading the state through its variables, or the extended metric's ``result``."""
    saved = self.__dict__.get("_keras_state")
    if state is not None:
        self._keras_state = state
    try:
        own = getattr(type(self), "_own_result", None)
        if own is None or call_args.accepts(own, "state"):
            return (own or self._pure["result"])(self, self._current()[0])
        return own(self)
    finally:
        self._keras_state = saved


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
        config = {"name": self.name, **self._fn_kwargs}
        if type(self) is MeanMetricWrapper:
            config["fn"] = self.fn
        return config
