"""How building and compiling a model grows with its depth: every pass over the graph
should be linear.

    python benchmarks/bench_graph_size.py                    # 1k, 2k, 4k, 8k layers
    python benchmarks/bench_graph_size.py --sizes 1000 2000 --repeats 1
    python benchmarks/bench_graph_size.py --sizes 10000      # the README's 10,000-layer figure

For each size and each chain (``Dense(4)`` and ``Activation("relu")`` layers on a ``(4,)``
input) it times ``kg.Model(x, h)`` and ``compiler.compile(model)`` (the plan: node order,
weight entries, candidate runs of repeated blocks, their stacking), the best of
``--repeats`` builds, and prints the growth exponent between consecutive sizes and over the
whole range: the slope of log(time) against log(size), 1.0 for a linear pass. The layer
calls themselves are timed too ("layers"), for reference. Each chain runs in a fresh
process, so names and caches do not depend on what ran before.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_EXPONENT = 1.2
TARGET_10K_S = 1.0


def _child(kind: str, size: int, repeats: int) -> dict:
    import compiler
    import kgraph as kg

    best = {"layers": math.inf, "Model()": math.inf, "compile": math.inf}
    for _ in range(repeats):
        x = kg.Input(shape=(4,))
        h = x
        started = time.perf_counter()
        for _ in range(size):
            layer = kg.layers.Dense(4) if kind == "Dense" else kg.layers.Activation("relu")
            h = layer(h)
        built = time.perf_counter()
        model = kg.Model(x, h)
        modelled = time.perf_counter()
        compiler.compile(model)
        compiled = time.perf_counter()
        for phase, seconds in (("layers", built - started), ("Model()", modelled - built),
                               ("compile", compiled - modelled)):
            best[phase] = min(best[phase], seconds)
    return best


def _measure(kind, size, repeats) -> dict:
    code = (f"import json, sys; sys.path.insert(0, {_ROOT!r}); "
            f"sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); "
            f"import bench_graph_size as b; print(json.dumps(b._child({kind!r}, {size}, {repeats})))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def _exponent(size_a, time_a, size_b, time_b) -> float:
    return math.log(time_b / time_a) / math.log(size_b / size_a)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kinds", nargs="+", default=["Dense", "Activation"])
    parser.add_argument("--results", action="store_true",
                        help="keep the table in benchmarks/results/graph_size.json (the docs show it)")
    args = parser.parse_args(argv)
    sizes = sorted(args.sizes)
    failed = False
    table_rows = []
    for kind in args.kinds:
        rows = {size: _measure(kind, size, args.repeats) for size in sizes}
        print(f"\n{kind} chain (best of {args.repeats}, seconds)")
        print(f"{'layers':>8} {'layer calls':>12} {'Model()':>9} {'compile':>9} {'both':>9}")
        for size in sizes:
            r = rows[size]
            print(f"{size:>8} {r['layers']:>12.3f} {r['Model()']:>9.3f} {r['compile']:>9.3f} "
                  f"{r['Model()'] + r['compile']:>9.3f}")
        if len(sizes) > 1:
            both = {s: rows[s]["Model()"] + rows[s]["compile"] for s in sizes}
            steps = [f"{a}->{b}: {_exponent(a, both[a], b, both[b]):.2f}"
                     for a, b in zip(sizes, sizes[1:])]
            whole = _exponent(sizes[0], both[sizes[0]], sizes[-1], both[sizes[-1]])
            print(f"growth exponent of Model() + compile: {', '.join(steps)}; "
                  f"{sizes[0]}->{sizes[-1]}: {whole:.2f} (target <= {TARGET_EXPONENT})")
            failed |= whole > TARGET_EXPONENT
            table_rows.append([f"`{kind}` chain: `Model()` + `compile`"]
                              + [f"{both[size]:.3f}" for size in sizes] + [f"{whole:.2f}"])
    if table_rows:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        from benchmarks.results import Table, command

        made = Table("graph_size", command(__file__, argv),
            ["chain (best of 3, seconds)"] + [f"{size:,}" for size in sizes]
            + [f"exponent {sizes[0]:,} -> {sizes[-1]:,}"], table_rows,
            ["---"] + ["---:"] * (len(sizes) + 1))
        print("\n" + made.markdown())
        if args.results:
            print(f"kept in {made.write()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
