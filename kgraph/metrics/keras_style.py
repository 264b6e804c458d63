"""How a ``Metric`` subclass's methods are completed when the class is made.

A metric written on kgraph's pure core (``init`` / ``update`` / ``result``) keeps its
state and result in its ``dtype``: its ``init`` makes the state's floating arrays in it,
its ``update`` keeps each array's dtype, and its ``result`` (callable as ``result()`` on
the metric's own state) gives a floating result in it.

A metric written in Keras's stateful style (its own ``update_state``, variables made with
``add_variable`` or set as attributes, other metrics set as attributes) runs purely on a
state too: ``(inner, values, sub_states)``, the state of the kgraph metric it extends (or
None), its variables' values, and the states of its sub-metrics. ``update(state, ...)``
runs its ``update_state`` with its variables reading and writing ``state``, so it runs
inside ``jit``; ``result(state)`` runs its ``result()`` likewise.

>>> import kgraph as kg, jax.numpy as jnp
>>> class Total(kg.metrics.Metric):
...     def __init__(self):
...         super().__init__(name="total")
...         self.seen = self.add_variable((), name="seen")
...         self.mean = kg.metrics.Mean()
...     def update_state(self, values):
...         self.seen.assign_add(kg.ops.sum(values))
...         self.mean.update_state(values)
...     def result(self):
...         return self.seen.value + self.mean.result()
>>> total = Total()
>>> state = total.update(total.init(), jnp.array([1.0, 3.0]))
>>> float(total.result(state)), float(total.result()), [v.name for v in total.variables]
(6.0, 0.0, ['seen', 'total', 'count'])
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from kgraph.base import call_args
from kgraph.base.state_variable import StateVariable
from kgraph.base.variables import Variable

__all__ = ["current_state", "in_dtype", "prepare_class", "read_variable", "register_variable",
           "restore_states", "saved_states", "set_state", "track", "update_inner",
           "variables", "write_variable"]


def in_dtype(tree, dtype):
    """The floating arrays of ``tree`` cast to ``dtype`` (a dict keeps its key order)."""
    if isinstance(tree, dict):
        return {key: in_dtype(value, dtype) for key, value in tree.items()}

    def cast(leaf):
        leaf = jnp.asarray(leaf)
        return leaf.astype(dtype) if jnp.issubdtype(leaf.dtype, jnp.floating) else leaf

    return jax.tree_util.tree_map(cast, tree)


def prepare_class(cls, base) -> None:
    """Complete the methods of ``cls``, a subclass of ``base`` (``Metric``)."""
    own_result = cls.__dict__.get("result")
    if "update_state" in cls.__dict__ and not getattr(cls, "_by_update_state", False):
        cls._by_update_state = True
        cls._pure = {name: _inherited(cls, name, base) for name in ("init", "update", "result")}
        cls.init, cls.update, cls.result = _init, _update, _result
    if getattr(cls, "_by_update_state", False):
        if own_result is not None:
            cls._own_result = own_result
            cls.result = _result
        return
    if "init" in cls.__dict__:
        cls.init = _init_in_dtype(cls.__dict__["init"])
    if "update" in cls.__dict__:
        cls.update = _update_keeping_dtypes(cls.__dict__["update"])
    if own_result is not None:
        cls.result = _result_in_dtype(own_result)


def _inherited(cls, name, base):
    function = next(b.__dict__[name] for b in cls.__mro__[1:] if name in b.__dict__)
    return None if name == "init" and function is base.__dict__["init"] else function


def _init_in_dtype(init):
    @functools.wraps(init)
    def wrapped(self):
        return in_dtype(init(self), self.dtype)

    return wrapped


def _update_keeping_dtypes(update):
    @functools.wraps(update)
    def wrapped(self, state, *args, **kwargs):
        new = update(self, state, *args, **kwargs)
        return jax.tree_util.tree_map(
            lambda leaf, old: jnp.asarray(leaf).astype(jnp.result_type(old)), new, state)

    return wrapped


def _result_in_dtype(result):
    """``result(state)`` that, called as ``result()``, reads the metric's own state."""
    @functools.wraps(result)
    def wrapped(self, state=None):
        if state is None:  # its own (within a Keras-style subclass: the inner state)
            state = self._current()
            state = state[0] if getattr(type(self), "_by_update_state", False) else state
        value = result(self, state)
        return in_dtype(value, self.dtype) if jnp.issubdtype(self.dtype, jnp.floating) \
            else value

    return wrapped


# ------------------------------------------------------------ Keras's stateful style
def _sub_metrics(metric) -> list:
    return metric.__dict__.get("_sub_metrics", [])


def _own_variables(metric) -> list:
    return metric.__dict__.get("_metric_variables", [])


def _init(self):
    pure_init = self._pure["init"]
    key = jax.random.PRNGKey(0)
    return (None if pure_init is None else pure_init(self),
            tuple(v.initial_value(key) for v in _own_variables(self)),
            tuple(m.init() for m in _sub_metrics(self)))


def current_state(metric):
    """``(inner, values, sub_states)`` of a Keras-style metric now."""
    raw = metric.__dict__.get("_keras_state")
    if raw is None:
        pure_init = metric._pure["init"]
        key = jax.random.PRNGKey(0)
        raw = (None if pure_init is None else pure_init(metric),
               tuple(v.initial_value(key) for v in _own_variables(metric)))
    return (*raw, tuple(m._current() for m in _sub_metrics(metric)))


def set_state(metric, state) -> None:
    inner, values, subs = state
    metric.__dict__["_keras_state"] = (inner, tuple(values))
    for sub, sub_state in zip(_sub_metrics(metric), subs):
        sub._set_state(sub_state)


def saved_states(metric) -> list:
    """What ``restore_states`` puts back: the stored state of ``metric`` and of its
    sub-metrics, at any depth."""
    saved = [(metric, metric.__dict__.get("_keras_state"))]
    for sub in _sub_metrics(metric):
        saved += saved_states(sub)
    return saved


def restore_states(saved) -> None:
    for metric, raw in saved:
        metric.__dict__["_keras_state"] = raw


def _update(self, state, *args, mask=None, **kwargs):
    """``update`` of a Keras-style metric: its ``update_state`` run on ``state``. A ``mask``
    reaches ``update_state`` only if it takes one (as Keras's compiled metrics)."""
    if mask is not None and call_args.accepts(type(self).update_state, "mask"):
        kwargs["mask"] = mask
    with self._holding(state):
        self.update_state(*args, **kwargs)
        return self._current()


def update_inner(metric, *args, **kwargs) -> None:
    """The extended kgraph metric's update of the inner state (``super().update_state``
    in a Keras-style subclass)."""
    inner, values, _ = metric._current()
    metric.__dict__["_keras_state"] = (metric._pure["update"](metric, inner, *args, **kwargs),
                                       values)


def _result(self, state=None):
    """``result`` of a Keras-style metric on ``state`` (None: its own): its ``result()``
    reading the state through its variables, or the extended metric's ``result``."""
    def compute():
        own = getattr(type(self), "_own_result", None)
        if own is None or call_args.accepts(own, "state"):
            return (own or self._pure["result"])(self, self._current()[0])
        return own(self)

    if state is None:
        return compute()
    with self._holding(state):
        return compute()


def read_variable(metric, variable):
    return metric._current()[1][variable._metric_index]


def write_variable(metric, variable, value) -> None:
    inner, values, _ = metric._current()
    index = variable._metric_index
    metric.__dict__["_keras_state"] = (inner, (*values[:index], value, *values[index + 1:]))


def register_variable(metric, variable) -> None:
    """Make ``variable`` one of ``metric``'s: its value lives in the metric's state."""
    variables = metric.__dict__.setdefault("_metric_variables", [])
    if any(v is variable for v in variables):
        return
    variable._metric_index = len(variables)
    variables.append(variable)
    variable.bind_view(metric)  # reads and writes go to the metric's state
    metric.__dict__.pop("_keras_state", None)


def track(metric, value, metric_class) -> None:
    """Keras's tracking of attributes: ``Variable``s and metrics in ``value`` (also inside
    lists, tuples and dicts) become the metric's variables and sub-metrics."""
    if isinstance(value, (list, tuple)):
        for item in value:
            track(metric, item, metric_class)
    elif isinstance(value, dict):
        for item in value.values():
            track(metric, item, metric_class)
    elif isinstance(value, Variable) and not isinstance(value, StateVariable) and \
            value._view in (None, metric):
        register_variable(metric, value)
    elif isinstance(value, metric_class) and value is not metric:
        subs = metric.__dict__.setdefault("_sub_metrics", [])
        if not any(m is value for m in subs):
            subs.append(value)


def variables(metric, state_views) -> list:
    """Keras's ``variables`` of a Keras-style metric: the extended metric's, its own, then
    each sub-metric's."""
    inner = metric._current()[0]

    def write_inner(new):
        _, values, _ = metric._current()
        metric.__dict__["_keras_state"] = (new, values)

    views = [] if inner is None else state_views(inner, lambda: metric._current()[0],
                                                  write_inner)
    return views + list(_own_variables(metric)) + [
        v for sub in _sub_metrics(metric) for v in sub.variables]
