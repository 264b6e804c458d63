"""Checkpoints under SIGKILL, in real subprocesses (``tests/support/checkpoint_child.py``).

A ``fit`` killed at a batch and started again with the same ``BackupAndRestore``
directory ends bitwise equal to a run never interrupted (weights, BatchNorm statistics,
optimizer state, history), for epoch-level and step-level backups and with
``steps_per_execution`` > 1; a process killed anywhere inside a save (in the renames,
in the cleanup of old steps, at a random moment) leaves a directory whose latest
checkpoint restores.
"""

import atexit
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from runtime import TrainState
from runtime.checkpoints import CheckpointManager

CHILD = str(pathlib.Path(__file__).parents[1] / "support" / "checkpoint_child.py")
pytestmark = pytest.mark.xdist_group("checkpoints_killed")  # the references are made once


# The children compile the same programs: they share a persistent compilation cache.
_CACHE = tempfile.mkdtemp(prefix="kgraph-jax-cache-")
atexit.register(shutil.rmtree, _CACHE, True)
_ENV = {**os.environ, "JAX_COMPILATION_CACHE_DIR": _CACHE,
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"}


def _run(*args, expect_killed=False):
    result = subprocess.run([sys.executable, CHILD, *map(str, args)], capture_output=True,
                            text=True, timeout=300, env=_ENV)
    if expect_killed:
        assert result.returncode == -9, (result.returncode, result.stderr[-2000:])
    else:
        assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """Uninterrupted runs, by steps_per_execution."""
    cache = {}

    def get(spe):
        if spe not in cache:
            folder = tmp_path_factory.mktemp(f"reference{spe}")
            _run("fit", folder / "out.npz", folder / "backup", "epoch", spe, -1, 0)
            cache[spe] = dict(np.load(folder / "out.npz"))
        return cache[spe]

    return get


@pytest.mark.parametrize("save_freq, spe, kills, async_save", [
    ("epoch", 1, [13], 0),  # killed in epoch 2: resumes at the start of epoch 2
    (4, 1, [13], 1),  # the backup of step 12 may still be being written when killed at 13
    (3, 3, [25], 0),  # blocks of 3 steps, killed in the last epoch
])
def test_killed_fit_resumes_bitwise(tmp_path, reference, save_freq, spe, kills, async_save):
    backup = tmp_path / "backup"
    for kill_at in kills:
        _run("fit", tmp_path / "out.npz", backup, save_freq, spe, kill_at, async_save,
             expect_killed=True)
        assert backup.is_dir()
    _run("fit", tmp_path / "out.npz", backup, save_freq, spe, -1, async_save)
    resumed, expected = dict(np.load(tmp_path / "out.npz")), reference(spe)
    # The last process resumed: it started after the last kill's backup, not at step 0.
    first = int(resumed.pop("trained")[0])  # the global step after its first dispatch
    assert int(expected["trained"][0]) == spe < first <= kills[-1] + spe, (first, kills)
    expected = {k: v for k, v in expected.items() if k != "trained"}
    assert sorted(resumed) == sorted(expected)
    for name in expected:
        assert np.array_equal(resumed[name], expected[name]), name
    assert not backup.exists()  # delete_checkpoint=True once fit finished


# (function, call number, before it, checkpoints kept): inside the rename that publishes
# a step, the rename of an old step into .deleted/, its removal, at a random time.
_KILL_POINTS = [("os.rename", 1, "before", 1), ("os.replace", 1, "before", 1),
                ("os.unlink", 5, "before", 2), ("timer", 40, "-", 1)]


def _state(step):
    value = jnp.full((256, 256), step, jnp.float32)
    return TrainState({"dense": {"kernel": value}}, {}, (value,), jnp.int32(step),
                      jax.random.PRNGKey(step))


def test_killed_while_saving_the_latest_checkpoint_restores(tmp_path):
    for index, (function, n, when, keep) in enumerate(_KILL_POINTS):
        folder = tmp_path / str(index)
        out = _run("crash", folder, function.split(".")[-1], n, when, keep,
                   expect_killed=True)
        finished = [int(line.split()[1]) for line in out.splitlines()
                    if line.startswith("done")]
        assert finished and finished[-1] >= 2, (function, out)
        with CheckpointManager(folder, max_to_keep=keep, async_save=True) as checkpoints:
            restored = checkpoints.restore(_state(0))
            assert restored.step >= finished[-1], (function, n, when)
            assert restored.loop_state == {"step": restored.step}
            assert float(restored.train_state.params["dense"]["kernel"][0, 0]) == \
                restored.step
            assert int(restored.train_state.step) == restored.step
            # The directory stays usable: the next save and a restore of it work.
            assert checkpoints.save(100, _state(100))
            assert checkpoints.restore(_state(0)).step == 100
        leftovers = [name for name in os.listdir(folder) if "tmp" in name]
        assert leftovers == [], leftovers
