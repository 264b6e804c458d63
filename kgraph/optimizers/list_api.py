"""Keras's optimizer API over lists of weights: ``build``, ``apply`` /
``apply_gradients``, ``stateless_apply``, ``set_weights``, and the built optimizer's
``variables`` in Keras's layout.

Once built on a list of weights, the optimizer's state (optax's, ``Optimizer._state``) is
described as Keras's variables: ``iterations``, the learning rate, then each weight's
slots in Keras's order and names (``keras_variables``), each a view of the state: reading
one reads the state, assigning one changes it. ``stateless_apply`` takes and returns the
values of that list, as Keras's. An optimizer whose state has no Keras layout (a
``MultiOptimizer``) lists its state's arrays instead.

Weights given without a gradient (None) are left as they are, their state too, with
Keras's warning; a weight whose ``overwrite_with_gradient`` is set takes its gradient as
its new value, its state untouched; a weight's ``constraint`` projects it after the update.

>>> import numpy as np, kgraph as kg
>>> weight = kg.Variable(np.ones(2, np.float32))
>>> optimizer = kg.optimizers.SGD(0.5, momentum=0.9)
>>> optimizer.apply_gradients([(np.ones(2, np.float32), weight)])
>>> [v.name for v in optimizer.variables], weight.numpy().tolist()
(['iteration', 'learning_rate', 'variable_momentum'], [0.5, 0.5])
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import optax

from kgraph.base.state_variable import StateVariable
from kgraph.optimizers import keras_variables, overwrites as overwrites_lib

__all__ = ["ListAPI", "kept_entries"]


def _values(variables):
    return [getattr(v, "value", v) for v in variables]


def kept_entries(old, new, keys):
    """``new`` (a state, or weights, made on a dict of weights) with every entry under one
    of the weight keys ``keys`` as in ``old``."""
    keys = set(keys)
    if not keys:
        return new

    def keep(path, new_leaf, old_leaf):
        under = any(isinstance(k, jax.tree_util.DictKey) and k.key in keys for k in path)
        return old_leaf if under else new_leaf

    return jax.tree_util.tree_map_with_path(keep, new, old)


def _overwritten(variable) -> bool:
    return bool(getattr(variable, "overwrite_with_gradient", False))


class ListAPI:
    """Keras's list API of an ``Optimizer`` (a mixin: the optimizer provides ``init``,
    ``update``, ``_opt_state`` / ``_set_opt_state``, the iteration and learning-rate
    variables and ``decay_mask``)."""

    #: The rule tells weights apart by their paths (``Muon``): Keras's list API then passes
    #: the weights to the rule as ``{variable.path: value}``, not by position.
    _reads_paths = False

    _keys = None  # the weights' keys in the tree the state is made on (``build``)
    _treedef = None
    _layout = None
    _built_variables = None
    _list_views = None

    def build(self, variables) -> None:
        """Create the optimizer state for ``variables`` (a list of weights or arrays)."""
        variables = list(variables)
        paths = [getattr(v, "path", None) for v in variables]
        by_path = (self._reads_paths and all(isinstance(p, str) for p in paths)
                   and len(set(paths)) == len(paths))
        self._keys = paths if by_path else [str(i) for i in range(len(variables))]
        self._built_variables = variables
        self._state = overwrites_lib.init_state(self, self._as_tree(_values(variables)),
                                                self._overwritten_tree(_values(variables)))
        self._treedef = jax.tree_util.tree_structure(self._state)
        self._list_views = self._layout = None

    def _as_tree(self, values):
        return dict(zip(self._keys, values))

    def _overwritten_tree(self, values) -> dict:
        """``values`` of the built weights overwritten with their gradient, by key."""
        return {k: value for k, v, value in zip(self._keys, self._built_variables, values)
                if _overwritten(v)}

    def _as_list(self, tree):
        return [tree[k] for k in self._keys]

    @property
    def built(self) -> bool:
        return self._treedef is not None

    # ------------------------------------------------ the state as Keras's variables
    def _list_layout(self):
        """``(params, order)`` for ``keras_variables``' conversions of the built state, or
        None when the state has no Keras layout."""
        if self._layout is None:
            shapes = [jax.ShapeDtypeStruct(jnp.shape(v), jnp.result_type(v))
                      for v in _values(self._built_variables)]
            params, overwritten = self._as_tree(shapes), self._overwritten_tree(shapes)
            order = [(k,) for k in self._keys]
            try:
                keras_variables.expected(self, params, order, overwritten)
                self._layout = (params, order, overwritten)
            except NotImplementedError:
                self._layout = False
        return self._layout or None

    def _state_to_list(self, state) -> list:
        """Keras's variables (values) of a built state (jittable)."""
        layout = self._list_layout()
        if layout is None:
            return jax.tree_util.tree_leaves(state)
        params, order, _ = layout
        return keras_variables.to_keras(self, state, params, order)

    def _state_from_list(self, values):
        """The built state whose Keras variables are ``values`` (jittable)."""
        layout = self._list_layout()
        if layout is None:
            return jax.tree_util.tree_unflatten(self._treedef, list(values))
        params, order, overwritten = layout
        zeros = jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype),
                                       (params, overwritten))
        return keras_variables.from_keras(self, list(values), zeros[0], order, zeros[1])

    def _list_names(self) -> list:
        """Keras's names of the built optimizer's variables."""
        count = len(self._state_to_list(self._state))
        if self._list_layout() is None:
            return [f"slot_{i}" for i in range(count)]
        names = ["iteration"] + (["learning_rate"] if self._rate_variable_listed() else [])
        slots, scalars = self._keras_slot_names() or ([], [])
        refs = [getattr(v, "path", f"variable_{i}").replace("/", "_")
                for i, v in enumerate(self._built_variables)]
        if self._config.get("use_ema"):
            names += [f"{r}_average" for r in refs]
        if self._config.get("gradient_accumulation_steps"):
            names += [f"{r}_gradient_accumulator" for r in refs]
        for group in slots:
            names += [slot(w, r, "").lstrip("/") if callable(slot) else f"{r}_{slot}"
                      for w, r in zip(self._built_variables, refs) for slot in group]
        names += list(scalars)
        return names if len(names) == count else [f"slot_{i}" for i in range(count)]

    def _list_header(self) -> list:
        """The optimizer's own variables its list starts with: Keras's iteration and
        learning-rate variables (none without a Keras layout)."""
        if self._list_layout() is None:
            return []
        return [self._iteration_variable] + (
            [self._rate_variable] if self._rate_variable_listed() else [])

    def _rate_variable_listed(self) -> bool:
        rate = self._config.get("learning_rate")
        return rate is not None and not callable(rate)

    def _built_views(self) -> list:
        """The built optimizer's variables: views of the state training continues from."""
        if self._list_views is None:
            current = {}

            def values():
                state = self._opt_state()
                if current.get("state") is not state:
                    current["state"], current["values"] = state, self._state_to_list(state)
                return current["values"]

            def view(index, name, value):
                def read():
                    return values()[index]

                def write(new):
                    changed = list(values())
                    changed[index] = new
                    self._set_opt_state(self._state_from_list(changed))

                return StateVariable(name, jnp.shape(value), jnp.result_type(value), read,
                                     write, self._keras_scope)

            made = [view(i, name, value) for i, (name, value) in enumerate(
                zip(self._list_names(), self._state_to_list(self._state)))]
            header = self._list_header()
            made[:len(header)] = header
            self._list_views = made
        return list(self._list_views)

    def set_weights(self, weights) -> None:
        """Set the built optimizer's variables from ``weights`` (values in the order of
        ``variables``), as Keras's."""
        if not self.built:
            raise ValueError("You are calling `set_weights()` on an optimizer that has not "
                             f"yet been built (optimizer {self.name!r}). Please call "
                             "`optimizer.build(trainable_variables)` to create the "
                             "optimizer weights before calling `set_weights()`.")
        weights = [getattr(w, "value", w) for w in weights]
        current = self._state_to_list(self._opt_state())
        if len(weights) != len(current):
            raise ValueError(f"Optimizer {self.name!r}: set_weights expects {len(current)} "
                             f"values (one per variable); received {len(weights)}.")
        self._set_opt_state(self._state_from_list(
            [jnp.asarray(w, jnp.result_type(c)) for w, c in zip(weights, current)]))

    # ---------------------------------------------------------------- applying updates
    def _updated(self, state, grads, values, variables):
        """``(new values, new state)`` of the weights ``values`` (lists) after one update
        with ``grads``: weights without a gradient and those overwritten with theirs keep
        their state entries; constraints project the new values."""
        keys = self._keys
        skipped = [k for k, g in zip(keys, grads) if g is None]
        overwritten = [k for k, v in zip(keys, variables) if _overwritten(v)]
        grads = [jnp.zeros_like(v) if g is None else jnp.asarray(g, jnp.result_type(v))
                 for g, v in zip(grads, values)]
        params = self._as_tree(values)
        # the overwritten weights' values (what the optimizer keeps of them, e.g. their
        # maxima under accumulation), before the update of the same step, as fit's step
        written, state = overwrites_lib.overwrite(
            self, state, {k: g for k, g in zip(keys, grads) if k in overwritten},
            {k: params[k] for k in overwritten})
        mask = self.decay_mask(self._as_tree(variables))
        updates, new_state = self.update(self._as_tree(grads), state, params,
                                         **({} if mask is None else {"decay_mask": mask}))
        new_state = kept_entries(state, new_state, skipped + overwritten)
        new = self._as_list({**kept_entries(params, optax.apply_updates(params, updates),
                                            skipped), **written})
        return [v.constraint(value) if getattr(v, "constraint", None) is not None else value
                for v, value in zip(variables, new)], new_state

    def stateless_apply(self, optimizer_variables, grads, trainable_variables):
        """``(new_trainable_variables, new_optimizer_variables)`` as lists, without touching
        any stored state (jittable; ``build`` first). ``optimizer_variables`` are the
        values of ``variables``."""
        if not self.built:
            raise ValueError(f"To call `stateless_apply`, {type(self).__name__} must be "
                             "built (i.e. its variables must have been created). You can "
                             "build it via `optimizer.build(trainable_variables)`.")
        state = self._state_from_list(_values(optimizer_variables))
        new, state = self._updated(state, list(grads), _values(trainable_variables),
                                   self._built_variables)
        return new, self._state_to_list(state)

    def apply(self, grads, trainable_variables=None):
        """Update ``trainable_variables`` (kgraph Variables; by default those it was built
        with) in place with ``grads``."""
        if trainable_variables is None:
            if not self.built:
                raise ValueError("apply() needs trainable_variables (kgraph Variables) "
                                 "when the optimizer has not been built.")
            trainable_variables = self._built_variables
        variables, grads = list(trainable_variables), list(grads)
        if all(g is None for g in grads):
            raise ValueError("No gradients provided for any variable.")
        missing = [getattr(v, "path", str(i)) for i, (g, v) in enumerate(zip(grads, variables))
                   if g is None]
        if missing:
            warnings.warn(f"Gradients do not exist for variables {missing} when minimizing "
                          "the loss. If using `model.compile()`, did you forget to provide "
                          "a `loss` argument?", UserWarning, stacklevel=3)
        if not self.built:
            self.build(variables)
        new, state = self._updated(self._opt_state(), grads, _values(variables), variables)
        self._set_opt_state(state)
        for variable, value in zip(variables, new):
            variable.assign(value)

    def apply_gradients(self, grads_and_vars):
        """``apply`` from ``[(grad, variable), ...]``."""
        pairs = list(grads_and_vars)
        self.apply([g for g, _ in pairs], [v for _, v in pairs])

    # --------------------------------------------------------- Keras's named groups
    def _group(self, kind) -> list:
        """Keras's variables of one kind, one per trainable weight: the moving averages
        (``use_ema``) or the gradient accumulators (``gradient_accumulation_steps``)."""
        if kind == "average" and not self._config.get("use_ema"):
            return []
        parent = getattr(self, "_parent", None)
        if parent is not None:  # a MultiOptimizer's: views of its part of that state
            return parent[0]._sub_group(parent[1], kind)
        if kind == "accumulator" and not self._config.get("gradient_accumulation_steps"):
            return []
        variables = self.variables
        weights = len(self._keys) if self.built else _model_weights(self)
        start = 1 + int(self._rate_variable_listed())
        if kind == "accumulator" and self._config.get("use_ema"):
            start += weights
        return variables[start:start + weights]

    @property
    def _model_variables_moving_average(self) -> list:
        """Keras's moving averages of the weights (``use_ema``), as variables."""
        return self._group("average")

    @property
    def _accumulated_gradients(self) -> list:
        """Keras's sums of the gradients since the last update
        (``gradient_accumulation_steps``), as variables."""
        return self._group("accumulator")

    @property
    def _iterations(self):
        """Keras's ``_iterations``: the batches trained on (also under gradient
        accumulation)."""
        return self._iteration_variable


def _model_weights(optimizer) -> int:
    model = getattr(optimizer._loop, "model", None)
    return 0 if model is None else len([v for v in model.trainable_weights
                                        if not getattr(v, "overwrite_with_gradient", False)])
