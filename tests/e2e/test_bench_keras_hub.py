"""The KerasHub benchmark's child runs work: a deep decoder is scanned under kgraph and not
under Keras, and the report reads its figures (for the cases measured)."""

from __future__ import annotations

import os
import sys

import pytest

pytest.importorskip("keras_hub", reason="KerasHub is installed by the README's test command")

_BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "benchmarks")
if _BENCHMARKS not in sys.path:
    sys.path.insert(0, _BENCHMARKS)

import bench_keras_hub  # noqa: E402

pytestmark = pytest.mark.slow


def test_quick_runs_scan_under_kgraph_and_report_every_figure():
    results = {(name, 4): bench_keras_hub._run(system, 4, True, options)
               for name, system, options in bench_keras_hub.CASES
               if name in ("Keras 3", "kgraph")}
    assert results["kgraph", 4]["scanned"] == 4 and results["Keras 3", 4]["scanned"] == 0
    assert results["kgraph", 4]["parameters"] == results["Keras 3", 4]["parameters"] > 0
    assert all(results["kgraph", 4][figure] > 0 for figure in ("compile", "step", "temp"))
    table = bench_keras_hub.table(results, (4, 4), ["--quick"]).markdown()
    assert "| kgraph | 4 (4 scanned) |" in table and "| Keras 3 | 4 (0 scanned) |" in table
    assert table.count("\n| ") == 4  # a row per case and depth
