"""The collectives of a compiled program, read from its optimized HLO text.

Each all-gather, all-reduce, reduce-scatter, all-to-all and collective-permute is counted
each time it runs in one step (``hlo_program``: a collective in the body of the scan over
32 repeated blocks counts 32 times; collectives XLA fused count too), with the bytes of
its result (an asynchronous pair, ``-start`` and ``-done``, once) and the bytes each chip
sends for it over the interconnect (a ring's: all-gather and reduce-scatter move the
gathered array once, an all-reduce twice, a permute or all-to-all its result). XLA's TPU
compiler splits an asynchronous collective over a chain of fusions that overlap it with
compute, each holding a copy of it with the collective's ``channel_id``: the copies are
one collective, run as often as the least-run of them (a chain that starts before a loop
and goes on in its body runs once).

>>> hlo = '''
... ENTRY %main (p: bf16[64,512]) -> bf16[1024,512] {
...   %p = bf16[64,512]{1,0} parameter(0)
...   %ag = bf16[1024,512]{1,0} all-gather(%p), dimensions={0}
...   %ar = (f32[8]{0}, f32[4]{0}) all-reduce-start(f32[8]{0} %a, f32[4]{0} %b)
...   %ard = (f32[8]{0}, f32[4]{0}) all-reduce-done(%ar)
...   %f1 = bf16[1024,512]{1,0} fusion(%p), kind=kLoop, calls=%chain
...   %f2 = bf16[1024,512]{1,0} fusion(%p), kind=kLoop, calls=%chain.1
... }
... %chain (q: bf16[64,512]) -> bf16[1024,512] {
...   %q = bf16[64,512]{1,0} parameter(0)
...   ROOT %ag2 = bf16[1024,512]{1,0} all-gather(%q), channel_id=7, dimensions={0}
... }
... %chain.1 (q: bf16[64,512]) -> bf16[1024,512] {
...   %q = bf16[64,512]{1,0} parameter(0)
...   ROOT %ag3 = bf16[1024,512]{1,0} all-gather(%q), channel_id=7, dimensions={0}
... }
... '''
>>> found = collectives(HloProgram(hlo))
>>> {kind: (entry["count"], entry["bytes"]) for kind, entry in found.items()}
{'all-gather': (2, 2097152), 'all-reduce': (1, 48)}
>>> found["all-reduce"]["sent"]
96
"""

from __future__ import annotations

import re

from runtime.planning.hlo_program import HloProgram, array_bytes

__all__ = ["KINDS", "collectives"]

KINDS = ("all-gather", "all-reduce", "reduce-scatter", "all-to-all", "collective-permute")
_SENT_PER_BYTE = {"all-reduce": 2}  # reduce-scatter then all-gather, of the result
_CHANNEL = re.compile(r"\bchannel_id=(\d+)")


def collectives(program: HloProgram) -> dict:
    """``{kind: {"count": runs, "bytes": result bytes, "sent": bytes sent per chip}}`` of
    the collectives ``program`` runs per step (kinds it does not run are left out)."""
    runs: dict = {}  # one collective -> (kind, bytes, bytes sent, runs per step)
    for instruction, times, computation in program.executed():
        kind = instruction.opcode.removesuffix("-start")
        if kind not in KINDS:
            continue
        channel = _CHANNEL.search(instruction.attributes)
        key = int(channel.group(1)) if channel else (computation, instruction.name)
        if key in runs:  # a copy in another fusion of the same asynchronous chain
            runs[key] = (*runs[key][:3], min(runs[key][3], times))
            continue
        size = array_bytes(instruction.result)
        if kind == "reduce-scatter":  # a ring moves the whole array being scattered
            size_sent = sum(array_bytes(t) for t in program.operand_types(instruction,
                                                                            computation))
        else:
            size_sent = size * _SENT_PER_BYTE.get(kind, 1)
        runs[key] = (kind, size, size_sent, times)
    found: dict = {}
    for kind, size, size_sent, times in runs.values():
        entry = found.setdefault(kind, {"count": 0, "bytes": 0, "sent": 0})
        entry["count"] += times
        entry["bytes"] += times * size
        entry["sent"] += times * size_sent
    return {kind: found[kind] for kind in KINDS if kind in found}
