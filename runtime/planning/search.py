"""The automatic choice: ``plan(..., remat="auto", sharding="auto", scan_blocks="auto",
gradient_accumulation_steps="auto")`` and a batch whose rows are left open (``None``).

Each candidate is compiled for the topology (XLA's memory analysis decides what fits) and
ranked by the MFU of its estimated step time (``roofline``); the best that fits is
returned, with every candidate tried in ``Plan.candidates``. What is searched, and how the
search prunes (a 7B model's step takes minutes to compile, so the search compiles few):

1. Shardings, in order ``fsdp``, ``fsdp+tp2``, ``fsdp+tp4``, ``fsdp+tp8`` (``dp`` too
   when a replica of the weights and optimizer state fits in a chip); a tensor-parallel
   axis is tried only while the shardings before it needed remat or did not fit (it
   spends interconnect bandwidth to save activation memory), and not past the first that
   fits without remat.
2. For each sharding, remat from none to ``dots_saveable`` to ``nothing_saveable``,
   stopping at the first that fits: more remat only adds recomputation.
3. Scanned or unrolled blocks: the best candidate is compiled again with the other form
   (one more compile).
4. Micro-batching, only when no candidate fits: the batch split in 2, 4, 8, ... with the
   optimizer accumulating gradients over the parts (``gradient_accumulation_steps``).
5. Rows left open (a leading ``None`` in the batch's shapes): rows per data-parallel
   chip 1, 2, 4, ... with the best settings found for 1, while the step fits and its MFU
   grows.
"""

from __future__ import annotations

import dataclasses

import jax

from runtime.planning.shapes import is_shape

__all__ = ["AUTO", "auto_plan", "wants_search"]

AUTO = "auto"
_REMATS = (False, "dots_saveable", "nothing_saveable")
_TENSOR_PARALLEL = (2, 4, 8)


def _open_rows(batch) -> bool:
    return any(is_shape(leaf) and leaf and leaf[0] is None
               for leaf in jax.tree_util.tree_leaves(batch, is_leaf=is_shape))


def wants_search(batch, **settings) -> bool:
    """Whether ``plan`` should search: a setting is ``"auto"`` or the rows are open."""
    return any(value == AUTO for value in settings.values() if isinstance(value, str)) or (
        _open_rows(batch))


def _resized(batch, rows: int):
    """``batch`` with ``rows`` rows: shape tuples, ``ShapeDtypeStruct``s and arrays."""
    def resize(leaf):
        if is_shape(leaf):
            return (rows, *leaf[1:])
        return jax.ShapeDtypeStruct((rows, *leaf.shape[1:]), leaf.dtype)

    return jax.tree_util.tree_map(resize, batch, is_leaf=is_shape)


def _rows(batch) -> int | None:
    for leaf in jax.tree_util.tree_leaves(batch, is_leaf=is_shape):
        shape = leaf if is_shape(leaf) else getattr(leaf, "shape", None)
        if shape:
            return shape[0]
    return None


@dataclasses.dataclass
class _Search:
    plan_one: object  # plan(model, **settings) -> Plan, one configuration
    tried: list = dataclasses.field(default_factory=list)

    def run(self, **settings):
        result = self.plan_one(**settings)
        self.tried.append(result)
        return result


def _better(a, b):
    """The better of two plans: fitting first, then the higher estimated MFU (then the
    fewer bytes per chip)."""
    if b is None or (a.fits and not b.fits):
        return a
    if b.fits and not a.fits:
        return b
    key = lambda p: ((p.mfu or 0.0), -(p.total or 0))  # noqa: E731
    return a if key(a) > key(b) else b


def _best_for_rows(search: _Search, base: dict, chips: int, replica_fits: bool):
    """The best plan for one batch: shardings x remat (pruned), then the other block form,
    then micro-batching when nothing fits."""
    shardings = base["sharding"]
    remats = base["remat"]
    scan = base["scan_blocks"]
    base = {**base, "scan_blocks": True if scan == AUTO else scan}
    best = None
    if shardings == AUTO:
        order = (["dp"] if replica_fits else []) + ["fsdp"] + [
            f"fsdp+tp{tp}" for tp in _TENSOR_PARALLEL if chips % tp == 0 and chips > tp]
    else:
        order = [shardings]
    for sharding in order:
        levels = _REMATS if remats == AUTO else (remats,)
        found = None
        for remat in levels:
            found = search.run(**{**base, "sharding": sharding, "remat": remat})
            if found.fits:
                break
        best = _better(found, best)
        if (sharding.startswith("fsdp") and found.fits and found.settings.get("remat")
                in (None, False) and shardings == AUTO):
            break  # fits without remat: more tensor parallelism only adds collectives
    if scan == AUTO and best.fits:
        other = search.run(**{**base, "sharding": best.settings["sharding"],
                              "remat": best.settings["remat"],
                              "scan_blocks": not best.settings["scan_blocks"]})
        best = _better(other, best)
    return best


def auto_plan(plan_one, *, batch, chips, replica_bytes, capacity, **settings):
    """The best plan the search finds (see the module docstring), with ``candidates``:
    every plan compiled on the way, in order."""
    search = _Search(plan_one)
    accumulation = settings.pop("gradient_accumulation_steps")
    replica_fits = capacity is None or replica_bytes < capacity

    def best_for(rows_batch):
        base = {**settings, "gradient_accumulation_steps": None if accumulation == AUTO
                else accumulation}
        best = _best_for_rows(search, {**base, "batch": rows_batch}, chips, replica_fits)
        if best.fits or accumulation != AUTO:
            return best
        rows = _rows(rows_batch)
        parts = 2
        while rows and rows % parts == 0 and rows // parts >= 1:
            found = _best_for_rows(search, {**base, "batch": _resized(rows_batch, rows // parts),
                                            "gradient_accumulation_steps": parts}, chips,
                                   replica_fits)
            if found.fits:
                return found
            parts *= 2
        return best

    if _open_rows(batch):
        per_chip = 1
        best = best_for(_resized(batch, per_chip * chips))
        fixed = {k: best.settings.get(k) for k in ("sharding", "remat", "scan_blocks")}
        fixed["remat"] = fixed["remat"] or False  # none (not the compiled model's)
        while best.fits:
            per_chip *= 2
            found = search.run(**{**settings, **fixed, "batch": _resized(
                batch, per_chip * chips), "gradient_accumulation_steps": None})
            if not found.fits or (found.mfu or 0) <= (best.mfu or 0) * 1.01:
                break
            best = found
    else:
        best = best_for(batch)
    best.candidates = list(search.tried)
    return best
