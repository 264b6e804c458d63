"""The weights pytree: nested dicts keyed by layer name, then weight name.

Trainable weights go to ``params``, everything else (BatchNorm statistics, weights of a
layer with ``trainable=False``) to ``state``. A nested model nests:
``params["encoder"]["dense"]["kernel"]``. The tree itself (paths, values, checks) is
``kgraph.base.weight_tree``'s, re-exported here; this module adds what a compiled program
depends on (``graph_signature``).
"""

from __future__ import annotations

from kgraph.base.weight_tree import (WeightEntry, assign, check_weights,  # noqa: F401
                                     get_path, set_path, split_values, variables,
                                     weight_entries, weight_paths, written_by_gradient)

__all__ = ["graph_signature",
           # the tree's names, re-exported
           "WeightEntry", "assign", "check_weights", "get_path", "set_path", "split_values",
           "variables", "weight_entries", "weight_paths", "written_by_gradient"]


def graph_signature(model, entries=None) -> tuple:
    """What a compiled program of ``model`` depends on: the nodes of its graph and of every
    nested graph, and each weight's path, trainability and identity (a rebuilt layer has
    new variables). Two signatures are equal only if the model did not change between them.
    """
    entries = weight_entries(model) if entries is None else entries
    graphs, seen, stack = [], set(), [model]
    while stack:
        layer = stack.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        nodes = layer.__dict__.get("_nodes")
        if nodes is not None:
            graphs.append((layer, tuple(nodes)))
        stack.extend(layer._tracked_layers())
    weights = tuple((e.path, e.variable, e.is_param) for e in entries)
    return _Identity(graphs), _Identity(weights)


class _Identity:
    """Compares nested tuples/lists by the identity of the objects at their leaves (and
    keeps those objects alive, so their ids are never reused)."""

    def __init__(self, value):
        self.value = value
        self.key = _identity_key(value)

    def __eq__(self, other):
        return isinstance(other, _Identity) and self.key == other.key


def _identity_key(value):
    if isinstance(value, (tuple, list)):
        return tuple(_identity_key(v) for v in value)
    if isinstance(value, (str, bool, int)):
        return value
    return id(value)
