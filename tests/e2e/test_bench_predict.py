"""The predict benchmark's quickest run works (and checks predict against the hand loop)."""

from __future__ import annotations

import os
import sys

_BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "benchmarks")
if _BENCHMARKS not in sys.path:
    sys.path.insert(0, _BENCHMARKS)

import bench_predict


def test_quick_run_times_every_sample_count(capsys):
    rows = bench_predict.main(["--quick", "--networks", "mlp", "--no-keras"])
    assert [samples for _name, samples, _medians in rows] == [2, 64, 256]
    assert all(set(medians) == {"hand-written", "kgraph predict"} for *_, medians in rows)
    assert "| mlp | 256 |" in capsys.readouterr().out
