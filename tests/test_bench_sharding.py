"""The sharding benchmark's quick path runs on 8 simulated devices and reports bytes per
device that match each layout (in a subprocess: the device count is fixed at JAX start)."""

import os
import pathlib
import subprocess
import sys

import pytest

pytestmark = pytest.mark.benchmark

SCRIPT = pathlib.Path(__file__).parents[1] / "benchmarks" / "bench_sharding.py"


def test_quick_sharding_benchmark_reports_the_layouts():
    env = {**os.environ, "JAX_NUM_CPU_DEVICES": "8"}
    result = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True,
                            text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "| data parallel | 2.0 MiB (1.000) | 4.0 MiB (1.000) |" in out
    assert "| tensor parallel (2 x 4) | 0.5 MiB (0.251) | 1.0 MiB (0.251) |" in out
    assert "| fully sharded | 0.3 MiB (0.128) |" in out
    assert "peak host memory grew by" in out and "train step compile, blocks scanned" in out
