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

from kgraph.base import catalog
from kgraph.base.naming import to_snake_case
from kgraph.base.weight_tree import weight_entries
from kgraph.optimizers import keras_variables

__all__ = ["GROUPS", "get_state_tree", "keras_variable_paths", "optimizer_variable_names",
           "set_state_tree"]

GROUPS = ("trainable_variables", "non_trainable_variables", "optimizer_variables",
          "metrics_variables")

# Compiled metrics given by alias keep Keras's variables under the function's name.
_METRIC_SCOPES = {"mae": "mean_absolute_error", "mse": "mean_squared_error",
                  "mape": "mean_absolute_percentage_error",
                  "msle": "mean_squared_logarithmic_error"}


def _is_model(layer) -> bool:
    return catalog.is_instance(layer, "Model")


def _own_scope(model) -> bool:
    """Whether ``model`` builds its layers inside its own name scope (a ``Sequential``, a
    subclassed model) rather than when its graph is made (a functional model)."""
    return catalog.is_instance(model, "Sequential") or not catalog.is_instance(model,
                                                                            "Functional")


def _built_alone(model) -> bool:
    """A Sequential given an ``Input`` was built when it was made, outside any scope."""
    stack = getattr(model, "_stack", ())
    return bool(stack) and catalog.is_instance(stack[0], "InputLayer")


def keras_variable_paths(model) -> dict:
    """``{id(variable): Keras's variable.path}`` for every weight of ``model``.

    >>> import kgraph as kg
    >>> x = kg.Input(shape=(3,))
    >>> inner = kg.Sequential([kg.layers.Dense(2, name="d")], name="s")
    >>> model = kg.Model(x, inner(kg.layers.Dense(3, name="h")(x)))
    >>> sorted(keras_variable_paths(model).values())
    ['h/bias', 'h/kernel', 's/d/bias', 's/d/kernel']
    """
    models: dict = {}
    stack = [((), model)]
    while stack:
        prefix, parent = stack.pop()
        for layer in getattr(parent, "layers", ()):
            if _is_model(layer):
                models[prefix + (layer.name,)] = (layer, parent)
                stack.append((prefix + (layer.name,), layer))
    top = [model.name] if _own_scope(model) else []
    paths = {}
    for entry in weight_entries(model):
        parts = list(top)
        for i, name in enumerate(entry.path[:-1]):
            found = models.get(entry.path[:i + 1])
            if found is None:
                parts.append(name)  # a layer, or a sub-layer built in its parent's scope
            elif not _own_scope(found[0]):
                parts = []  # a functional model's layers were built outside any scope
            elif _built_alone(found[0]) or not _own_scope(found[1]):
                parts = [name]
            else:
                parts.append(name)  # built on first call, inside its parent's scope
        paths[id(entry.variable)] = "/".join(parts + [entry.path[-1]])
    return paths


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


def _keyed(variables, paths, group) -> dict:
    flat = {}
    for variable in variables:
        path = paths[id(variable)]
        if path in flat:
            raise ValueError(f"The following variable path is found twice in the model: "
                             f"'{path}' ({group}). `get_state_tree()` can only be called when "
                             "all variable paths are unique: give unique names to your layers.")
        flat[path] = variable.value
    return flat


def _optimizer_scope(optimizer) -> str:
    """Keras's name for the optimizer: its own, or (left at the default) Keras's default,
    the class name in snake case."""
    scope = getattr(optimizer, "_keras_scope", None)
    if scope is not None:
        return scope
    try:
        default = type(optimizer)().name
    except (TypeError, ValueError):
        default = None
    return to_snake_case(type(optimizer).__name__) if optimizer.name == default else \
        optimizer.name


def _slot_path(slot, weight, ref, scope) -> str:
    """A slot's path: ``<scope>/<weight ref>_<slot>``, or what a class's own naming
    function ``slot(weight, ref, scope)`` says (Adafactor's)."""
    return slot(weight, ref, scope) if callable(slot) else f"{scope}/{ref}_{slot}"


def optimizer_variable_names(model, count: int) -> list:
    """Keras's paths of compiled ``model``'s ``count`` optimizer variables, in Keras's order.

    >>> import kgraph as kg
    >>> x = kg.Input(shape=(2,))
    >>> model = kg.Model(x, kg.layers.Dense(1, name="d")(x))
    >>> model.compile("adam", "mse")
    >>> optimizer_variable_names(model, 6)
    ['adam/iteration', 'adam/learning_rate', 'adam/d_kernel_momentum', 'adam/d_kernel_velocity', 'adam/d_bias_momentum', 'adam/d_bias_velocity']
    """
    optimizer = model.optimizer
    kind = type(optimizer).__name__
    names = getattr(optimizer, "_keras_slot_names", lambda: None)()
    if names is None or not hasattr(optimizer, "_config"):
        raise ValueError(f"get_state_tree: the optimizer {optimizer!r} of model "
                         f"{model.name!r} has no Keras state-tree layout here (Keras's "
                         "optimizer classes but Muon, LossScaleOptimizer and "
                         "MultiOptimizer have one).")
    slots, scalars = names
    config = optimizer._config
    paths = keras_variable_paths(model)
    weights = list(model.trainable_weights)
    refs = [paths[id(v)].replace("/", "_") for v in weights]
    scope = _optimizer_scope(optimizer)
    body = [f"{scope}/{r}_average" for r in refs] if config["use_ema"] else []
    if config["gradient_accumulation_steps"]:
        body += [f"{scope}/{r}_gradient_accumulator" for r in refs]
    for group in slots:
        body += [_slot_path(slot, w, r, scope) for w, r in zip(weights, refs) for slot in group]
    if count <= 2 and (body or scalars):  # never trained: Keras has built only these
        return [f"{scope}/{name}" for name in ["iteration", "learning_rate"][:count]]
    header = ["iteration", "learning_rate"][:max(count - len(body) - len(scalars), 0)]
    if not header or header[0] != "iteration" or count != len(header) + len(body) + len(
            scalars):
        raise ValueError(f"get_state_tree: {count} optimizer variables for {kind} on model "
                         f"{model.name!r} do not match Keras's layout ({len(body)} slots).")
    return [f"{scope}/{name}" for name in header] + body + scalars


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
    paths = keras_variable_paths(model)
    compiled = getattr(model, "optimizer", None) is not None
    flats = {
        "trainable_variables": _keyed(model.trainable_variables, paths, "trainable"),
        "non_trainable_variables": _keyed(model.non_trainable_variables, paths,
                                          "non-trainable"),
        "optimizer_variables": _optimizer_flat(model) if compiled else {},
        "metrics_variables": _metrics_flat(model) if compiled else {},
    }
    convert = np.asarray if value_format == "numpy_array" else jnp.asarray
    return {group: _nest({p: convert(v) for p, v in flat.items()})
            for group, flat in flats.items()}


def _assign_weights(model, variables, flat, group, paths):
    missing = []
    for variable in variables:
        path = paths[id(variable)]
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
    paths = keras_variable_paths(model)
    for group, tree in state_tree.items():
        if group not in GROUPS:
            raise ValueError(f"Unknown variable name: {group}")
        if not isinstance(tree, dict):
            raise ValueError(f"set_state_tree: {group} must be a dict of arrays, received "
                             f"{type(tree).__name__}.")
        flat = _flatten(tree)
        if group == "trainable_variables":
            _assign_weights(model, model.trainable_variables, flat, "trainable variables",
                            paths)
        elif group == "non_trainable_variables":
            _assign_weights(model, model.non_trainable_variables, flat,
                            "non-trainable variables", paths)
        elif group == "optimizer_variables" and getattr(model, "optimizer", None) is not None:
            _restore_optimizer(model, flat)
