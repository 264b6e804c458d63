"""Keras 3's ``Model.get_state_tree`` / ``set_state_tree``: a model's variables as nested
dicts keyed by Keras's variable paths (the tree ``OrbaxCheckpoint`` writes).

Four groups: ``trainable_variables``, ``non_trainable_variables``, ``optimizer_variables``
and ``metrics_variables``, each a dict nested along the paths' ``/``. Keras's paths are the
name scopes a variable was made in: a layer of a functional model (built when the graph
was made) is ``dense/kernel``; a ``Sequential`` builds its layers in its own scope
(``sequential/dense/kernel``); sub-layers sit under their parent (``mha/query/kernel``).
An optimizer variable is ``<optimizer>/<weight path with _>_<slot>`` after
``<optimizer>/iteration`` and ``<optimizer>/learning_rate``, in Keras's order
(``kgraph.optimizers.keras_variables``).

>>> import numpy as np, kgraph as kg
>>> model = kg.Sequential([kg.Input(shape=(2,)), kg.layers.Dense(1, name="d")], name="s")
>>> model.compile("sgd", "mse")
>>> tree = get_state_tree(model)
>>> sorted(tree["trainable_variables"]["s"]["d"]), sorted(tree["optimizer_variables"]["sgd"])
(['bias', 'kernel'], ['iteration', 'learning_rate'])
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base.weight_tree import weight_entries
from kgraph.optimizers import keras_variables
from kgraph.optimizers.variable_names import optimizer_variable_names

__all__ = ["GROUPS", "get_state_tree", "optimizer_variable_names",
           "set_state_tree"]

GROUPS = ("trainable_variables", "non_trainable_variables", "optimizer_variables",
          "metrics_variables")

# Compiled metrics given by alias keep Keras's variables under the function's name.
_METRIC_SCOPES = {"mae": "mean_absolute_error", "mse": "mean_squared_error",
                  "mape": "mean_absolute_percentage_error",
                  "msle": "mean_squared_logarithmic_error"}


def _nest(flat: dict) -> dict:
    tree: dict = {}
    for path, value in flat.items():
        node = tree
        *scopes, leaf = path.split("/")
        for scope in scopes:
            node = node.setdefault(scope, {})
        node[leaf] = value
    return tree


def _flatten(tree, prefix="") -> dict:
    flat = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}/"))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _keyed(variables, group) -> dict:
    flat = {}
    for variable in variables:
        path = variable.path
        if path in flat:
            raise ValueError(f"The following variable path is found twice in the model: "
                             f"'{path}' ({group}). `get_state_tree()` can only be called when "
                             "all variable paths are unique: give unique names to your layers.")
        flat[path] = variable.value
    return flat


def _optimizer_flat(model) -> dict:
    found = keras_variables.model_variables(model)
    if found is None:
        if model.optimizer is None:
            return {}
        raise ValueError(f"get_state_tree: the optimizer of model {model.name!r} "
                         f"({type(model.optimizer).__name__}) has no Keras variables.")
    values = found[1]
    names = optimizer_variable_names(model, len(values))
    _unique(names, model)
    return dict(zip(names, values))


def _unique(names, model) -> None:
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"get_state_tree: the optimizer variables of model {model.name!r} "
                         f"name {twice[:3]} more than once ({type(model.optimizer).__name__}'s "
                         "variables are named after the weights alone): a state tree "
                         "cannot hold them.")


def _metrics_flat(model) -> dict:
    flat = {}
    for metric in model.metrics:
        leaves = [v.value for v in metric.variables]
        state = jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(metric.init()), leaves)
        inner = getattr(getattr(metric, "_objective", None), "metrics", None)
        named = {metric.name: state} if inner is None else {
            _METRIC_SCOPES.get(m.name, m.name): state[log] for _, log, m in inner}
        for name, values in named.items():
            flat.update({f"{name}/{k}": v for k, v in _flatten(values).items()})
    return flat


def get_state_tree(model, value_format="backend_tensor") -> dict:
    """Keras's ``model.get_state_tree``: the four groups of variables, nested by path;
    ``value_format`` "backend_tensor" (JAX arrays) or "numpy_array". A model that is not
    compiled has empty optimizer and metrics groups."""
    if value_format not in ("backend_tensor", "numpy_array"):
        raise ValueError("Invalid `value_format` argument. Expected one of {'numpy_array', "
                         f"'backend_tensor'}}. Received: value_format={value_format}")
    compiled = getattr(model, "optimizer", None) is not None
    flats = {
        "trainable_variables": _keyed(model.trainable_variables, "trainable"),
        "non_trainable_variables": _keyed(model.non_trainable_variables,
                                          "non-trainable"),
        "optimizer_variables": _optimizer_flat(model) if compiled else {},
        "metrics_variables": _metrics_flat(model) if compiled else {},
    }
    convert = np.asarray if value_format == "numpy_array" else jnp.asarray
    return {group: _nest({p: convert(v) for p, v in flat.items()})
            for group, flat in flats.items()}


def _assign_weights(model, variables, flat, group):
    missing = []
    for variable in variables:
        path = variable.path
        if path not in flat:
            missing.append(path)
            continue
        value = np.asarray(flat[path])
        if value.shape != tuple(variable.shape):
            raise ValueError(f"set_state_tree: {group} '{path}' of model {model.name!r} has "
                             f"shape {tuple(variable.shape)}, the tree's value {value.shape}.")
        variable.assign(value)
    if missing:
        raise ValueError(f"set_state_tree: the tree's {group} lack {missing} of model "
                         f"{model.name!r} (has {sorted(flat)[:8]}).")


def _restore_optimizer(model, flat):
    """Give compiled ``model``'s optimizer the state in ``flat`` (Keras's paths). The
    optimizer's scope is found by its ``iteration`` entry, so a state saved under another
    optimizer name ("adam_1") still loads."""
    expected = keras_variables.model_expected(model)
    if expected is None or len(flat) <= 2:  # no layout here, or never trained: nothing to set
        return
    names = optimizer_variable_names(model, len(expected))
    _unique(names, model)
    scopes = {p.rsplit("/", 1)[0] for p in flat if p.endswith("/iteration")}
    own = names[0].rsplit("/", 1)[0]
    if own not in scopes and len(scopes) == 1:
        other = scopes.pop()
        names = [f"{other}/{n[len(own) + 1:]}" if n.startswith(own + "/") else n
                 for n in names]
    absent = [n for n in names if n not in flat]
    if absent:
        raise ValueError(f"set_state_tree: the optimizer variables lack {absent[:4]} for "
                         f"model {model.name!r} (found {sorted(flat)[:6]}).")
    values = []
    for name, (shape, dtype) in zip(names, expected):
        value = np.asarray(flat[name])
        if value.shape != tuple(shape):
            raise ValueError(f"set_state_tree: optimizer variable '{name}' has shape "
                             f"{value.shape}; model {model.name!r} needs {tuple(shape)}.")
        values.append(value.astype(dtype))
    keras_variables.model_restore(model, values)


def set_state_tree(model, state_tree) -> None:
    """Keras's ``model.set_state_tree``: assign the values of a ``get_state_tree`` tree.

    Every weight of the model must be in the tree (Keras's seed-generator states, which
    kgraph derives from keys, are ignored); the optimizer's state is restored when the
    model is compiled with a Keras optimizer class; metrics states are not kept (``fit``
    resets them at every epoch).
    """
    for group, tree in state_tree.items():
        if group not in GROUPS:
            raise ValueError(f"Unknown variable name: {group}")
        if not isinstance(tree, dict):
            raise ValueError(f"set_state_tree: {group} must be a dict of arrays, received "
                             f"{type(tree).__name__}.")
        flat = _flatten(tree)
        if group == "trainable_variables":
            _assign_weights(model, model.trainable_variables, flat, "trainable variables")
        elif group == "non_trainable_variables":
            _assign_weights(model, model.non_trainable_variables, flat,
                            "non-trainable variables")
        elif group == "optimizer_variables" and getattr(model, "optimizer", None) is not None:
            _restore_optimizer(model, flat)
