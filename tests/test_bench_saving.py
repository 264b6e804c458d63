"""The saving benchmark's quickest run works, so the script cannot rot."""

from __future__ import annotations

import os
import sys

import pytest

_BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "benchmarks")
if _BENCHMARKS not in sys.path:
    sys.path.insert(0, _BENCHMARKS)

import bench_saving  # noqa: E402


@pytest.mark.benchmark
def test_quick_run_times_both_systems_and_prints_the_table(capsys):
    medians = bench_saving.main(["--quick"])
    for system in ("kgraph", "keras"):
        assert medians[system]["load"] > 0 and medians[system]["save"] > 0
    out = capsys.readouterr().out
    assert "| load |" in out and "| save |" in out and "load ratio" in out
