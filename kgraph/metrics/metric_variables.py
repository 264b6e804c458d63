"""A metric's state as Keras's ``metric.variables``: its arrays in Keras's order, by name.

kgraph's metric states are pytrees (dicts of arrays), which JAX flattens in sorted key
order (and rebuilds as sorted dicts, under ``jit`` or ``tree_map``). Keras lists a
metric's variables in the order the metric made them (``Precision``: ``true_positives``,
then ``false_positives``). ``state_leaves`` and ``state_from_leaves`` flatten and rebuild a
state with the dict entries named in ``order`` first, in that order (the rest after, in
sorted order), so a state's arrays line up one to one with Keras's variables
(``stateless_update_state``, ``model.metrics_variables``).

>>> import jax.numpy as jnp
>>> state = {"true_positives": jnp.ones(1), "false_positives": jnp.zeros(1)}
>>> order = ("true_positives", "false_positives")
>>> [float(v[0]) for v in state_leaves(state, order)], leaf_names(state, order)
([1.0, 0.0], ['true_positives', 'false_positives'])
>>> rebuilt = state_from_leaves(state, [jnp.full(1, 2.0), jnp.full(1, 3.0)], order)
>>> float(rebuilt["false_positives"][0])
3.0
"""

from __future__ import annotations

import jax

__all__ = ["leaf_names", "state_from_leaves", "state_leaves"]

_DictKey, _SequenceKey = jax.tree_util.DictKey, jax.tree_util.SequenceKey


def _flattened(state, order):
    """``(paths, leaves, treedef, positions)``: ``positions[i]`` is the JAX position of
    the ``i``-th leaf in Keras's order."""
    with_paths, treedef = jax.tree_util.tree_flatten_with_path(state)
    paths = [path for path, _ in with_paths]
    leaves = [leaf for _, leaf in with_paths]
    ranks = []
    for path in paths:
        rank = []
        for key in path:
            if isinstance(key, _DictKey):
                rank.append((order.index(key.key) if key.key in order else len(order),
                             str(key.key)))
            elif isinstance(key, _SequenceKey):
                rank.append((key.idx, ""))
            else:  # another kind of pytree node: JAX's own order
                return paths, leaves, treedef, list(range(len(leaves)))
        ranks.append(tuple(rank))
    return paths, leaves, treedef, sorted(range(len(leaves)), key=ranks.__getitem__)


def state_leaves(state, order=()) -> list:
    """The arrays of ``state``, the dict entries named in ``order`` first."""
    _, leaves, _, positions = _flattened(state, tuple(order))
    return [leaves[i] for i in positions]


def state_from_leaves(template, leaves, order=()):
    """A state shaped as ``template`` holding ``leaves`` (in ``state_leaves``' order)."""
    _, old, treedef, positions = _flattened(template, tuple(order))
    leaves = list(leaves)
    if len(leaves) != len(old):
        raise ValueError(f"A state of {len(old)} arrays was expected; received "
                         f"{len(leaves)}.")
    placed = [None] * len(leaves)
    for leaf, position in zip(leaves, positions):
        placed[position] = leaf
    return jax.tree_util.tree_unflatten(treedef, placed)


def leaf_names(state, order=(), default="variable") -> list:
    """The name of each array of ``state`` (in ``state_leaves``' order): the key of the
    dict entry that holds it, else ``default``."""
    paths, _, _, positions = _flattened(state, tuple(order))
    names = []
    for i in positions:
        keys = [key.key for key in paths[i] if isinstance(key, _DictKey)]
        names.append(str(keys[-1]) if keys else default)
    return names
