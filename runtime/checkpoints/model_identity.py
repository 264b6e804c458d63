"""What a checkpoint records of its model, so it restores into a rebuilt one.

The weights pytrees are keyed by layer name. kgraph gives a rebuilt model the same
automatic names (``kgraph.base.naming``), but names given by hand, or kept from a model a
layer joined first, may differ between two builds of one architecture. A checkpoint
therefore records the model's layers in order (``layer_tree``) and a hash of its config
with every layer name replaced by its position (``config_hash``): two builds of one
architecture hash equal whatever their names, and ``rename`` maps a pytree's keys from
one build's names to the other's, at every depth (the optimizer state mirrors the params).

>>> import kgraph as kg
>>> def build(first, second):
...     x = kg.Input(shape=(3,))
...     return kg.Model(x, kg.layers.Dense(2, name=second)(kg.layers.Dense(4, name=first)(x)))
>>> a, b = build("a1", "a2"), build("b1", "b2")
>>> config_hash(a) == config_hash(b), config_hash(a) == config_hash(build("a1", "a1_"))
(True, True)
>>> mapping = renames(layer_tree(a), layer_tree(b))
>>> mapping
{'input_layer': 'input_layer', 'a1': 'b1', 'a2': 'b2'}
>>> rename({"params": {"a1": {"w": 1}, "a2": {"w": 2}}}, mapping)
{'params': {'b1': {'w': 1}, 'b2': {'w': 2}}}
"""

from __future__ import annotations

import hashlib
import json

import jax

__all__ = ["config_hash", "inverse", "is_identity", "layer_tree", "rename", "renames"]


def layer_tree(model) -> list:
    """``[[name, class_name, children], ...]`` in ``model.operations`` order (``ops`` nodes
    too; nested models give their own nodes as children)."""
    nodes = getattr(model, "operations", None)
    return [[layer.name, type(layer).__name__,
             layer_tree(layer) if hasattr(layer, "layers") and layer is not model else []]
            for layer in (nodes if nodes is not None else getattr(model, "layers", []))]


def _names(tree, found):
    for name, _cls, children in tree:
        found.append(name)
        _names(children, found)
    return found


def config_hash(model) -> str:
    """SHA-256 of the model's config with layer names replaced by their positions."""
    try:
        config = json.loads(model.to_json())
    except (AttributeError, NotImplementedError, TypeError, ValueError):
        # A model whose config can't be written (custom classes): its layer structure.
        config = [[cls, len(children)] for _n, cls, children in layer_tree(model)]
    positions = {name: f"<layer {i}>" for i, name in
                 enumerate(_names(layer_tree(model), [model.name]))}

    def canonical(value):
        if isinstance(value, str):
            return positions.get(value, value)
        if isinstance(value, dict):
            return {canonical(k): canonical(v) for k, v in value.items()}
        if isinstance(value, list):
            return [canonical(v) for v in value]
        return value

    text = json.dumps(canonical(config), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def renames(saved: list, current: list) -> dict:
    """``{saved_name: current_name}`` pairing layers by position (level by level; a nested
    model's map sits under ``(name, "children")``); raises if the structures differ."""
    if len(saved) != len(current) or any(
            s[1] != c[1] for s, c in zip(saved, current)):
        raise ValueError(
            "The checkpoint was written for a model with other layers: it has "
            f"{[s[1] for s in saved]}, this model has {[c[1] for c in current]}.")
    mapping = {}
    for (s_name, _cls, s_children), (c_name, _c, c_children) in zip(saved, current):
        mapping[s_name] = c_name
        if s_children or c_children:
            mapping[(s_name, "children")] = renames(s_children, c_children)
    return mapping


def is_identity(mapping: dict) -> bool:
    return all(is_identity(v) if isinstance(k, tuple) else k == v
               for k, v in mapping.items())


def inverse(mapping: dict) -> dict:
    """The map back: current names to saved ones, level by level."""
    result = {}
    for key, value in mapping.items():
        if isinstance(key, tuple):
            result[(mapping[key[0]], "children")] = inverse(value)
        else:
            result[value] = key
    return result


def _renamed_key(key, mapping):
    """A layer name's new name; a stacked run's key (``"first..last"``, see
    ``compiler.stacking``) renamed by its first and last blocks; None if neither."""
    if not isinstance(key, str):
        return None
    if key in mapping:
        return mapping[key]
    first, dots, last = key.partition("..")
    if dots and first in mapping and last in mapping:
        return f"{mapping[first]}..{mapping[last]}"
    return None


def rename(tree, mapping: dict):
    """``tree`` with dict keys renamed by ``mapping`` wherever a dict's keys are all layer
    names of the mapping's level (descending into nested models' maps under them)."""
    if isinstance(tree, dict):
        new = {k: _renamed_key(k, mapping) for k in tree}
        if tree and all(name is not None for name in new.values()):
            return {new[k]: rename(v, mapping.get((k.partition("..")[0], "children"),
                                                  mapping))
                    for k, v in tree.items()}
        return {k: rename(v, mapping) for k, v in tree.items()}
    children, treedef = jax.tree_util.tree_flatten(
        tree, is_leaf=lambda node: node is not tree)
    if treedef.num_leaves == 1 and treedef.num_nodes == 1:  # a leaf
        return tree
    return jax.tree_util.tree_unflatten(treedef, [rename(c, mapping) for c in children])
