"""Stateless metrics: ``init -> update* -> result``, with states as pytrees of arrays.

A metric object holds its configuration, and answers Keras's stateful API on a current
state of its own. Its state is a dict of fixed-shape arrays in the metric's ``dtype``
(``floatx()`` unless given), so ``update`` and ``result`` run under ``jax.jit`` and inside
``jax.lax.scan``, and ``merge`` combines states from shards or devices. Weights follow
Keras: ``sample_weight`` weighs samples (0 for padding rows, so a padded batch gives the
unpadded result), and ``mask`` (an output's Keras mask) multiplies into it.

>>> import jax, jax.numpy as jnp
>>> from kgraph.metrics.reduction_metrics import Mean
>>> mean = Mean()
>>> state = mean.update(mean.init(), jnp.array([1.0, 2.0, 3.0]))
>>> state = jax.jit(mean.update)(state, jnp.array([10.0, 0.0]), jnp.array([1.0, 0.0]))
>>> float(mean.result(state))
4.0
"""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp

from kgraph import config, dtype_policies
from kgraph.base.naming import to_snake_case
from kgraph.base.state_variable import StateVariable
from kgraph.base.variables import Variable
from kgraph.metrics import keras_style
from kgraph.metrics.metric_variables import leaf_names, state_from_leaves, state_leaves

__all__ = ["Metric"]


class Metric:
    """Base class of stateless metrics.

    Subclasses implement ``init() -> state``, ``update(state, y_true, y_pred,
    sample_weight=None, mask=None) -> state`` (pure) and ``result(state) -> array``;
    ``merge`` adds states leaf by leaf, which suits every metric here (sums and counts).
    States and results are in the metric's ``dtype``, as Keras's variables and results.

    A subclass may instead be written in Keras's stateful style: variables made with
    ``add_variable`` (or ``Variable``s and metrics set as attributes), changed by its own
    ``update_state`` and read by ``result()``; it then runs purely on a state too.
    """

    # the names of the state's dict entries in Keras's order of the metric's variables
    _variable_order = ()
    # Keras's names of the variables whose state entry is named otherwise (the entry's
    # name is the attribute Keras holds the variable in)
    _variable_names = {}

    def __init__(self, name=None, dtype=None):
        self.name = name or to_snake_case(type(self).__name__)
        self._dtype_policy = dtype_policies.get(dtype or config.floatx())
        self._dtype = jnp.dtype(self._dtype_policy.compute_dtype).name

    def init(self):
        raise NotImplementedError(f"{type(self).__name__} must implement init().")

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        raise NotImplementedError(f"{type(self).__name__} must implement update(...).")

    def result(self, state):
        raise NotImplementedError(f"{type(self).__name__} must implement result(state).")

    # Keras's object API, on the stateless core: the object keeps a current state.
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        keras_style.prepare_class(cls, Metric)

    def __setattr__(self, name, value):
        if getattr(type(self), "_by_update_state", False):
            object.__setattr__(self, name, value)
            if not name.startswith("_"):
                keras_style.track(self, value, Metric)
        elif not (isinstance(value, Variable) and self._set_entry(name, value)):
            object.__setattr__(self, name, value)

    def _set_entry(self, name, variable) -> bool:
        """Keras replaces a metric's variable by setting the attribute that holds it
        (``iou.total_cm = iou.add_variable(...)``): the state entry ``name`` continues from
        ``variable``'s value. False if the state has no such entry."""
        if isinstance(variable, StateVariable) or name.startswith("_"):
            return False
        try:
            state = self._current()
        except Exception:  # noqa: BLE001 - no state yet (not configured)
            return False
        if not isinstance(state, dict) or name not in state:
            return False
        value = jnp.asarray(variable.value, jnp.result_type(state[name]))
        if value.shape != jnp.shape(state[name]):
            raise ValueError(f"Metric {self.name!r}: its variable {name!r} has shape "
                             f"{jnp.shape(state[name])}; received a variable of shape "
                             f"{value.shape}.")
        self._set_state({**state, name: value})
        return True

    def _current(self):
        """The metric's current state (a fresh one if it has seen nothing)."""
        if getattr(type(self), "_by_update_state", False):
            return keras_style.current_state(self)
        state = self.__dict__.get("_keras_state")
        return self.init() if state is None else state

    def _set_state(self, state) -> None:
        if getattr(type(self), "_by_update_state", False):
            keras_style.set_state(self, state)
        else:
            self.__dict__["_keras_state"] = state

    @contextlib.contextmanager
    def _holding(self, state=None):
        """Within the block, the metric's current state is ``state`` (None: the one it
        has); after it, what it was (a pure computation through the stateful API)."""
        saved = keras_style.saved_states(self)
        if state is not None:
            self._set_state(state)
        try:
            yield
        finally:
            keras_style.restore_states(saved)

    def _size_from(self, y_true, y_pred):
        """Metrics whose state depends on the number of classes size it here."""

    def update_state(self, *args, **kwargs):
        """Add a batch to the metric's own state (Keras's stateful update)."""
        if len(args) >= 2:
            self._size_from(args[0], args[1])
        if getattr(type(self), "_by_update_state", False):  # a subclass's update_state
            keras_style.update_inner(self, *args, **kwargs)
            return
        self._set_state(self.update(self._current(), *args, **kwargs))

    def reset_state(self):
        """Forget every batch seen by ``update_state``."""
        self.__dict__["_keras_state"] = None
        for metric in self.__dict__.get("_sub_metrics", ()):
            metric.reset_state()

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="sum",
                     name=None):
        """A state variable, as Keras's ``Metric.add_variable``: ``update_state`` changes it
        with ``assign`` / ``assign_add``, ``result()`` reads it. Its value lives in the
        metric's state, so training updates it inside the compiled step. Its dtype is
        ``floatx()`` unless given, as Keras's. (A metric on the pure core keeps its state
        entries instead; setting one's attribute to a variable continues it from the
        variable's value.)

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
                            shape=shape, dtype=dtype or config.floatx(), trainable=False,
                            aggregation=aggregation, name=name or "variable")
        variable._scope = self.name
        if getattr(type(self), "_by_update_state", False):
            keras_style.register_variable(self, variable)
        return variable

    def add_weight(self, shape=(), initializer=None, dtype=None, name=None):
        """Keras's older name of ``add_variable``."""
        return self.add_variable(shape, initializer, dtype, name=name)

    def read_variable(self, variable):
        return keras_style.read_variable(self, variable)

    def write_variable(self, variable, value) -> None:
        keras_style.write_variable(self, variable, value)

    def _state_leaves(self, state=None) -> list:
        """The arrays of ``state`` (default: the current one), in the order of
        ``variables``."""
        return state_leaves(self._current() if state is None else state, self._variable_order)

    def _state_from_leaves(self, leaves):
        """A state of this metric from arrays in the order of ``variables``."""
        return state_from_leaves(self._current(), [getattr(v, "value", v) for v in leaves],
                                 self._variable_order)

    @property
    def variables(self) -> list:
        """Keras's variables of the metric, in Keras's order and names: views of its
        current state (assigning one changes it)."""
        if getattr(type(self), "_by_update_state", False):
            return keras_style.variables(self, self._state_views)
        return self._state_views(self._current(), lambda: self._current(), self._set_state)

    def _state_views(self, state, read_state, write_state) -> list:
        """A ``Variable`` for each array of ``state``: reading it reads ``read_state()``,
        assigning it passes the new state to ``write_state``."""
        order = self._variable_order
        views = []
        for index, (key, leaf) in enumerate(zip(leaf_names(state, order),
                                                state_leaves(state, order))):
            def read(index=index):
                return state_leaves(read_state(), order)[index]

            def write(value, index=index):
                leaves = state_leaves(read_state(), order)
                leaves[index] = value
                write_state(state_from_leaves(read_state(), leaves, order))

            views.append(StateVariable(self._variable_names.get(key, key), jnp.shape(leaf),
                                       jnp.result_type(leaf), read, write, self.name))
        return views

    def __getattr__(self, name):
        # Keras's metrics hold their variables as attributes (``precision.true_positives``):
        # an entry of the state's top-level dict, as a view of the current state
        if name.startswith("_") or "_keras_state" in name:
            raise AttributeError(name)
        getting = self.__dict__.setdefault("_getting_attribute", set())
        if name in getting:
            raise AttributeError(name)
        getting.add(name)
        try:
            state = self._current()
        except Exception:  # noqa: BLE001 - no state yet: not an attribute
            state = None
        finally:
            getting.discard(name)
        if isinstance(state, dict) and name in state:
            keys = leaf_names(state, self._variable_order)
            if keys.count(name) == 1:
                return self._state_views(state, self._current, self._set_state)[
                    keys.index(name)]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def stateless_update_state(self, metric_variables, *args, **kwargs):
        """``update`` on a list of state arrays (``variables``' order); returns the new
        list (jittable)."""
        self._check_variables(metric_variables)
        state = self._state_from_leaves(metric_variables)
        return self._state_leaves(self.update(state, *args, **kwargs))

    def stateless_result(self, metric_variables):
        """``result`` of a list of state arrays."""
        self._check_variables(metric_variables)
        return self.result(self._state_from_leaves(metric_variables))

    def stateless_reset_state(self) -> list:
        """A fresh state as a list of arrays."""
        return self._state_leaves(self.init())

    def _check_variables(self, metric_variables) -> None:
        expected = len(self._state_leaves())
        if len(metric_variables) != expected:
            raise ValueError("Argument `metric_variables` must be a list of tensors "
                             f"corresponding 1:1 to {type(self).__name__}().variables. "
                             f"Received list with length {len(metric_variables)}, but "
                             f"expected {expected} variables.")

    @property
    def dtype(self) -> str:
        """The dtype of the metric's state and result (``floatx()`` unless given)."""
        return self._dtype

    def merge(self, a, b):
        """The state of the union of the batches behind states ``a`` and ``b``."""
        return jax.tree_util.tree_map(jnp.add, a, b)

    def __call__(self, *args, **kwargs):
        """Keras's call: ``update_state(...)``, then the ``result()`` of every batch seen."""
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items() if k != "fn")
        return f"{type(self).__name__}({args})"

