"""The checkpoint benchmark's quick path runs and reports what it measured."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "benchmarks"))

import bench_checkpoint

pytestmark = pytest.mark.benchmark


def test_checkpoint_benchmark_measures_save_restore_and_async_cost(tmp_path):
    results = bench_checkpoint.measure(params=2_000_000, repeats=1, steps=2,
                                       folder=str(tmp_path))
    assert results["params"] >= 4_000_000  # one 2048x2048 Dense at least
    assert 0 < results["save_blocks"] <= results["async_cost"]
    assert all(results[k] > 0 for k in ("save", "restore", "raw_save", "raw_load", "step"))
    speeds, cost = bench_checkpoint.tables(results, ["--quick"])
    assert speeds.command == cost.command == "python benchmarks/bench_checkpoint.py --quick"
    assert [row[0] for row in speeds.rows] == ["save", "restore"]
    assert cost.rows[-1][1] == f"{results['async_cost']:.3f}"
