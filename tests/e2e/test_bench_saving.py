"""The saving benchmark's quick path runs, checks both loaders' predictions and reports."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "benchmarks"))

import bench_saving

pytestmark = pytest.mark.benchmark


def test_saving_benchmark_times_both_loaders_on_one_file(tmp_path):
    medians = bench_saving.measure("MobileNetV2", 32, 1, folder=str(tmp_path))
    assert medians["params"] > 100_000 and medians["megabytes"] > 0.1
    assert all(medians[system][phase] > 0 for system in ("kgraph", "keras")
               for phase in ("load", "save"))
    table = bench_saving.table("MobileNetV2", 1, medians, ["--quick"])
    assert table.command == "python benchmarks/bench_saving.py --quick"
    assert [row[0] for row in table.rows] == ["load", "save"]
    assert table.rows[0][1] == f"{medians['kgraph']['load']:.2f} s"
