"""The collectives of a compiled program, read from its optimized HLO text.

Each all-gather, all-reduce, reduce-scatter, all-to-all and collective-permute
instruction is counted once with the bytes of its result (an asynchronous pair, ``-start``
and ``-done``, once). A loop's body appears once in the text: a collective inside the
scan over repeated blocks is one instruction that runs once per block.

>>> hlo = '''
... %ag = bf16[1024,512]{1,0} all-gather(bf16[64,512]{1,0} %p), dimensions={0}
... %ar = (f32[8]{0}, f32[4]{0}) all-reduce-start(f32[8]{0} %a, f32[4]{0} %b)
... %ard = (f32[8]{0}, f32[4]{0}) all-reduce-done(%ar)
... '''
>>> collectives(hlo)
{'all-gather': {'count': 1, 'bytes': 1048576}, 'all-reduce': {'count': 1, 'bytes': 48}}
"""

from __future__ import annotations

import math
import re


__all__ = ["KINDS", "collectives"]

KINDS = ("all-gather", "all-reduce", "reduce-scatter", "all-to-all", "collective-permute")
_INSTRUCTION = re.compile(
    r"=\s*(?P<result>\([^=]*?\)|\S+)\s+(?P<op>" + "|".join(KINDS) + r")(?:-start)?\(")
_ARRAY = re.compile(r"\b(?P<dtype>pred|[a-z]+\d+(?:e\d+m\d+\w*)?)\[(?P<dims>[\d,]*)\]")
_BYTES = {"pred": 1}


def _itemsize(dtype: str) -> int:
    if dtype in _BYTES:
        return _BYTES[dtype]
    bits = re.search(r"\d+", dtype)
    return max(1, int(bits.group()) // 8) if bits else 4


def _result_bytes(result: str) -> int:
    total = 0
    for array in _ARRAY.finditer(result):
        dims = [int(d) for d in array.group("dims").split(",") if d]
        total += math.prod(dims) * _itemsize(array.group("dtype"))
    return total


def collectives(hlo_text: str) -> dict:
    """``{kind: {"count": n, "bytes": b}}`` of the collectives in ``hlo_text`` (kinds
    absent from the program are left out)."""
    found: dict = {}
    for line in hlo_text.splitlines():
        match = _INSTRUCTION.search(line)
        if match is None:
            continue
        entry = found.setdefault(match.group("op"), {"count": 0, "bytes": 0})
        entry["count"] += 1
        entry["bytes"] += _result_bytes(match.group("result"))
    return {kind: found[kind] for kind in KINDS if kind in found}

