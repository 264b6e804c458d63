"""Sharding presets: the mesh and the weights' rules a user would write by hand.

- ``"dp"``: every weight on every chip; the batch split over all of them.
- ``"fsdp"``: each weight split over all chips on its largest dimension they divide
  (fully sharded data parallelism: weights, gradients and optimizer state are 1/n per
  chip, gathered layer by layer); the batch split over all chips.
- ``"fsdp+tp"`` (``tp`` chips per model-parallel group, 2 by default: ``"fsdp+tp4"``):
  a ``("fsdp", "model")`` mesh; each weight of rank 2 or more is split on its last
  dimension over ``"model"`` (when it divides) and on its largest other dimension over
  ``"fsdp"``; the batch over ``"fsdp"``.

Every preset also keeps the activations split as the batch is
(``ShardingRules(split_activations=True)``).
"""

from __future__ import annotations

import re

from jax.sharding import PartitionSpec

from runtime.sharding.rules import ShardingRules, leaf_paths

__all__ = ["PRESETS", "preset_layout"]

PRESETS = ("dp", "fsdp", "fsdp+tp")


def _largest_divisible(shape, size, skip=()):
    """The largest dimension of ``shape`` that ``size`` divides (None: none does)."""
    best = None
    for i, d in enumerate(shape):
        if i not in skip and d % size == 0 and d >= size and (best is None or d > shape[best]):
            best = i
    return best


def _spec(shape, fsdp: int, tp: int) -> PartitionSpec:
    entries = [None] * len(shape)
    skip = ()
    if tp > 1 and len(shape) >= 2 and shape[-1] % tp == 0:
        entries[-1] = "model"
        skip = (len(shape) - 1,)
    if fsdp > 1:
        i = _largest_divisible(shape, fsdp, skip)
        if i is not None:
            entries[i] = "fsdp"
    return PartitionSpec(*entries)


def _parse(preset: str) -> tuple[str, int]:
    """``(kind, tensor-parallel size)`` of a preset name."""
    match = re.fullmatch(r"(dp|fsdp)(?:\+tp(\d*))?", preset)
    if not match or (match.group(1) == "dp" and match.group(2) is not None):
        raise ValueError(f"Unknown sharding preset {preset!r}: use one of 'dp', 'fsdp', "
                         "'fsdp+tp' (two chips per model-parallel group) or 'fsdp+tpN', "
                         "or pass runtime.ShardingRules with mesh=.")
    tp = 1 if "+tp" not in preset else int(match.group(2) or 2)
    return match.group(1), tp


def preset_layout(preset: str, chips: int, params) -> tuple[dict, ShardingRules]:
    """``(mesh shape, rules)`` of ``preset`` for ``chips`` devices and the named
    ``params`` (abstract: only shapes are read; one exact rule per weight)."""
    kind, tp = _parse(preset)
    if chips % tp:
        raise ValueError(f"sharding {preset!r}: {chips} chips can't form groups of {tp}.")
    if kind == "dp":
        return {"data": chips}, ShardingRules(split_activations=True)
    fsdp = chips // tp
    shape = {"fsdp": fsdp, "model": tp} if tp > 1 else {"fsdp": fsdp}
    rules = [(path, _spec(tuple(leaf.shape), fsdp, tp)) for path, leaf in leaf_paths(params)]
    return shape, ShardingRules([(re.escape(path), spec) for path, spec in rules
                                 if any(e is not None for e in spec)], allow_unused=True,
                                split_activations=True)
