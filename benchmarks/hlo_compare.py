"""Comparison of compiled XLA programs: optimized-HLO instructions, StableHLO op histograms
and XLA cost analysis, for train-step Systems (see bench_core.py) against the hand-written one.
"""

from __future__ import annotations

import collections
import re


_HLO_OP = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*.*?\s([a-z][a-z0-9\-]*)\(")
_MLIR_OP = re.compile(r"\b((?:stablehlo|chlo|mhlo|func|sdy)\.[a-z_\.]+)\b")
_METADATA = re.compile(r",?\s*metadata=\{[^}]*\}")
_OP_NAME = re.compile(r'op_name="([^"]*)"')
_HLO_NAME = re.compile(r"%[\w.\-]+")


def hlo_instructions(text):
    """``[(opcode, normalized line, op_name)]``: names and metadata stripped from each line."""
    result = []
    for line in text.splitlines():
        m = _HLO_OP.match(line)
        if m:
            op_name = _OP_NAME.search(line)
            norm = _HLO_NAME.sub("%_", _METADATA.sub("", line)).strip()
            result.append((m.group(1), norm, op_name.group(1) if op_name else ""))
    return result


def mlir_histogram(text):
    hist = collections.Counter()
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("//") or "=" not in s and not s.startswith(("stablehlo.", "func.")):
            continue
        m = _MLIR_OP.search(s)
        if m:
            hist[m.group(1)] += 1
    return hist


def _cost(compiled):
    try:
        ca = compiled.cost_analysis()
    except Exception:  # noqa: BLE001
        return {}
    if isinstance(ca, (list, tuple)):
        ca = ca[0] if ca else {}
    return ca or {}


def _source_of(op_name):
    """A short JAX-level description of an HLO instruction's origin (from its op_name)."""
    parts = [p for p in op_name.split("/") if p]
    return "/".join(parts[1:4]) if len(parts) > 1 else (op_name or "?")


def compare_hlo(systems, reference="hand-written JAX"):
    """Compile each System (``name``, ``init()``, ``lower(carry)``), print how its XLA program
    compares with ``reference``'s; returns ``(info by name, {name: same program})``."""
    info = {}
    for sysm in systems:
        lowered = sysm.lower(sysm.init())
        compiled = lowered.compile()
        text = compiled.as_text()
        instrs = hlo_instructions(text)
        info[sysm.name] = {
            "instrs": instrs, "hlo": collections.Counter(op for op, _, _ in instrs),
            "lines": [norm for _, norm, _ in instrs], "hlo_chars": len(text),
            "mlir": mlir_histogram(lowered.as_text()), "cost": _cost(compiled),
            "text": text, "mlir_text": lowered.as_text(),
        }
    print(f"{'system':<24}{'HLO instrs':>11}{'fusions':>9}{'dots':>6}{'HLO chars':>11}"
          f"{'StableHLO ops':>15}{'flops':>14}{'bytes accessed':>16}")
    for name, d in info.items():
        c = d["cost"]
        print(f"{name:<24}{len(d['instrs']):>11}{d['hlo'].get('fusion', 0):>9}"
              f"{d['hlo'].get('dot', 0):>6}{d['hlo_chars']:>11}{sum(d['mlir'].values()):>15}"
              f"{c.get('flops', float('nan')):>14.6g}{c.get('bytes accessed', float('nan')):>16.6g}")
    print("(HLO chars include source-location metadata, so they differ even for identical programs)")
    ref = info[reference]
    verdicts = {}
    for name, d in info.items():
        if name == reference:
            continue
        same_text = d["lines"] == ref["lines"]
        same_hlo = d["hlo"] == ref["hlo"]
        same_flops = d["cost"].get("flops") == ref["cost"].get("flops")
        same_bytes = d["cost"].get("bytes accessed") == ref["cost"].get("bytes accessed")
        same_mlir = d["mlir"] == ref["mlir"]
        verdicts[name] = same_text or (same_hlo and same_flops and same_bytes)
        print(f"\n{name} vs {reference}:")
        print(f"  optimized HLO, instruction by instruction (names/metadata stripped): "
              f"{'IDENTICAL' if same_text else 'DIFFERENT'}")
        print(f"  optimized-HLO opcode histogram {'MATCH' if same_hlo else 'DIFFERS'}; flops "
              f"{'MATCH' if same_flops else 'DIFFER'}; bytes accessed "
              f"{'MATCH' if same_bytes else 'DIFFER'}; StableHLO op histogram "
              f"{'MATCH' if same_mlir else 'DIFFERS'}")
        if not same_flops and d["cost"].get("flops") and ref["cost"].get("flops"):
            print(f"  flops {d['cost']['flops']:.6g} vs {ref['cost']['flops']:.6g} "
                  f"({d['cost']['flops'] / ref['cost']['flops'] - 1:+.4%}); bytes accessed "
                  f"{d['cost'].get('bytes accessed', 0):.6g} vs "
                  f"{ref['cost'].get('bytes accessed', 0):.6g}")
        for label, key in (("optimized HLO", "hlo"), ("StableHLO", "mlir")):
            diff = {op: (d[key].get(op, 0), ref[key].get(op, 0))
                    for op in set(d[key]) | set(ref[key]) if d[key].get(op, 0) != ref[key].get(op, 0)}
            if diff:
                print(f"  {label} opcode counts differing ({name} vs hand): " + ", ".join(
                    f"{op} {a} vs {b}" for op, (a, b) in sorted(diff.items())))
        if not same_text:
            extra = collections.Counter(d["lines"]) - collections.Counter(ref["lines"])
            missing = collections.Counter(ref["lines"]) - collections.Counter(d["lines"])
            origin = collections.Counter()
            for _, norm, op_name in d["instrs"]:
                if extra.get(norm):
                    origin[_source_of(op_name)] += 1
            print(f"  instructions only in {name}: {sum(extra.values())}; only in hand: "
                  f"{sum(missing.values())}")
            if origin:
                print("  where the extra instructions come from (JAX op_name, top 12): " + "; ".join(
                    f"{src} x{n}" for src, n in origin.most_common(12)))
    return info, verdicts
