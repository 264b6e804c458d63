"""A training step's time estimated from its compiled program: a roofline per chip.

XLA's own estimate (``cost_analysis()["optimal_seconds"]``) cannot be used for training
steps: it counts a loop's body once (the scan over repeated blocks, the loops XLA makes
of sharded matmuls), and it is negative for programs with asynchronous slices or
collective matmuls, which training steps on TPU pods have. The estimate here reads the
same compiled program with each computation counted as often as it runs
(``hlo_program``), with each unit at its peak:

- compute: the step's FLOPs per chip (counted from its jaxpr, recomputation included)
  over the chip's peak bfloat16 FLOP/s, the time of its matmuls and convolutions (the
  memory traffic of those instructions taken as hidden under their compute);
- memory: the bytes every other non-fused instruction (the elementwise work, copies,
  slices) reads and writes in HBM, arrays XLA placed in on-chip memory left out, over the
  HBM bandwidth: such instructions are memory-bound and run between the matmuls;
- collectives: the bytes each chip sends for the step's collectives over its
  interconnect bandwidth, overlapped with the rest (XLA runs them asynchronously).

The step takes ``max(compute + memory, collectives)``: a lower bound (every unit at its
peak, collectives fully overlapped), so its MFU is an upper bound.

>>> est = Estimate(compute=2e-3, memory=1e-3, collectives=0.5e-3)
>>> round(est.seconds, 6), est.bound
(0.003, 'compute')
"""

from __future__ import annotations

import dataclasses

from runtime.planning.collectives import collectives
from runtime.planning.hlo_program import HloProgram, array_bytes, tuple_elements

__all__ = ["Estimate", "estimate", "hbm_traffic"]

# instructions that move no data of their own (views, bookkeeping, control flow whose
# bodies are counted themselves, the second half of an asynchronous pair)
_FREE = frozenset({"parameter", "constant", "tuple", "get-tuple-element", "bitcast",
                   "while", "conditional", "call", "after-all", "partition-id",
                   "replica-id", "opt-barrier", "add-dependency"})


@dataclasses.dataclass(frozen=True)
class Estimate:
    """Seconds per step for each unit; ``seconds`` the step's (``max(compute + memory,
    collectives)``), ``bound`` what it goes to."""

    compute: float
    memory: float
    collectives: float

    @property
    def seconds(self) -> float:
        return max(self.compute + self.memory, self.collectives)

    @property
    def bound(self) -> str:
        """What the time goes to: ``collectives`` when they take longer than the rest,
        else the larger of ``compute`` and ``memory``."""
        if self.collectives > self.compute + self.memory:
            return "collectives"
        return "compute" if self.compute >= self.memory else "memory"


def _read(program: HloProgram, computation: str, name: str, full: int) -> int:
    """Bytes read of the array ``name`` holds in a fused ``computation``: the whole array
    (``full``), or only what ``dynamic-slice``s take of it (a scan reading one block's
    weights or saved activations from the stacked ones; through bitcasts and nested
    fusions), nothing where a ``dynamic-update-slice`` writes into it in place."""
    read = 0
    for user in program.computations.get(computation, {}).values():
        names = user.operand_names
        if name not in names:
            continue
        if user.opcode == "dynamic-slice" and names[0] == name:
            read += array_bytes(user.result)
        elif user.opcode == "dynamic-update-slice" and names[0] == name:
            continue
        elif user.opcode == "bitcast":
            read += _read(program, computation, user.name, full)
        elif user.opcode == "fusion":
            inner = user.callee("calls")
            for index, operand in enumerate(names):
                if operand == name:
                    read += _read(program, inner, program.parameter(inner, index), full)
        else:
            return full
        if read >= full:
            return full
    return read


def _written(program: HloProgram, fusion) -> int:
    """Bytes a fusion writes: its result, but only the update of a result written in
    place (a root ``dynamic-update-slice``, alone or in the root tuple)."""
    computation = fusion.callee("calls")
    instructions = program.computations.get(computation, {})
    if not instructions:
        return array_bytes(fusion.result, hbm_only=True)
    root = list(instructions.values())[-1]
    outputs = ([instructions[n] for n in root.operand_names if n in instructions]
               if root.opcode == "tuple" else [root])
    if not any(o.opcode == "dynamic-update-slice" for o in outputs):
        return array_bytes(fusion.result, hbm_only=True)
    total = 0
    for output in outputs:
        if output.opcode == "dynamic-update-slice":
            update = program.operand_types(output, computation)[1:2]
            total += array_bytes(update[0], hbm_only=True) if update else 0
        else:
            total += array_bytes(output.result, hbm_only=True)
    return total


def _instruction_traffic(program: HloProgram, instruction, computation) -> int:
    """HBM bytes one run of a non-fused instruction reads and writes."""
    operands = [array_bytes(t, hbm_only=True)
                for t in program.operand_types(instruction, computation)]
    if instruction.opcode == "fusion":
        inner = instruction.callee("calls")
        return _written(program, instruction) + sum(
            _read(program, inner, program.parameter(inner, i), full)
            for i, full in enumerate(operands))
    if instruction.opcode == "dynamic-slice":
        return 2 * array_bytes(instruction.result, hbm_only=True)
    if instruction.opcode == "dynamic-update-slice":
        return 2 * (operands[1] if len(operands) > 1 else 0)
    if instruction.opcode.endswith("-start"):  # asynchronous: what it writes, and reads
        parts = tuple_elements(instruction.result)
        if instruction.opcode == "copy-start":  # (destination, source, context)
            return sum(operands) + array_bytes(parts[0], hbm_only=True)
        written = array_bytes(parts[1], hbm_only=True) if len(parts) > 1 else 0
        if instruction.opcode == "slice-start":  # ((source), slice, context): the slice
            return written + min(sum(operands), array_bytes(parts[1]) if len(parts) > 1
                                 else 0)
        return written + sum(operands)
    return array_bytes(instruction.result, hbm_only=True) + sum(operands)


_MATMULS = ("dot", "convolution")


def hbm_traffic(program: HloProgram, split: bool = False):
    """Bytes read and written in HBM per step by ``program``'s non-fused instructions
    (operands and results, each time the instruction runs; slices of stacked arrays as
    the slices); ``split``: ``(bytes of matmul instructions, bytes of the others)``."""
    matmul = other = 0
    for instruction, times, computation in program.executed(fused=False):
        if instruction.opcode in _FREE or instruction.opcode.endswith("-done") or (
                'custom_call_target="AllocateBuffer"' in instruction.attributes):
            continue
        moved = times * _instruction_traffic(program, instruction, computation)
        if program.contains(instruction, _MATMULS):
            matmul += moved
        else:
            other += moved
    return (matmul, other) if split else matmul + other


def estimate(program: HloProgram, flops_per_chip: float, where) -> Estimate | None:
    """The roofline of ``program`` on ``where``'s chips (a ``Topology``); None for chips
    without published peak figures."""
    peak, hbm, ici = where.peak_flops, where.hbm_bandwidth, where.ici_bandwidth
    if not (peak and hbm and ici):
        return None
    sent = sum(entry["sent"] for entry in collectives(program).values())
    _, other = hbm_traffic(program, split=True)
    return Estimate(compute=flops_per_chip / peak, memory=other / hbm, collectives=sent / ici)
