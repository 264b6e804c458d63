"""The runtime benchmark compares like with like, and its quick path runs.

Each workload's kgraph ``Trainer`` step and hand-written JAX step must compute the same
loss on the same batch from the same weights; otherwise the step-time ratio compares two
different programs.
"""

from __future__ import annotations

import os
import sys

import pytest

_BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "benchmarks")
if _BENCHMARKS not in sys.path:
    sys.path.insert(0, _BENCHMARKS)

import bench_runtime
from workloads import WORKLOADS

pytestmark = pytest.mark.benchmark  # runs the benchmark's code (deselect: -m "not benchmark")


# The CNN's and the transformer's steps take several seconds each to compile.
@pytest.mark.parametrize("name", ["tiny", "mlp", pytest.param("cnn", marks=pytest.mark.slow),
                                  pytest.param("transformer", marks=pytest.mark.slow)])
def test_kgraph_and_hand_written_steps_compute_the_same_loss(name):
    systems = bench_runtime.step_systems(WORKLOADS[name], batch=4)  # small batch: fast
    first = bench_runtime.first_step(systems)
    hand_loss, hand_params = first[bench_runtime.HAND]
    for name in (bench_runtime.KGRAPH, bench_runtime.PACKED):
        kgraph_loss, kgraph_params = first[name]
        assert abs(kgraph_loss - hand_loss) <= 1e-5, (name, kgraph_loss, hand_loss)
        # Adam's first update is about lr * sign(gradient), so rounding-level gradient
        # differences can move a weight by a small fraction of lr (1e-3).
        assert bench_runtime.max_difference(kgraph_params, hand_params) <= 1e-4


def test_every_workload_is_checked():
    assert sorted(WORKLOADS) == ["cnn", "mlp", "tiny", "transformer"]


def test_workload_data_is_fixed_by_its_seed():
    workload = WORKLOADS["mlp"]
    (x1, y1), (x2, y2) = workload.data(3, seed=5), workload.data(3, seed=5)
    assert (x1 == x2).all() and (y1 == y2).all()
    assert x1.dtype.name == "float32" and y1.dtype.name == "int32"


@pytest.mark.slow
def test_quick_run_of_the_tiny_workload_prints_the_table(capsys):
    results = bench_runtime.main(["--quick", "--workloads", "tiny", "--no-keras",
                                  "--rounds", "3", "--fit-rounds", "1"])
    tiny = results["tiny"]
    assert all(tiny["step"][name]["ratio"] > 0
               for name in (bench_runtime.KGRAPH, bench_runtime.PACKED))
    assert tiny["fit"]["hand loop"][0] > 0 and "Keras fit" not in tiny["fit"]
    assert all(tiny["fit"][name] is not None for name in ("kgraph fit", "kgraph fit spe=8"))
    out = capsys.readouterr().out
    assert "| workload | step ratio vs hand JAX [95% CI] |" in out
    assert "| tiny |" in out
