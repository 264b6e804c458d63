"""The weights pytree of a model: nested dicts keyed by layer name, then weight name.

Trainable weights go to ``params``, everything else (BatchNorm statistics, weights of a
layer with ``trainable=False``, trainable weights a step overwrites with their gradient,
as a float8 layer's scales) to ``state``. A nested model nests:
``params["encoder"]["dense"]["kernel"]``. The names and structure depend only on the
model's architecture (``compiler.weights`` builds programs on them; Keras files and
optimizer variables are read and written through them).

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,))
>>> model = kg.Model(x, kg.layers.Dense(2, name="out")(x))
>>> weight_paths(model)
['out/kernel', 'out/bias']
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from kgraph.base import initial_values

__all__ = ["WeightEntry", "assign", "check_weights", "get_path", "set_path", "split_values",
           "variables", "weight_entries", "weight_paths", "written_by_gradient"]


class WeightEntry(NamedTuple):
    """One weight: its path in the pytree, the Variable, whether it is a param, and whether
    a training step writes it with its gradient (``written_by_gradient``)."""

    path: tuple
    variable: object
    is_param: bool
    written: bool = False


def weight_entries(model) -> list[WeightEntry]:
    """Every weight of ``model`` with its pytree path, in a fixed order.

    A weight reachable by two paths (a layer used both in a model and in a model nested
    in it) appears once, at the first path in depth-first name order.
    """
    entries, seen, stack = [], set(), [((), model._variable_tree())]
    while stack:
        prefix, tree = stack.pop()
        for name in sorted(tree, reverse=True):
            node = tree[name]
            if isinstance(node, dict):
                stack.append((prefix + (name,), node))
            elif id(node) not in seen:  # a layer shared at two nesting levels: once
                seen.add(id(node))
                entries.append(WeightEntry(prefix + (name,), node, _is_trainable(node, model),
                                           _is_written(node, model)))
    return entries


def _is_trainable(variable, model) -> bool:
    """``variable in model.trainable_weights``, without listing them, unless a step writes
    it with its gradient (Keras's trainable ``overwrite_with_gradient`` weights: those
    are state, see ``_is_written``)."""
    return bool(variable.trainable and variable.owner.trainable and model.trainable
                and not getattr(variable, "_written_by_gradient", False))


def _is_written(variable, model) -> bool:
    """Whether training writes ``variable`` with its gradient: it is marked so, and its
    layer and ``model`` train (Keras's ``overwrite_with_gradient`` variables are trainable
    ones, so a frozen layer's stay as they are)."""
    return bool(getattr(variable, "_written_by_gradient", False) and variable.owner.trainable
                and model.trainable)


def weight_paths(model) -> list[str]:
    """Every weight's path, its keys joined by "/" (``"encoder/dense/kernel"``)."""
    return ["/".join(e.path) for e in weight_entries(model)]


def set_path(tree: dict, path: tuple, value) -> None:
    for name in path[:-1]:
        tree = tree.setdefault(name, {})
    tree[path[-1]] = value


def get_path(tree, path: tuple, what: str):
    node = tree
    for i, name in enumerate(path):
        if not isinstance(node, dict) or name not in node:
            where = "/".join(path[: i + 1])
            raise KeyError(f"{what} has no entry {where!r} (needed for weight "
                           f"{'/'.join(path)!r}). Make {what} with program.init or "
                           "compiler.variables(model) for this model.")
        node = node[name]
    return node


def split_values(entries, values_of) -> tuple[dict, dict]:
    """``(params, state)`` with ``values_of(entry)`` at each weight's path."""
    params, state = {}, {}
    for entry in entries:
        set_path(params if entry.is_param else state, entry.path, values_of(entry))
    return params, state


def written_by_gradient(entry: WeightEntry) -> bool:
    """Whether a training step writes this state weight with its gradient (a trained float8
    layer's scales and amax histories, as Keras's optimizer overwrites its
    ``overwrite_with_gradient`` variables)."""
    return entry.written


def variables(model) -> tuple[dict, dict]:
    """The model's current weights as ``(params, state)`` pytrees.

    >>> import kgraph as kg
    >>> x = kg.Input(shape=(3,))
    >>> params, state = variables(kg.Model(x, kg.layers.Dense(2, name="out")(x)))
    >>> params["out"]["kernel"].shape
    (3, 2)
    """
    entries = weight_entries(model)
    initial_values.materialize([e.variable for e in entries])  # first values in one batch
    return split_values(entries, lambda e: e.variable.value)


def assign(model, params, state, entries=None) -> None:
    """Write ``params`` and ``state`` back into the model's layers (eager calls see them).

    ``entries``: the ``WeightEntry`` list the trees were made for (a program's, whose
    split into params and state may predate a layer frozen since), else the model's own.
    """
    entries = weight_entries(model) if entries is None else entries
    new = [(e, get_path(params if e.is_param else state, e.path,
                        "params" if e.is_param else "state")) for e in entries]
    for entry, value in new:
        if tuple(jnp.shape(value)) != entry.variable.shape:
            raise ValueError(f"Cannot assign {'/'.join(entry.path)!r}: expected shape "
                             f"{entry.variable.shape}, received {tuple(jnp.shape(value))}.")
    for entry, value in new:
        entry.variable.assign(value)


def check_weights(entries, params, state, model_name: str, leaves=None) -> None:
    """Raise naming the weight path if ``params``/``state`` do not match the model's weights.

    Checks the structure (dicts with exactly the model's weight paths), then each leaf's
    shape and dtype against its Variable. Runs in Python on shapes only, so under ``jit`` it
    costs nothing per call (it runs once, when the function is traced). ``leaves``: the
    expected ``(path, is_param, shape, dtype, ...)`` of another layout (the stacked one,
    ``compiler.stacking.expected_leaves``) instead of ``entries``'.
    """
    trees = {"params": params, "state": state}
    for what, tree in trees.items():
        if not isinstance(tree, dict):
            raise TypeError(f"{what} of model {model_name!r} must be a nested dict of arrays "
                            f"keyed by layer and weight name (from program.init or "
                            f"compiler.variables), received {type(tree).__name__}.")
    if leaves is None:
        leaves = [(e.path, e.is_param, tuple(e.variable.shape), e.variable.dtype)
                  for e in entries]
    expected = {what: set() for what in trees}
    for path, is_param, want_shape, want_dtype, *_ in leaves:
        what = "params" if is_param else "state"
        expected[what].add(path)
        value = get_path(trees[what], path, what)
        shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
        if shape is None or dtype is None:
            raise TypeError(f"{what}[{'/'.join(path)!r}] of model {model_name!r} must be an "
                            f"array of shape {want_shape} and dtype {want_dtype.name}, "
                            f"received {type(value).__name__}.")
        # a 64-bit weight holds 32-bit values while JAX's 64-bit types are off
        if tuple(shape) != want_shape or jnp.dtype(dtype) not in (
                want_dtype, jax.dtypes.canonicalize_dtype(want_dtype)):
            raise ValueError(f"{what}[{'/'.join(path)!r}] of model {model_name!r}: expected "
                             f"shape {want_shape} and dtype {want_dtype.name}, "
                             f"received shape {tuple(shape)} and dtype {jnp.dtype(dtype).name}.")
    for what, tree in trees.items():
        extra = sorted("/".join(p) for p in _leaf_paths(tree) if p not in expected[what])
        if extra:
            raise ValueError(f"{what} of model {model_name!r} has entries that are not weights "
                             f"of the model: {extra[:5]}{' ...' if len(extra) > 5 else ''}.")


def _leaf_paths(tree, prefix=()):
    for name, node in tree.items():
        if isinstance(node, dict) and node:
            yield from _leaf_paths(node, prefix + (name,))
        else:
            yield prefix + (name,)
