"""``ShardingRules``: how each weight is split over a mesh, by its path.

A rule is ``(pattern, PartitionSpec)``. A weight's path is its keys in the params (or
state) pytree joined by "/": ``"dense_1/kernel"``, ``"encoder/dense/kernel"``. A pattern
equal to the path wins; otherwise the patterns that ``re.fullmatch`` the path apply, and
two of them is an error. Everything a mesh could reject is checked here, before anything
runs, naming the weight, its shape and the rule: a spec whose length is not the weight's
rank (``PartitionSpec()``, replicated, fits any rank), a mesh axis the mesh lacks or used twice, a dimension the mesh axes don't divide.
A weight no rule matches is replicated, unless it is larger than
``refuse_unmatched_above`` bytes (then it is an error: a forgotten rule otherwise shows
up much later as running out of memory). A rule that matches no weight of the model is
an error too (a typo would otherwise replicate what it meant to split), unless the rules
say ``allow_unused=True`` (one rule set written for several models).

>>> import jax, numpy as np
>>> from jax.sharding import PartitionSpec as P
>>> mesh = jax.make_mesh((1,), ("model",))
>>> params = {"dense": {"kernel": np.zeros((4, 8)), "bias": np.zeros(8)}}
>>> rules = ShardingRules([(r".*/kernel", P(None, "model"))])
>>> rules.specs(params, mesh)
{'dense': {'bias': P(), 'kernel': P(None, 'model')}}
>>> ShardingRules([("dense/kernel", P("model"))]).specs(params, mesh)
Traceback (most recent call last):
...
ValueError: Weight "dense/kernel" of shape (4, 8): rule ('dense/kernel', P('model',)) has 1 entries for a rank-2 weight; give one entry per dimension (None: not split).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec

from runtime.path_rules import PathRules

__all__ = ["Placement", "ShardingReport", "ShardingRules", "leaf_paths"]


def leaf_paths(tree) -> list[tuple[str, Any]]:
    """``[("dense/kernel", leaf), ...]`` for the array leaves of a nested-dict pytree."""
    found = []
    for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
        names = [str(getattr(k, "key", getattr(k, "name", getattr(k, "idx", k))))
                 for k in path]
        found.append(("/".join(names), leaf))
    return found


def _text(rule) -> str:
    pattern, spec = rule
    return f"({pattern!r}, P{tuple(spec)})"


def _axes(entry) -> tuple:
    if entry is None:
        return ()
    return tuple(entry) if isinstance(entry, (tuple, list)) else (entry,)


class Placement(NamedTuple):
    """One weight's row of a ``ShardingReport``."""

    path: str
    shape: tuple
    dtype: Any
    spec: PartitionSpec
    rule: str | None  # the pattern that matched (None: unmatched, replicated)
    nbytes: int
    bytes_per_device: int


class ShardingReport:
    """Which weights are sharded how, the bytes each device holds, what is replicated.

    ``str(report)`` is a table; ``bytes_per_device`` and ``total_bytes`` count every
    weight; ``fraction_replicated`` is the share of bytes held whole by every device.
    """

    def __init__(self, placements: list[Placement], devices: int):
        self.placements = placements
        self.devices = devices
        self.total_bytes = sum(p.nbytes for p in placements)
        self.bytes_per_device = sum(p.bytes_per_device for p in placements)
        replicated = sum(p.nbytes for p in placements
                         if p.bytes_per_device == p.nbytes)
        self.fraction_replicated = (replicated / self.total_bytes if self.total_bytes
                                    and devices > 1 else 0.0)

    def __str__(self) -> str:
        width = max([len(p.path) for p in self.placements] + [6])
        lines = [f"{'weight':<{width}}  {'shape':<16} {'spec':<28} {'bytes/device':>14}"]
        for p in self.placements:
            spec = str(tuple(p.spec)) if p.rule is not None else "replicated (no rule)"
            lines.append(f"{p.path:<{width}}  {str(p.shape):<16} {spec:<28} "
                         f"{p.bytes_per_device:>14,}")
        lines.append(f"{self.devices} devices; {self.bytes_per_device:,} bytes per device of "
                     f"{self.total_bytes:,}; {self.fraction_replicated:.1%} of the bytes "
                     "replicated")
        return "\n".join(lines)

    __repr__ = __str__


class ShardingRules:
    """Rules from weight paths to ``PartitionSpec``s (see the module docstring).

    Args:
      rules: ``[(pattern, PartitionSpec), ...]`` (a dict works too).
      activations: ``[("dense_1/output", PartitionSpec), ...]``: sharding hints for node
        outputs, applied with ``jax.lax.with_sharding_constraint`` (matched as the rules
        are: exact path, else one pattern).
      refuse_unmatched_above: a weight no rule matches and larger than this many bytes
        is an error (None: any unmatched weight is replicated).
      allow_unused: rules that match no weight of a model are fine (a rule set shared by
        several models); by default they are an error naming them.
      split_activations: every layer output whose leading dimension is the batch's is
        constrained to be split over the data axis as the batch is (MaxText's batch axis
        of activations): XLA's partitioner otherwise may gather a batch where a weight is
        split on another dimension (an embedding table split on its features) and keep
        every later activation whole on each device. A node's explicit ``activations``
        hint constrains its outputs after this one.
    """

    def __init__(self, rules=(), *, activations=(), refuse_unmatched_above: int | None = None,
                 allow_unused: bool = False, split_activations: bool = False):
        rules = list(rules.items() if isinstance(rules, dict) else rules)
        for index, rule in enumerate(rules):
            if (not isinstance(rule, (tuple, list)) or len(rule) != 2
                    or not isinstance(rule[0], str)
                    or not isinstance(rule[1], PartitionSpec)):
                raise TypeError(f"Sharding rule {index} must be (pattern, PartitionSpec), "
                                f"received {_text(rule)}.")
        self.rules = [(pattern, spec) for pattern, spec in rules]
        self.activations = dict(activations.items() if isinstance(activations, dict)
                                else activations)
        self.refuse_unmatched_above = refuse_unmatched_above
        self.allow_unused = bool(allow_unused)
        self.split_activations = bool(split_activations)
        self._matcher = PathRules(self.rules, "sharding", subject="weight",
                                  allow_unused=allow_unused, describe=_text)

    def __repr__(self) -> str:
        return f"ShardingRules({self.rules!r})"

    # ------------------------------------------------------------- matching
    def match(self, path: str):
        """The ``(pattern, spec)`` rule for ``path``, or None (``runtime.path_rules``)."""
        return self._matcher.match(path)

    def check_used(self, paths, model_name: str) -> None:
        """A ValueError naming every rule that matches none of the weight ``paths`` of
        model ``model_name`` (unless ``allow_unused``)."""
        if self.allow_unused:
            return
        unused = [_text(rule) for rule in self._matcher.unused(paths)]
        if unused:
            shown = ", ".join(f'"{p}"' for p in list(paths)[:4])
            raise ValueError(f"Sharding rules {', '.join(unused)} match no weight of model "
                             f"{model_name!r}, whose weight paths are like {shown}. Fix the "
                             "patterns, or pass ShardingRules(..., allow_unused=True) for a "
                             "rule set written for several models.")

    def _place(self, path, leaf, mesh) -> Placement:
        shape, dtype = tuple(np.shape(leaf)), np.dtype(getattr(leaf, "dtype", np.float32))
        itemsize = dtype.itemsize
        nbytes = int(np.prod(shape, dtype=np.int64)) * itemsize
        rule = self.match(path)
        where = f'Weight "{path}" of shape {shape}'
        if rule is None:
            limit = self.refuse_unmatched_above
            if limit is not None and nbytes > limit:
                raise ValueError(f"{where} ({nbytes:,} bytes) matches no sharding rule, and "
                                 f"unmatched weights above {limit:,} bytes are refused: add "
                                 "a rule for it (PartitionSpec() replicates it on purpose).")
            return Placement(path, shape, dtype, PartitionSpec(), None, nbytes, nbytes)
        pattern, spec = rule
        if len(spec) == 0:  # PartitionSpec(): replicated, whatever the rank
            return Placement(path, shape, dtype, spec, pattern, nbytes, nbytes)
        if len(spec) != len(shape):
            raise ValueError(f"{where}: rule {_text(rule)} has {len(spec)} entries for a rank-"
                             f"{len(shape)} weight; give one entry per dimension (None: not "
                             "split).")
        used, split = [], 1
        for dim, (size, entry) in enumerate(zip(shape, spec)):
            axes = _axes(entry)
            for axis in axes:
                if axis not in mesh.shape:
                    raise ValueError(f"{where}: rule {_text(rule)} names mesh axis {axis!r}, but "
                                     f"the mesh has axes {dict(mesh.shape)}.")
                if axis in used:
                    raise ValueError(f"{where}: rule {_text(rule)} uses mesh axis {axis!r} twice.")
                used.append(axis)
            parts = math.prod(mesh.shape[a] for a in axes)
            if size % parts:
                raise ValueError(f"{where}: rule {_text(rule)} splits dimension {dim} (size "
                                 f"{size}) into {parts} parts over mesh axes {axes}, which "
                                 "does not divide it.")
            split *= parts
        return Placement(path, shape, dtype, spec, pattern, nbytes, nbytes // split)

    # -------------------------------------------------------------- results
    def placements(self, tree, mesh) -> list[Placement]:
        """Where each leaf of ``tree`` goes (paths relative to ``tree``)."""
        return [self._place(path, leaf, mesh) for path, leaf in leaf_paths(tree)]

    def specs(self, tree, mesh):
        """The ``PartitionSpec`` of every leaf of ``tree`` (arrays or ShapeDtypeStructs)."""
        placements = iter(self.placements(tree, mesh))
        return jax.tree_util.tree_map(lambda _: next(placements).spec, tree)

    def shardings(self, tree, mesh):
        """``NamedSharding``s on ``mesh`` for every leaf of ``tree`` (specs without trailing
        Nones, as compiled steps return them: the same sharding compares equal, so the
        steps' compile cache hits)."""
        def sharding(spec):
            entries = list(spec)
            while entries and entries[-1] is None:
                entries.pop()
            return NamedSharding(mesh, PartitionSpec(*entries))

        return jax.tree_util.tree_map(sharding, self.specs(tree, mesh),
                                      is_leaf=lambda x: isinstance(x, PartitionSpec))

    def report(self, params, mesh, state=None) -> ShardingReport:
        """A ``ShardingReport`` of the weights ``params`` (and ``state``) on ``mesh``."""
        placements = self.placements(params, mesh)
        if state is not None:
            placements += self.placements(state, mesh)
        return ShardingReport(placements, mesh.size)
