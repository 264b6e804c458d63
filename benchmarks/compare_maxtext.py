"""kgraph's TPU plans beside MaxText's, on the same model, topology, batch and remat.

    python benchmarks/compare_maxtext.py          # three configurations (~2 min, MaxText's compiled)
    python benchmarks/compare_maxtext.py --configs llama2-7b:full

MaxText's side is its own ``train_compile`` (``benchmarks/maxtext_compile.sh``: maxtext 0.2.5
in a Python 3.12 environment of its own, run once per configuration, its compiled program
dumped); kgraph's is ``benchmarks/bench_plan.py``'s case with the remat fixed (MaxText's
``full`` is ``nothing_saveable``, its ``minimal`` is compared with ``dots_saveable``), its
program dumped the same way. Both: v5e-256, float32 weights and AdamW state, bfloat16
compute, FSDP over the 256 chips, one 2,048-token sequence per chip. The bytes per chip are
each compiler's memory analysis; the step time is the same estimator
(``runtime.planning.roofline``) applied to both optimized programs, with the same count of
FLOPs (kgraph's, from its step's jaxpr: the math is the same model's). Then, per
configuration, the largest buffers alive at the peak of each program (XLA's memory-usage
report), side by side: where the bytes differ, op by op.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
_MAXTEXT_DUMPS = os.environ.get("DUMP_ROOT", "/tmp/maxtext_dump")
_MAXTEXT_LOGS = os.environ.get("LOG_ROOT", "/tmp/maxtext_runs")
_KGRAPH_DUMPS = "/tmp/kgraph_plan_dump"
REMATS = {"full": "nothing_saveable", "minimal": "dots_saveable"}
CASES = {"llama2-7b": "llama2-7b-v5e-256", "gemma-7b": "gemma-7b-v5e-256"}
DEFAULT = ["llama2-7b:full", "llama2-7b:minimal", "gemma-7b:full"]
HEADER = ["model", "remat (MaxText / kgraph)", "MaxText GiB per chip", "kgraph GiB per chip",
          "MaxText step (roofline)", "kgraph step (roofline)", "MaxText MFU", "kgraph MFU",
          "MaxText HBM GB (matmuls / rest)", "kgraph HBM GB (matmuls / rest)"]


def _maxtext(model: str, remat: str) -> dict:
    folder = os.path.join(_MAXTEXT_DUMPS, f"{model}_{remat}")
    log = os.path.join(_MAXTEXT_LOGS, f"{model}_{remat}.log")
    if not glob.glob(os.path.join(folder, "*jit_train_step*after_optimizations.txt")):
        subprocess.run(["bash", os.path.join(_HERE, "maxtext_compile.sh"), model, remat],
                       check=True)
    stats = re.search(r"Memory analysis: CompiledMemoryStats\((.*?)\)", open(log).read())
    fields = dict(re.findall(r"(\w+)=(\d+)", stats.group(1)))
    size = {k: int(v) for k, v in fields.items()}
    total = (size["argument_size_in_bytes"] + size["output_size_in_bytes"]
             + size["temp_size_in_bytes"] - size["alias_size_in_bytes"])
    hlo = glob.glob(os.path.join(folder, "*jit_train_step*after_optimizations.txt"))[0]
    report = glob.glob(os.path.join(folder, "*jit_train_step*memory-usage-report.txt"))[0]
    return {"total": total, "temporaries": size["temp_size_in_bytes"], "hlo": hlo,
            "report": report}


def _kgraph(model: str, remat: str) -> dict:
    folder = os.path.join(_KGRAPH_DUMPS, f"{model}_{remat}")
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": _ROOT,
           "XLA_FLAGS": f"--xla_dump_to={folder} --xla_dump_hlo_as_text "
                        "--xla_dump_hlo_module_re=.*fit_batches.*"}
    done = subprocess.run([sys.executable, os.path.join(_HERE, "bench_plan.py"), "--child",
                           CASES[model], "--remat", REMATS[remat]], env=env,
                          capture_output=True, text=True, check=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    found = sorted(glob.glob(os.path.join(folder, "*fit_batches*after_optimizations.txt")),
                   key=os.path.getmtime)
    reports = sorted(glob.glob(os.path.join(folder, "*fit_batches*memory-usage-report.txt")),
                     key=os.path.getmtime)
    figures.update(hlo=found[-1] if found else None, report=reports[-1] if reports else None)
    return figures


def _roofline(hlo_path: str, flops_per_chip: float):
    """The roofline estimate of a program, and its HBM traffic (matmuls, the rest)."""
    from runtime.planning import roofline, topology
    from runtime.planning.hlo_program import HloProgram

    program = HloProgram(open(hlo_path).read())
    return (roofline.estimate(program, flops_per_chip, topology("v5e-256")),
            roofline.hbm_traffic(program, split=True))


def _largest(report_path: str, count: int = 8) -> list:
    rows = []
    for line in open(report_path).read().split("\n\n")[0].splitlines():
        match = re.match(r"\s*[\d.]+\w+\(\s*\d+%\);\s*([\d.]+)(\w+);.*?;\s*\d+;\s*(.*)", line)
        if match:
            size = float(match.group(1)) * {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30,
                                             "B": 1}.get(match.group(2), 1)
            rows.append((size, match.group(3)))
        if len(rows) == count:
            break
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configs", nargs="*", default=DEFAULT)
    parser.add_argument("--results", action="store_true",
                        help="keep the table in benchmarks/results/maxtext.json (the docs show it)")
    args = parser.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    sys.path.insert(0, _ROOT)
    rows, details = [], []
    for config in args.configs:
        model, remat = config.split(":")
        theirs = _maxtext(model, remat)
        ours = _kgraph(model, remat)
        flops = ours["flops_per_chip"]
        from runtime.planning import topology

        peak = topology("v5e-256").peak_flops
        found = {"MaxText": _roofline(theirs["hlo"], flops)}
        if ours["hlo"] and ours["fits"]:
            found["kgraph"] = _roofline(ours["hlo"], flops)
        est = {k: e for k, (e, _) in found.items()}
        traffic = {k: f"{t[0] / 1e9:.0f} / {t[1] / 1e9:.0f}" for k, (_, t) in found.items()}
        gib = lambda n: "-" if n is None else f"{n / 2**30:.2f}"  # noqa: E731
        step = {k: f"{e.seconds * 1e3:.0f} ms ({e.bound})" for k, e in est.items()}
        mfu = {k: f"{ours['model_flops_per_step'] / 256 / (peak * e.seconds):.0%}"
               for k, e in est.items()}
        rows.append([model, f"{remat} / {REMATS[remat]}", gib(theirs["total"]),
                     gib(ours["total"]) if ours["fits"] else "does not fit", step["MaxText"],
                     step.get("kgraph", "-"), mfu["MaxText"], mfu.get("kgraph", "-"),
                     traffic["MaxText"], traffic.get("kgraph", "-")])
        details.append((config, _largest(theirs["report"]),
                        _largest(ours["report"]) if ours["report"] else []))
    from benchmarks.results import Table, command

    made = Table("maxtext", command(__file__), HEADER, rows, ["---", "---"] + ["---:"] * 8)
    print(made.markdown())
    if args.results:
        print(f"kept in {made.write()}")
    for config, theirs, ours in details:
        print(f"\nLargest buffers at the peak, {config} (MaxText | kgraph):")
        for i in range(max(len(theirs), len(ours))):
            left = f"{theirs[i][0] / 2**20:8.1f} MiB  {theirs[i][1][:60]}" if i < len(
                theirs) else ""
            right = f"{ours[i][0] / 2**20:8.1f} MiB  {ours[i][1][:60]}" if i < len(ours) else ""
            print(f"  {left:<75} | {right}")


if __name__ == "__main__":
    main()
