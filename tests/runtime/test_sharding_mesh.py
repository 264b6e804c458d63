"""Training on a mesh of 8 simulated CPU devices equals training on one
(tests/support/sharding_child.py runs in a subprocess: the device count is fixed at JAX start)."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

CHILD = pathlib.Path(__file__).parents[1] / "support" / "sharding_child.py"
pytestmark = pytest.mark.xdist_group("sharding_mesh")  # one worker runs the child once


@pytest.fixture(scope="module")
def measured():
    result = subprocess.run([sys.executable, str(CHILD)], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("layout", ["data parallel", "tensor parallel", "fully sharded"])
def test_layouts_train_like_one_device(measured, layout):
    assert measured["devices"] == 8
    run = measured["sgd"][layout]
    assert run["loss"] <= 1e-5 and run["params"] <= 1e-6, run
    assert run["stable"], "shardings changed between steps"
    expected = {"data parallel": {"up": "P()", "mid": "P()", "down": "P()"},
                "tensor parallel": {"up": "P(None, 'model')", "mid": "P('model',)",
                                    "down": "P()"},
                "fully sharded": {"up": "P('data',)", "mid": "P('data',)",
                                  "down": "P('data',)"}}[layout]
    assert run["specs"] == expected


def test_optimizer_state_is_sharded_like_the_weights(measured):
    adam = measured["adam"]
    assert adam["stable"] and adam["moments_like_weights"]
    assert adam["single_device_leaves"] == 0
    assert adam["kernel_bytes_per_device"] == [b // 8 for b in adam["kernel_bytes"]]
    assert adam["moment_bytes_per_device"] == adam["kernel_bytes_per_device"]
    biases = (64 + 64 + 8) * 4  # replicated
    assert measured["report"]["bytes_per_device"] == sum(adam["kernel_bytes"]) // 8 + biases


def test_initialisation_and_user_arrays(measured):
    assert measured["init_bitwise"], "initial weights differ between 1, 2, 4 and 8 devices"
    assert measured["user_arrays_intact"], "training on a mesh consumed the model's arrays"
    assert "batch of 12 rows can't be split evenly over mesh axis 'data' (8 devices)" in \
        measured["indivisible"]


@pytest.mark.parametrize("layout", ["data parallel", "tensor parallel", "fully sharded",
                                    "data parallel, batches"])
def test_fit_on_a_mesh_equals_fit_on_one_device(measured, layout):
    run = measured["fit"][layout]
    assert run["loss"] <= 1e-5 and run["weights"] <= 1e-6 and run["predict"] <= 1e-5, run
    if not layout.endswith("batches"):
        assert measured["traces"][layout] == 0  # a second fit compiles nothing new
        placed, _ = measured["predict_placed"][layout]
        assert placed == (layout != "one device")  # predict before fit runs on the mesh


@pytest.mark.parametrize("name", ["adafactor", "sm3", "multi_transform"])
def test_optimizer_states_unlike_the_params_are_placed(measured, name):
    run = measured["optimizers"][name]
    assert run["single_device_leaves"] == 0 and run["loss"] > 0


def test_sharded_initialisation_never_holds_whole_weights():
    """A 1 GiB model (16 Dense kernels of 4096 x 4096) fully sharded over 8 devices, in a
    fresh process (benchmarks/bench_sharding.py's measurement)."""
    script = CHILD.parents[2] / "benchmarks" / "bench_sharding.py"
    result = subprocess.run([sys.executable, str(script), "--init-memory-child", "4096", "16"],
                            capture_output=True, text=True, timeout=600,
                            env={**os.environ, "JAX_NUM_CPU_DEVICES": "8"})
    assert result.returncode == 0, result.stderr[-3000:]
    measured = json.loads(result.stdout.strip().splitlines()[-1])
    assert measured["param_bytes"] == measured["abstract_bytes"] == 16 * 4096 * 4096 * 4
    assert measured["eval_shape_growth"] < 64 << 20  # abstract: nothing allocated
    assert measured["shard_shape"] == [16, 512, 4096]  # the 16 blocks stacked, each split
    assert measured["growth"] <= 1.6, measured  # peak host memory / parameter bytes


def test_packed_train_states_on_a_mesh(measured):
    packed = measured["packed"]
    assert packed["buffers"] >= 1 and packed["buffers_replicated"]
    assert packed["kernel_spec"] == "P('data',)"  # sharded leaves stay loose
    assert packed["equal"]  # bitwise the same steps as unpacked


def test_a_backup_resumes_mid_epoch_on_a_mesh(measured):
    assert measured["backup_resumed"]


def test_stacked_blocks_are_sharded_like_one_block(measured):
    stacked = measured["stacked"]
    assert stacked["shape"] == [4, 16, 16]
    assert stacked["spec"] == stacked["moment_spec"] == "P(None, 'data')"  # block axis whole
    assert stacked["loss"] <= 1e-5 and stacked["params"] <= 1e-5, stacked
    assert 'block0..block3/kernel' in stacked["odd_rules"]
    assert "block 2 as P(None, 'data')" in stacked["odd_rules"], stacked["odd_rules"]
