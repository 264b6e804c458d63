"""Keras's ``MultiOptimizer`` and ``OptimizerMap``: each weight trained by the optimizer
its path selects, on ``optax.multi_transform``.

An ``OptimizerMap`` maps weight paths (exact, else ``re.fullmatch`` patterns) to optimizers,
with a default for the rest; a plain function of the weight works too. The choice is made
once per weight, from its path (``"encoder/dense/kernel"``) and shape.

>>> import jax.numpy as jnp
>>> from kgraph.optimizers import SGD, Adam
>>> chooser = OptimizerMap(SGD(0.1), {"encoder/.*": Adam()})
>>> opt = MultiOptimizer(chooser)
>>> params = {"encoder": {"kernel": jnp.ones(2)}, "head": {"kernel": jnp.ones(2)}}
>>> updates, _ = opt.update(params, opt.init(params), params)
>>> [round(float(updates[k]["kernel"][0]), 3) for k in ("encoder", "head")]  # Adam, SGD
[-0.001, -0.1]
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from kgraph.base.weight_tree import get_path, weight_entries
from kgraph.optimizers.base import Optimizer, from_keras_config, to_keras_config
from kgraph.optimizers.state_variables import OptimizerVariable
from kgraph.optimizers.keras_optimizers_recent import path_string
from kgraph.optimizers.loss_scale_optimizer import LossScaleOptimizer
from kgraph.serializable import keras_object_config

__all__ = ["MultiOptimizer", "MultiOptimizerState", "OptimizerMap", "WeightView"]


def _check_optimizer(optimizer, what):
    """``optimizer``, if it can be a sub-optimizer (the map's entries)."""
    for wrapper in (LossScaleOptimizer, MultiOptimizer):
        if isinstance(optimizer, wrapper):
            raise ValueError(f"{what}: optimizer cannot be {wrapper.__name__}.")
    if not isinstance(optimizer, Optimizer):
        raise ValueError(f"{what} must be a Keras optimizer (kgraph.optimizers.*). "
                         f"Received: {optimizer!r}")
    return optimizer


def _check_chosen(optimizer, path):
    """``optimizer``, if it can train weight ``path`` (the map may have been edited)."""
    for wrapper in (LossScaleOptimizer, MultiOptimizer):
        if isinstance(optimizer, wrapper):  # (Keras's words)
            raise ValueError(f"{wrapper.__name__} cannot be used inside an MultiOptimizer "
                             f"(chosen for weight {path!r}).")
    return _check_optimizer(optimizer, f"The optimizer chosen for weight {path!r}")


class OptimizerMap(MutableMapping):
    """Weight paths (or ``re.fullmatch`` patterns) to optimizers; unmapped weights get
    ``default_optimizer``. An exact path wins over patterns; two matching patterns are an
    error."""

    def __init__(self, default_optimizer, optimizer_map=None):
        if not isinstance(default_optimizer, Optimizer):
            raise TypeError("default_optimizer must be a Keras Optimizer instance. "
                            f"Received: {default_optimizer!r}")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"optimizer_map must be a dictionary. Received: {optimizer_map!r}")
        self._default_optimizer = default_optimizer
        self._optimizer_map = {}
        for key, optimizer in (optimizer_map or {}).items():
            self[key] = optimizer

    @property
    def default_optimizer(self):
        return self._default_optimizer

    def __getitem__(self, key):
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matching = [p for p in self._optimizer_map if re.fullmatch(p, key)]
        if len(matching) > 1:
            raise ValueError(f"Multiple optimizers assigned to variable {key}: the patterns "
                             f"{matching} all match it.")
        return self._optimizer_map[matching[0]] if matching else self._default_optimizer

    def __setitem__(self, key, optimizer):
        if key in self._optimizer_map:
            raise ValueError(f"'{key}' already exists in the OptimizerMap with value "
                             f"{self._optimizer_map[key]}. Please make sure to not use "
                             "duplicated keys.")
        if not isinstance(key, str):
            raise ValueError(f"key must be a string. Received: {key!r}")
        self._optimizer_map[key] = _check_optimizer(optimizer, f"OptimizerMap[{key!r}]")

    def __delitem__(self, key):
        del self._optimizer_map[key]

    def __len__(self):
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable):
        return self[variable.path]

    def get_config(self) -> dict:
        return {"default_optimizer": to_keras_config(self._default_optimizer),
                "optimizer_map": {k: to_keras_config(v)
                                  for k, v in self._optimizer_map.items()}}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        mapping = config.get("optimizer_map") or {}
        if mapping.get("class_name") == "__python_dict__":  # Keras's serialized dict
            mapping = mapping["config"]
        return cls(from_keras_config(config["default_optimizer"], custom_objects),
                   {k: from_keras_config(v, custom_objects) for k, v in mapping.items()})


class WeightView(NamedTuple):
    """What a chooser sees of a weight: its Keras path, name, shape and dtype."""

    path: str
    name: str
    shape: tuple
    dtype: object



def _replaced(tree: dict, path: tuple, value) -> dict:
    """``tree`` (nested dicts) with the leaf at ``path`` replaced (the rest shared)."""
    if len(path) == 1:
        return {**tree, path[0]: value}
    return {**tree, path[0]: _replaced(tree[path[0]], path[1:], value)}


class MultiOptimizerState(NamedTuple):
    """The number of updates applied, and each sub-optimizer's state on its weights."""

    count: jnp.ndarray
    inner: object


class MultiOptimizer(Optimizer):
    """Train each weight with the optimizer ``optimizer_map`` chooses for it: an
    ``OptimizerMap`` or a function of the weight (``weight.path``, ``.shape``) returning an
    optimizer. Each sub-optimizer keeps its own learning rate (``optimizers``); the
    ``MultiOptimizer`` has none, as in Keras."""

    _reads_paths = True
    _keras_layout = False

    def __new__(cls, optimizer_map, loss_scale_factor=None, name=None):
        inner = []
        for optimizer in [*getattr(optimizer_map, "values", lambda: [])(),
                          getattr(optimizer_map, "default_optimizer", None)]:
            if optimizer is not None and not any(optimizer is o for o in inner):
                inner.append(optimizer)
        chosen = {}  # params structure -> labels: each weight is asked about once

        def labels(tree):
            structure = jax.tree_util.tree_structure(tree)
            if structure not in chosen:
                chosen[structure] = jax.tree_util.tree_map_with_path(choose, tree)
            return chosen[structure]

        def choose(key_path, weight):
            path = path_string(key_path)
            if not callable(optimizer_map):
                raise TypeError("optimizer_map must be an OptimizerMap or a function of a "
                                f"weight returning an optimizer. Received: {optimizer_map!r}")
            optimizer = _check_chosen(optimizer_map(WeightView(
                path, path.rsplit("/", 1)[-1], tuple(jnp.shape(weight)),
                jnp.result_type(weight))), path)
            for index, known in enumerate(inner):
                if known is optimizer:
                    return index
            inner.append(optimizer)
            optimizer._parent = (self, len(inner) - 1)
            optimizer._set_loss_scale_factor(self._config["loss_scale_factor"])
            return len(inner) - 1

        def transform(tree):  # over the sub-optimizers that train a weight
            chosen_labels = labels(tree)
            used = set(jax.tree_util.tree_leaves(chosen_labels))
            return optax.multi_transform({i: inner[i] for i in sorted(used)}, chosen_labels,
                                         mask_compatible_extra_args=True)  # decay_mask

        def init(params):
            return MultiOptimizerState(jnp.zeros((), jnp.int32), transform(params).init(params))

        def update(updates, state, params=None, **extra_args):
            new, inner_state = transform(updates).update(updates, state.inner, params,
                                                          **extra_args)
            return new, MultiOptimizerState(state.count + 1, inner_state)

        self = optax.GradientTransformationExtraArgs.__new__(cls, init, update)
        self._optimizer_map = optimizer_map
        self._labels = labels
        self._inner = inner
        self._config = {"name": name or "multi_optimizer", "learning_rate": None,
                        "loss_scale_factor": None, "use_ema": False}
        self._loop = self._state = None
        for index, optimizer in enumerate(inner):
            optimizer._parent = (self, index)
        self._set_loss_scale_factor(loss_scale_factor)
        return self

    def _set_loss_scale_factor(self, factor) -> None:
        # the sub-optimizers take it (each divides its gradients by it), as Keras's
        super()._set_loss_scale_factor(factor)
        for optimizer in self._inner:
            optimizer._set_loss_scale_factor(factor)

    def _sub_state(self, label):
        """The state of sub-optimizer ``label`` (None before training, or while it trains
        no weight)."""
        state = self._opt_state()
        masked = None if state is None else state.inner.inner_states.get(label)
        return None if masked is None else masked.inner_state

    def _set_sub_state(self, label, sub_state) -> None:
        state = self._opt_state()
        states = dict(state.inner.inner_states)
        states[label] = states[label]._replace(inner_state=sub_state)
        self._set_opt_state(state._replace(inner=state.inner._replace(inner_states=states)))

    def _weights_of(self, label) -> list:
        """``[(weight, key path in the state's weight trees)]`` of the weights that
        sub-optimizer ``label`` (one with ``use_ema``) trains, as its moving average has
        them: of those ``build`` was given, else of the trained model's (in its
        ``trainable_weights`` order)."""
        if self.built:
            pairs = [(v, (k,)) for v, k in zip(self._built_variables, self._keys)]
        else:
            model = getattr(self._loop, "model", None)
            if model is None:
                return []
            paths = {id(e.variable): e.path for e in weight_entries(model) if e.is_param}
            pairs = [(v, paths[id(v)]) for v in model.trainable_weights if id(v) in paths]
        state = self._sub_state(label)
        if state is None:
            return []
        tree = self._inner[label].ema_weights(state)
        chosen = []
        for variable, path in pairs:
            node = tree
            for key in path:
                node = node.get(key) if isinstance(node, dict) else None
            if node is not None and not isinstance(node, optax.MaskedNode):
                chosen.append((variable, path))
        return chosen

    def _sub_group(self, label, kind) -> list:
        """Keras's variables of one kind of sub-optimizer ``label``, one per weight it
        trains: its moving averages ("average"; ``use_ema``), views of its part of the
        state, named as Keras names them (``<weight path>_average``)."""
        optimizer = self._inner[label]
        if kind != "average" or not optimizer._config.get("use_ema"):
            return []

        def view(variable, path):
            def read():
                return get_path(optimizer.ema_weights(self._sub_state(label)), path, "ema")

            def write(value):
                state = self._sub_state(label)
                average = _replaced(optimizer.ema_weights(state), path, value)
                self._set_sub_state(label, optax.tree_utils.tree_set(state, ema=average))

            ref = variable.path.replace("/", "_")
            return OptimizerVariable(f"{ref}_average", tuple(variable.shape), variable.dtype,
                                     read, write, optimizer._keras_scope)

        return [view(variable, path) for variable, path in self._weights_of(label)]

    def _finalized(self, opt_state, params):
        """``params`` with the weights of each inner optimizer keeping a moving average
        (``use_ema``) replaced by it, as Keras's end of ``fit``; None if none keeps one."""
        masked = lambda a: isinstance(a, optax.MaskedNode)  # noqa: E731
        changed = None
        for label, optimizer in enumerate(self._inner):
            part = opt_state.inner.inner_states.get(label)
            if not optimizer._config.get("use_ema") or part is None:
                continue
            changed = jax.tree_util.tree_map(
                lambda average, weight: weight if masked(average) else average,
                optimizer.ema_weights(part.inner_state), params if changed is None else changed,
                is_leaf=masked)
        return changed

    def _bind(self, loop) -> None:
        # each sub-optimizer's learning rate carries to the next fresh state, as one's own
        for optimizer in self._inner:
            rate = optimizer._config["learning_rate"]
            if (loop is not self._loop and not callable(rate)
                    and optimizer._opt_state() is not None):
                optimizer._config["learning_rate"] = float(optimizer._read_rate())
        super()._bind(loop)

    @property
    def optimizers(self) -> list:
        """The sub-optimizers, in the order they were first chosen."""
        return list(self._inner)

    def _var_key(self, variable) -> int:
        return id(getattr(variable, "variable", variable))

    @property
    def _var_to_optimizer_idx(self) -> dict:
        """Once built on a list of weights (``build``): each weight (by ``_var_key``) to
        the index of the sub-optimizer training it in ``optimizers``, as Keras's."""
        if not self.built:
            raise AttributeError("This MultiOptimizer has not chosen its weights' optimizers "
                                 "yet: call build(variables) first.")
        labels = self._labels(self._as_tree([getattr(v, "value", v)
                                             for v in self._built_variables]))
        return {self._var_key(v): labels[key]
                for v, key in zip(self._built_variables, self._keys)}

    @property
    def elementwise(self) -> bool:
        return False  # choices are made per weight path: stacked blocks stay unstacked

    @property
    def learning_rate(self):
        raise AttributeError("Learning rate cannot be accessed on a MultiOptimizer. Access "
                             "the learning rate on the individual sub-optimizers instead.")

    @learning_rate.setter
    def learning_rate(self, value):
        raise AttributeError("Learning rate cannot be set on a MultiOptimizer. Set the "
                             "learning rate on the individual sub-optimizers instead.")

    @property
    def iterations(self):
        state = self._loop.train_state.opt_state if self._loop is not None else self._state
        return 0 if state is None else state.count

    def get_config(self) -> dict:
        if not hasattr(self._optimizer_map, "get_config"):
            raise NotImplementedError("A MultiOptimizer choosing with a function has no "
                                      "config; use an OptimizerMap to serialize it.")
        return {"optimizer_map": keras_object_config(self._optimizer_map, "keras.optimizers"),
                "loss_scale_factor": self._config["loss_scale_factor"], "name": self.name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        mapping = config["optimizer_map"]
        if isinstance(mapping, dict) and "class_name" in mapping:
            mapping = OptimizerMap.from_config(mapping["config"], custom_objects)
        return cls(mapping, config.get("loss_scale_factor"), config.get("name"))

    def __repr__(self):
        return f"<MultiOptimizer of {len(self._inner)} optimizers>"
