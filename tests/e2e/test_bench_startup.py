"""The startup benchmark's quickest run works, so the script cannot rot."""

from __future__ import annotations

import os
import sys

_BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "benchmarks")
if _BENCHMARKS not in sys.path:
    sys.path.insert(0, _BENCHMARKS)

import bench_startup


def test_quick_kgraph_run_prints_every_phase(capsys):
    medians = bench_startup.main(["--quick", "--layers", "3", "--no-keras"])
    times = medians["kgraph"]
    assert all(times[phase] > 0 for phase in bench_startup.PHASES)
    assert times["program.init"] <= times["init"] <= times["total"]
    assert "keras" not in medians
    out = capsys.readouterr().out
    assert "| phase | kgraph | Keras 3 (JAX) | kgraph / Keras |" in out
    assert "| first eager call |" in out and "program.init alone" in out


def test_keras_side_runs_in_a_fresh_process():
    times = bench_startup.measure("keras", 2)
    assert times["init"] == 0.0  # Keras initialises its weights in build
    assert all(times[phase] > 0 for phase in bench_startup.PHASES if phase != "init")
