"""The collectives of a compiled program, read from its optimized HLO text.

Each all-gather, all-reduce, reduce-scatter, all-to-all and collective-permute is counted
each time it runs in one step (``hlo_program``: a collective in the body of the scan over
32 repeated blocks counts 32 times; collectives XLA fused count too), with the bytes of
its result (an asynchronous pair, ``-start`` and ``-done``, once) and the bytes each chip
sends for it over the interconnect (a ring's: all-gather and reduce-scatter move the
gathered array once, an all-reduce twice, a permute or all-to-all its result).

>>> hlo = '''
... ENTRY %main (p: bf16[64,512]) -> bf16[1024,512] {
...   %p = bf16[64,512]{1,0} parameter(0)
...   %ag = bf16[1024,512]{1,0} all-gather(%p), dimensions={0}
...   %ar = (f32[8]{0}, f32[4]{0}) all-reduce-start(f32[8]{0} %a, f32[4]{0} %b)
...   %ard = (f32[8]{0}, f32[4]{0}) all-reduce-done(%ar)
... }
... '''
>>> found = collectives(HloProgram(hlo))
>>> {kind: (entry["count"], entry["bytes"]) for kind, entry in found.items()}
{'all-gather': (1, 1048576), 'all-reduce': (1, 48)}
>>> found["all-reduce"]["sent"]
96
"""

from __future__ import annotations

from runtime.planning.hlo_program import HloProgram, array_bytes

__all__ = ["KINDS", "collectives"]

KINDS = ("all-gather", "all-reduce", "reduce-scatter", "all-to-all", "collective-permute")
_SENT_PER_BYTE = {"all-reduce": 2}  # reduce-scatter then all-gather, of the result


def collectives(program: HloProgram) -> dict:
    """``{kind: {"count": runs, "bytes": result bytes, "sent": bytes sent per chip}}`` of
    the collectives ``program`` runs per step (kinds it does not run are left out)."""
    found: dict = {}
    for instruction, times, computation in program.executed():
        kind = instruction.opcode.removesuffix("-start")
        if kind not in KINDS:
            continue
        entry = found.setdefault(kind, {"count": 0, "bytes": 0, "sent": 0})
        size = array_bytes(instruction.result)
        if kind == "reduce-scatter":  # a ring moves the whole array being scattered
            size_sent = sum(array_bytes(t) for t in program.operand_types(instruction,
                                                                            computation))
        else:
            size_sent = size * _SENT_PER_BYTE.get(kind, 1)
        entry["count"] += times
        entry["bytes"] += times * size
        entry["sent"] += times * size_sent
    return {kind: found[kind] for kind in KINDS if kind in found}
