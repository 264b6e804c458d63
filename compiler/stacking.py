"""The stacked layout of the weights: each run of repeated blocks under one key.

A run of identical blocks (``compiler.scan_blocks``) runs as one ``lax.scan`` over its
blocks' weights stacked on a new leading axis. In the *named* layout (``program.init``,
``compiler.variables``) every block keeps its own entry, and each step stacks them; in
the *stacked* layout the run's blocks share one entry, keyed ``"<first>..<last>"`` (the
first and last blocks' layer names), holding one block's weight tree with every leaf
stacked: ``params["block..block_47"]["dense"]["kernel"]`` has shape ``(48, *kernel)``.
Blocks in a nested model are stacked inside its entry:
``params["llama_backbone"]["transformer_layer_0..transformer_layer_23"]``.
Training in the stacked layout (what ``runtime.Trainer`` does) keeps the weights, the
gradients and the optimizer state stacked, so neither the step nor the optimizer update
grows with the number of blocks: a deep model's train step compiles in about the time of
a shallow one's.

``program.stack(params, state)`` and ``program.unstack(params, state)`` convert between
the two; ``program.apply`` accepts either.

>>> import jax, kgraph as kg, compiler
>>> x = kg.Input(shape=(8,))
>>> h = x
>>> for i in range(4):
...     h = kg.layers.Dense(8, name=f"block{i}")(h)
>>> program = compiler.compile(kg.Model(x, h))
>>> params, state = program.stack(*program.init(jax.random.PRNGKey(0)))
>>> sorted(params), params["block0..block3"]["kernel"].shape
(['block0..block3'], (4, 8, 8))
>>> sorted(program.unstack(params, state)[0])
['block0', 'block1', 'block2', 'block3']
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base import initial_values

__all__ = [
    "StackedRun", "block_names", "expected_leaves", "is_stacked", "plan", "stack_tree",
    "stacked_keys", "unstack_tree"
]


class StackedRun(NamedTuple):
    """One run of blocks stored under one key.

    ``key``: its entry in the stacked layout, inside the entry at ``prefix`` (``()`` at
    the top level, ``("backbone",)`` for blocks of a nested model); ``layers``: the
    blocks' layer names, in order; ``weights``: per weight of a block (the template block's ``layer.weights``
    order), its path inside the block and whether it is a param; ``entries``: per block,
    its ``WeightEntry`` of each of those weights; ``first_node``: the run's first node
    (``kgraph.interpreter.block_scan`` finds its stacked weights by it)."""

    key: str
    layers: tuple
    weights: tuple
    entries: tuple
    first_node: object
    prefix: tuple = ()

    @property
    def count(self) -> int:
        return len(self.layers)

    @property
    def path(self) -> tuple:
        """Where the stacked entry is in the weight trees: ``(*prefix, key)``."""
        return (*self.prefix, self.key)

    def held_in(self, tree) -> bool:
        """Whether ``tree`` holds this run stacked (its entry is present)."""
        return _get(tree, self.path) is not None

    def blocks_in(self, tree) -> bool:
        """Whether ``tree`` holds this run's first block under its own name."""
        return _get(tree, (*self.prefix, self.layers[0])) is not None


_BLOCK_NAMES: dict = {}  # stacked key -> the layer names of the runs planned under it


def block_names(key: str) -> list:
    """The blocks' layer names of every run planned (in this process) under the stacked
    ``key``, e.g. ``[("block_0", ..., "block_47")]``; empty for any other name."""
    return sorted(_BLOCK_NAMES.get(key, ()))


def _same_constraint(a, b) -> bool:
    if a is None or b is None:
        return a is b
    config = getattr(a, "get_config", None)
    return type(a) is type(b) and (a is b or (config is not None and
                                               config() == b.get_config()))


def plan(entries, runs) -> list[StackedRun]:
    """The runs among ``runs`` (``compiler.scan_blocks.BlockRun``, whose blocks own their
    weights) that can be stacked: every block's weights live under its own name at the
    run's prefix, at the same paths, with the same constraints."""
    by_variable = {id(e.variable): e for e in entries}
    by_block: dict = {}  # (*prefix, name) -> the entries under it
    for entry in entries:
        for depth in range(1, len(entry.path)):
            by_block.setdefault(entry.path[:depth], []).append(entry)
    taken: dict = {}  # see ``_overlap``
    stacked = []
    for run in runs:
        prefix = tuple(getattr(run, "prefix", ()))
        names = tuple(layer.name for layer in run.layers)
        key = f"{names[0]}..{names[-1]}"
        per_block = []
        for layer in run.layers:
            found = [by_variable.get(id(v)) for v in layer.weights]
            where = (*prefix, layer.name)
            if any(e is None or e.path[:len(where)] != where for e in found):
                break
            per_block.append(tuple(found))
        else:
            depth = len(prefix) + 1
            layout = tuple((e.path[depth:], e.is_param) for e in per_block[0])
            same = all(tuple((e.path[depth:], e.is_param) for e in block) == layout
                       for block in per_block)
            owned = {id(e.variable) for block in per_block for e in block}
            others = [e for name in names for e in by_block.get((*prefix, name), ())
                      if id(e.variable) not in owned]
            constraints_agree = all(
                _same_constraint(block[i].variable.constraint, per_block[0][i].variable.constraint)
                for block in per_block for i in range(len(layout)))
            blocks = {(*prefix, name) for name in names}
            if (same and len({p for p, _ in layout}) == len(layout) and not others
                    and constraints_agree
                    and (*prefix, key) not in by_block and not _overlap(blocks, taken)):
                _take(blocks, taken)
                _BLOCK_NAMES.setdefault(key, set()).add(names)
                stacked.append(StackedRun(key, names, layout, tuple(per_block),
                                          run.nodes[0], prefix))
    return stacked


def _overlap(blocks, taken) -> bool:
    """Whether a block path is, holds or lies inside one already stacked (a run inside
    the blocks of a stacked run stays as it is). ``taken``: every prefix of the stacked
    block paths, each marked whether it is a whole block path."""
    return any(block in taken or any(taken.get(block[:depth])
                                     for depth in range(1, len(block)))
               for block in blocks)


def _take(blocks, taken) -> None:
    for block in blocks:
        for depth in range(1, len(block) + 1):
            taken[block[:depth]] = taken.get(block[:depth], False) or depth == len(block)


def _stack_leaves(leaves, where=None):
    if any(isinstance(leaf, jax.core.Tracer) for leaf in leaves):
        return jnp.stack(leaves)
    if all(isinstance(leaf, jax.ShapeDtypeStruct) for leaf in leaves):
        first = leaves[0]
        return jax.ShapeDtypeStruct((len(leaves), *first.shape), first.dtype)
    if all(isinstance(leaf, np.ndarray) for leaf in leaves):
        return np.stack(leaves)
    devices = {d for leaf in leaves for d in getattr(leaf, "devices", lambda: ())()}
    if len(devices) <= 1 and {d.platform for d in devices} <= {"cpu"}:
        return jnp.asarray(np.stack([np.asarray(leaf) for leaf in leaves]))  # no compile
    return jnp.stack(leaves)


def _split_leaf(leaf, count):
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return [jax.ShapeDtypeStruct(leaf.shape[1:], leaf.dtype)] * count
    if isinstance(leaf, np.ndarray):
        return list(leaf)
    return initial_values.unstack(leaf, count)


def _get(tree, path):
    for name in path:
        if not isinstance(tree, dict) or name not in tree:
            return None
        tree = tree[name]
    return tree


def _set(tree, path, value):
    for name in path[:-1]:
        tree = tree.setdefault(name, {})
    tree[path[-1]] = value


def _copied_down(tree: dict, prefix: tuple):
    """``(copy of tree, the copy's dict at prefix)``: the dicts on the way copied, so the
    caller may change the one at ``prefix`` without touching ``tree``; the second is None
    when ``tree`` has no dict there."""
    out = dict(tree)
    node = out
    for name in prefix:
        child = node.get(name)
        if not isinstance(child, dict):
            return out, None
        node[name] = node = dict(child)
    return out, node


def stack_tree(runs, tree: dict, combine: Callable = _stack_leaves) -> dict:
    """``tree`` (a params or state pytree in the named layout) in the stacked layout:
    each run's blocks' leaves replaced by ``combine([leaf of each block], path)`` under
    the run's key (``path``: the stacked leaf's, ``"block..block_7/dense/kernel"``). Runs
    whose blocks are absent from ``tree`` are left alone."""
    out = tree
    for run in runs:
        if not any(_get(out, (*run.prefix, name)) is not None for name in run.layers):
            continue
        out, level = _copied_down(out, run.prefix)
        missing = [name for name in run.layers if name not in level]
        if missing:
            raise KeyError(f"Cannot stack blocks {'/'.join(run.path)!r}: the tree has no "
                           f"entry {'/'.join((*run.prefix, missing[0]))!r}.")
        group: dict = {}
        for path, _ in run.weights:
            leaves = [_get(level[name], path) for name in run.layers]
            if all(leaf is None for leaf in leaves):
                continue
            if any(leaf is None for leaf in leaves):
                name = run.layers[[leaf is None for leaf in leaves].index(True)]
                raise KeyError(f"Cannot stack blocks {'/'.join(run.path)!r}: no entry "
                               f"{'/'.join((*run.prefix, name, *path))!r}.")
            _set(group, path, combine(leaves, "/".join((*run.path, *path))))
        for name in run.layers:
            del level[name]
        level[run.key] = group
    return out if out is not tree else dict(tree)


def unstack_tree(runs, tree: dict, split: Callable = _split_leaf) -> dict:
    """The inverse of ``stack_tree``: each run's key replaced by its blocks' entries."""
    out = tree
    for run in runs:
        group = _get(tree, run.path)
        if group is None:
            continue
        blocks = [{} for _ in run.layers]
        for path, _ in run.weights:
            leaf = _get(group, path)
            if leaf is None:
                continue
            for block, value in zip(blocks, split(leaf, run.count)):
                _set(block, path, value)
        out, level = _copied_down(out, run.prefix)
        del level[run.key]
        level.update(zip(run.layers, blocks))
    return out if out is not tree else dict(tree)


def is_stacked(runs, params, state) -> bool:
    """Whether ``params``/``state`` are in the stacked layout (any run's key present)."""
    return any(isinstance(tree, dict) and run.held_in(tree)
               for run in runs for tree in (params, state))


def stacked_keys(tree) -> list:
    """The paths (``"backbone/block_0..block_7"``) of the stacked entries in ``tree``
    (keys ``"<first>..<last>"``, at any depth), sorted."""
    found, stack = [], [((), tree)]
    while stack:
        prefix, node = stack.pop()
        if not isinstance(node, dict):
            continue
        for name, child in node.items():
            if isinstance(name, str) and ".." in name:
                found.append("/".join((*prefix, name)))
            else:
                stack.append(((*prefix, name), child))
    return sorted(found)


def expected_leaves(entries, runs):
    """``(path, is_param, shape, dtype, variable)`` of every leaf of the stacked layout
    (``variable``: the weight, or its first block's for a stacked leaf)."""
    stacked = {id(e.variable) for run in runs for block in run.entries for e in block}
    leaves = [(e.path, e.is_param, tuple(e.variable.shape), e.variable.dtype, e.variable)
              for e in entries if id(e.variable) not in stacked]
    for run in runs:
        for (path, is_param), e in zip(run.weights, run.entries[0]):
            leaves.append(((*run.path, *path), is_param, (run.count, *e.variable.shape),
                           e.variable.dtype, e.variable))
    return leaves
