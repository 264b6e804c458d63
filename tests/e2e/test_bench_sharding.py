"""The sharding benchmark's report (its 8-device init-memory measurement runs in
tests/runtime/test_sharding_mesh.py; the whole benchmark takes about a minute)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "benchmarks"))

import bench_sharding

pytestmark = pytest.mark.benchmark


def test_report_gives_ratios_against_the_shallowest_model():
    compiles = {(True, 4): 2.0, (True, 48): 10.0, (False, 4): 2.0, (False, 48): 20.0}
    sizes = (8 << 20, 16 << 20, {"fully sharded": (1 << 20, 2 << 20)})
    memory = {"param_bytes": 1 << 30, "growth": 1.3, "seconds": 2.0}
    layouts, init, by_depth = bench_sharding.tables(sizes, memory, compiles, [])
    assert "| fully sharded | 1.0 MiB (0.125) | 2.0 MiB (0.125) |" in layouts.markdown()
    assert init.rows == [["1.00 GiB, fully sharded over 8 devices", "1.30x", "2.0 s"]]
    assert "| 48 | 10.00 s (5.00x) | 20.00 s (10.00x) |" in by_depth.markdown()
    assert by_depth.command == "python benchmarks/bench_sharding.py"
