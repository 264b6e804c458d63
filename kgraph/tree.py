"""``keras.tree``: nested structures (lists, tuples, dicts, namedtuples) on JAX's pytrees.

As in Keras, ``None`` is a leaf and dicts are visited in sorted key order.

>>> flatten({"b": [1, 2], "a": None})
[None, 1, 2]
>>> map_structure(lambda x: x * 10, (1, [2, 3]))
(10, [20, 30])
>>> pack_sequence_as({"a": 0, "b": (0, 0)}, [1, 2, 3])
{'a': 1, 'b': (2, 3)}
"""

from __future__ import annotations

import collections.abc
import re

import jax

__all__ = ["MAP_TO_NONE", "assert_same_paths", "assert_same_structure", "flatten",
           "flatten_with_path", "is_nested", "lists_to_tuples", "map_shape_structure",
           "map_structure", "map_structure_up_to", "pack_sequence_as", "traverse"]


class _MapToNone:
    """Returned by a ``traverse`` function to replace a subtree by None."""


MAP_TO_NONE = _MapToNone()
_tree = jax.tree_util


def _is_leaf(x) -> bool:
    return x is None


def is_nested(structure) -> bool:
    """True for lists, tuples, dicts and namedtuples (Keras's nested structures)."""
    return isinstance(structure, (list, tuple, dict, collections.abc.Mapping))


def flatten(structure) -> list:
    """The leaves of ``structure`` in Keras's order."""
    return _tree.tree_leaves(structure, is_leaf=_is_leaf)


def _path_key(entry):
    for attribute in ("key", "idx", "name"):
        if hasattr(entry, attribute):
            return getattr(entry, attribute)
    return entry


def flatten_with_path(structure) -> list:
    """``[(path, leaf), ...]`` with paths as tuples of keys and indices."""
    pairs = _tree.tree_flatten_with_path(structure, is_leaf=_is_leaf)[0]
    return [(tuple(_path_key(e) for e in path), leaf) for path, leaf in pairs]


def map_structure(func, *structures):
    """``func`` applied leaf by leaf over structures of the same shape."""
    if len(structures) > 1:
        assert_same_structure(*structures)
    return _tree.tree_map(func, *structures, is_leaf=_is_leaf)


def map_structure_up_to(shallow_structure, func, *structures):
    """``func`` applied to the subtrees of ``structures`` at ``shallow_structure``'s leaves."""
    shallow = _tree.tree_structure(shallow_structure, is_leaf=_is_leaf)
    parts = [shallow.flatten_up_to(s) for s in structures]
    return shallow.unflatten([func(*args) for args in zip(*parts)])


def pack_sequence_as(structure, flat_sequence):
    """``flat_sequence``'s items placed into ``structure``'s shape."""
    treedef = _tree.tree_structure(structure, is_leaf=_is_leaf)
    flat = list(flat_sequence)
    if treedef.num_leaves != len(flat):
        raise ValueError(f"The structure has {treedef.num_leaves} leaves but the flat "
                         f"sequence has {len(flat)} items.")
    return treedef.unflatten(flat)


def assert_same_structure(a, b=None, *more, check_types=True) -> None:
    """Raise ValueError unless all structures nest the same way."""
    structures = [a] + ([] if b is None else [b]) + list(more)
    first = _tree.tree_structure(structures[0], is_leaf=_is_leaf)
    for other in structures[1:]:
        second = _tree.tree_structure(other, is_leaf=_is_leaf)
        if first != second and (check_types or first.num_leaves != second.num_leaves):
            raise ValueError(f"The two structures don't have the same nested structure: "
                             f"{first} and {second}.{_expected_container(first, other)}")


def _expected_container(treedef, other) -> str:
    """Where ``other`` lacks a container ``treedef`` has: " Expected an instance of
    <type> ..." (as optree words it), else ""."""
    try:
        treedef.flatten_up_to(other)
    except (TypeError, ValueError) as error:
        found = re.search(r"^Expected (.+?), got|expected type: <class '([\w.]+)'>",
                          str(error))
        if found:
            return (f" Expected an instance of {found[1] or found[2]} in the second "
                    "structure.")
    return ""


def assert_same_paths(a, b) -> None:
    """Raise ValueError unless both structures have the same leaf paths."""
    paths_a = {p for p, _ in flatten_with_path(a)}
    paths_b = {p for p, _ in flatten_with_path(b)}
    if paths_a != paths_b:
        raise ValueError(f"The structures have different paths: only in the first "
                         f"{sorted(map(str, paths_a - paths_b))}, only in the second "
                         f"{sorted(map(str, paths_b - paths_a))}.")


def lists_to_tuples(structure):
    """``structure`` with every list turned into a tuple."""
    if isinstance(structure, list):
        return tuple(lists_to_tuples(x) for x in structure)
    if isinstance(structure, tuple) and not hasattr(structure, "_fields"):
        return tuple(lists_to_tuples(x) for x in structure)
    if isinstance(structure, dict):
        return {k: lists_to_tuples(v) for k, v in structure.items()}
    return structure


def _is_shape(x) -> bool:
    return isinstance(x, (tuple, list)) and all(d is None or isinstance(d, int) for d in x)


def map_shape_structure(func, structure):
    """``func`` applied to each shape (a tuple of ints/None) in a nested structure."""
    if _is_shape(structure):
        return func(tuple(structure))
    if isinstance(structure, dict):
        return {k: map_shape_structure(func, v) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(map_shape_structure(func, v) for v in structure)
    return func(structure)


def traverse(func, structure, top_down=True):
    """Visit every subtree: ``func(subtree)`` returning None keeps going (or rebuilds from
    the children, bottom-up); any other value replaces the subtree (``MAP_TO_NONE``: None)."""
    def visit(node):
        if top_down:
            result = func(node)
            if result is not None:
                return None if result is MAP_TO_NONE else result
        if isinstance(node, dict):
            rebuilt = {k: visit(v) for k, v in node.items()}
        elif isinstance(node, (list, tuple)) and not hasattr(node, "_fields"):
            rebuilt = type(node)(visit(v) for v in node)
        else:
            rebuilt = node
        if not top_down:
            result = func(rebuilt)
            if result is not None:
                return None if result is MAP_TO_NONE else result
        return rebuilt

    return visit(structure)
