"""A compiled program's optimized HLO text, read for what runs and how often.

XLA's own analyses of a compiled program (``cost_analysis``) count the body of a loop
once, whatever its trip count; a training step's loops are the scan over repeated blocks
and the loops XLA makes of sharded matmuls (``windowed_dot_general``). Here each
computation gets the number of times it runs in one step: the entry once, a loop's body
its trip count times (read from the loop's condition: ``counter < N``), a conditional's
branches once each (an upper bound), a ``call``'s callee once per call, a fused
computation once per run of its fusion (its instructions run on chip, inside the fusion:
``executed(fused=False)`` leaves them out, as a count of memory traffic should; XLA's TPU
compiler fuses collectives too, so a count of collectives takes them).

>>> text = '''
... %cond (p: (s32[], f32[8])) -> pred[] {
...   %p = (s32[], f32[8]{0}) parameter(0)
...   %i = s32[] get-tuple-element(%p), index=0
...   %n = s32[] constant(4)
...   ROOT %lt = pred[] compare(s32[] %i, s32[] %n), direction=LT
... }
... %body (p: (s32[], f32[8])) -> (s32[], f32[8]) {
...   %p = (s32[], f32[8]{0}) parameter(0)
...   %x = f32[8]{0} get-tuple-element(%p), index=1
...   %s = f32[64]{0} all-gather(f32[8]{0} %x), dimensions={0}
...   ROOT %t = (s32[], f32[8]{0}) tuple(%i, %x)
... }
... ENTRY %main (a: f32[8]) -> f32[8] {
...   %a = f32[8]{0} parameter(0)
...   %w = (s32[]{:T(128)}, f32[8]{0}) while(%init), condition=%cond, body=%body
...   ROOT %r = f32[8]{0} get-tuple-element(%w), index=1
... }
... '''
>>> program = HloProgram(text)
>>> program.runs["%body"], program.unknown_trip_counts
(4, 0)
>>> [(i.opcode, n) for i, n, _ in program.executed() if i.opcode == "all-gather"]
[('all-gather', 4)]

An operand ``%name#1`` is element 1 of a tuple-valued instruction:

An instruction may run over several lines (a kernel's ``backend_config``); the lines
after its first start unindented:

>>> kernel = HloProgram('''ENTRY %main (a: f32[8]) -> f32[8] {
...   %a = f32[8]{0} parameter(0)
...   %k = f32[8]{0} custom-call(%a), custom_call_target="tpu_custom_call", backend_config={"m":"{
... }}
...   ROOT %r = f32[8]{0} negate(%k)
... }''')
>>> list(kernel.computations["%main"])
['%a', '%k', '%r']

>>> add = Instruction("%s", "f32[8]{0}", "add", "%w#1, %w#1", "")
>>> program.computations["%main"]["%w"].result, program.operand_types(add, "%main")
('(s32[]{:T(128)}, f32[8]{0})', ['f32[8]{0}', 'f32[8]{0}'])
"""

from __future__ import annotations

import dataclasses
import math
import re

__all__ = ["HloProgram", "Instruction", "array_bytes", "tuple_elements"]

_ARRAY = re.compile(r"\b(?P<dtype>pred|token|[a-z]+\d+(?:e\d+m\d+\w*)?)"
                    r"\[(?P<dims>[\d,]*)\](?P<layout>\{[^}]*\})?")
_NAME = re.compile(r"\s*(?:ROOT\s+)?(?P<name>%[\w.\-]+)\s*=\s*")
_CALLEE = {"condition": re.compile(r"condition=(%[\w.\-]+)"),
           "body": re.compile(r"body=(%[\w.\-]+)"),
           "to_apply": re.compile(r"to_apply=(%[\w.\-]+)"),
           "calls": re.compile(r"calls=(%[\w.\-]+)"),
           "branches": re.compile(r"branch_computations=\{([^}]*)\}"),
           "true": re.compile(r"true_computation=(%[\w.\-]+)"),
           "false": re.compile(r"false_computation=(%[\w.\-]+)")}
_HEADER = re.compile(r"(?:ENTRY\s+)?%[\w.\-]+\s")  # a computation's first line
_ON_CHIP = re.compile(r"S\(1\)")  # TPU memory space 1: on-chip VMEM, not HBM


def array_bytes(text: str, hbm_only: bool = False) -> int:
    """Bytes of the arrays typed in ``text`` (``bf16[8,128]{1,0}``, tuples too);
    ``hbm_only``: leaving out those XLA placed in on-chip memory (layout ``S(1)``).

    >>> array_bytes("(f32[8]{0}, bf16[4,4]{1,0:T(4,128)(2,1)S(1)})"), array_bytes(
    ...     "(f32[8]{0}, bf16[4,4]{1,0:T(4,128)(2,1)S(1)})", hbm_only=True)
    (64, 32)
    """
    total = 0
    for array in _ARRAY.finditer(text):
        if hbm_only and _ON_CHIP.search(array.group("layout") or ""):
            continue
        dtype = array.group("dtype")
        if dtype == "token":
            continue
        bits = re.search(r"\d+", dtype)
        size = 1 if dtype == "pred" else max(1, int(bits.group()) // 8) if bits else 4
        total += math.prod(int(d) for d in array.group("dims").split(",") if d) * size
    return total


def tuple_elements(text: str) -> list:
    """The top-level elements of a tuple type (``[text]`` for an array type)."""
    if not text.startswith("("):
        return [text]
    parts, depth, start = [], 0, 1
    for i, char in enumerate(text):
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        elif char == "," and depth == 1:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:-1].strip())
    return parts


@dataclasses.dataclass
class Instruction:
    """One HLO instruction: its result type, opcode, operands and attributes as text."""

    name: str
    result: str
    opcode: str
    operands: str
    attributes: str

    @property
    def operand_names(self) -> list:
        """The names of the instructions (or parameters) this one reads, in order
        (``%name#2``: element 2 of a tuple-valued one)."""
        return re.findall(r"%[\w.\-]+(?:#\d+)?", self.operands)

    def callee(self, kind: str) -> str | None:
        match = _CALLEE[kind].search(self.attributes)
        return match.group(1) if match else None


def _balanced(text: str, start: int) -> int:
    """The index just past the bracket group opening at ``text[start]``."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "({":
            depth += 1
        elif text[i] in ")}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _instruction(line: str) -> Instruction | None:
    match = _NAME.match(line)
    if match is None:
        return None
    at = match.end()
    if line.startswith("(", at):
        end = _balanced(line, at)
    else:
        end = line.find(" ", at)
    result = line[at:end]
    opcode = re.match(r"\s*([\w\-]+)\(", line[end:])
    if opcode is None:
        return None
    open_at = end + opcode.end() - 1
    close_at = _balanced(line, open_at)
    return Instruction(match.group("name"), result, opcode.group(1),
                       line[open_at + 1:close_at - 1], line[close_at:])


def _logical_lines(text: str):
    """The lines of HLO text, an instruction's continuation lines joined to it (a kernel's
    ``backend_config`` may hold line breaks; what follows one starts unindented)."""
    pending = None
    for line in text.splitlines():
        starts = (line[:1].isspace() or line.rstrip() == "}" or _HEADER.match(line)
                  or pending is None)
        if not starts:
            pending += "\n" + line
            continue
        if pending is not None:
            yield pending
        pending = line if line[:1].isspace() else None
        if pending is None:
            yield line
    if pending is not None:
        yield pending


class HloProgram:
    """The computations of an optimized HLO module and how often each runs per step."""

    def __init__(self, text: str):
        self.computations: dict = {}  # computation -> {instruction name: Instruction}
        self.entry = None
        current = None
        for line in _logical_lines(text):
            if line.rstrip() == "}":
                current = None
            elif _HEADER.match(line) and line.rstrip().endswith("{"):
                head = line.split()
                name = head[1] if head[0] == "ENTRY" else head[0]
                current = self.computations.setdefault(name, {})
                if head[0] == "ENTRY":
                    self.entry = name
            elif current is not None:
                instruction = _instruction(line)
                if instruction is not None:
                    current[instruction.name] = instruction
        self.unknown_trip_counts = 0
        self.runs: dict = {}
        self.fused: set = set()
        self._contains: dict = {}
        if self.entry is not None:
            self._visit(self.entry, 1)

    def trip_count(self, condition: str) -> int | None:
        """A loop's trip count from its condition ``counter < N`` (``<=``: N + 1), the
        counter starting at 0 as XLA's loops do; None for another form."""
        instructions = list(self.computations.get(condition, {}).values())
        constants = {i.name: int(m.group(1)) for i in instructions if i.opcode == "constant"
                     for m in [re.fullmatch(r"\s*(-?\d+)\s*", i.operands)] if m}
        for instruction in reversed(instructions):
            if instruction.opcode != "compare":
                continue
            direction = re.search(r"direction=(\w+)", instruction.attributes)
            operands = instruction.operand_names
            if direction is None or len(operands) != 2 or operands[1] not in constants:
                return None
            bound = constants[operands[1]]
            return {"LT": bound, "LE": bound + 1}.get(direction.group(1))
        return None

    def _visit(self, name: str, times: int, fused: bool = False) -> None:
        self.runs[name] = self.runs.get(name, 0) + times
        if fused:
            self.fused.add(name)
        for instruction in self.computations.get(name, {}).values():
            if instruction.opcode == "while":
                trips = self.trip_count(instruction.callee("condition"))
                if trips is None:
                    self.unknown_trip_counts += 1
                    trips = 1
                self._visit(instruction.callee("body"), times * trips)
            elif instruction.opcode == "conditional":
                found = instruction.callee("branches")
                branches = ([b.strip() for b in found.split(",")] if found else
                            [instruction.callee("true"), instruction.callee("false")])
                for branch in branches:
                    if branch:
                        self._visit(branch, times)
            elif instruction.opcode in ("call", "async-start"):
                callee = instruction.callee("to_apply") or instruction.callee("calls")
                if callee:
                    self._visit(callee, times, fused)
            elif instruction.opcode == "fusion":
                callee = instruction.callee("calls")
                if callee:
                    self._visit(callee, times, fused=True)

    def executed(self, fused: bool = True):
        """``(instruction, times it runs per step, its computation)``; ``fused=False``:
        outside fused computations only (a fusion counts as one instruction)."""
        for name, times in self.runs.items():
            if fused or name not in self.fused:
                for instruction in self.computations.get(name, {}).values():
                    yield instruction, times, name

    def contains(self, instruction: Instruction, opcodes) -> bool:
        """Whether ``instruction`` is one of ``opcodes`` or fuses one (nested fusions
        too)."""
        if instruction.opcode in opcodes:
            return True
        callee = instruction.callee("calls") if instruction.opcode == "fusion" else None
        if callee is None:
            return False
        key = (callee, tuple(opcodes))
        if key not in self._contains:
            self._contains[key] = False  # (while it is being read)
            self._contains[key] = any(self.contains(inner, opcodes) for inner in
                                      self.computations.get(callee, {}).values())
        return self._contains[key]

    def parameter(self, computation: str, index: int) -> str | None:
        """The name of ``computation``'s parameter ``index``."""
        return next((i.name for i in self.computations.get(computation, {}).values()
                     if i.opcode == "parameter" and i.operands.strip() == str(index)), None)

    def operand_types(self, instruction: Instruction, computation: str) -> list:
        """The result types of ``instruction``'s operands (``""`` for one not found)."""
        instructions = self.computations.get(computation, {})
        found = []
        for name in instruction.operand_names:
            base, _, index = name.partition("#")
            kind = instructions[base].result if base in instructions else ""
            if index:
                elements = tuple_elements(kind)
                kind = elements[int(index)] if int(index) < len(elements) else ""
            found.append(kind)
        return found
