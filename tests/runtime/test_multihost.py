"""Two processes x 4 CPU devices (jax.distributed) train like one process of 8 devices."""

import json
import pathlib
import socket
import subprocess
import sys

import numpy as np

CHILD = str(pathlib.Path(__file__).parents[1] / "support" / "multihost_child.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_train_like_one(tmp_path):
    port = _free_port()
    workers = [subprocess.Popen([sys.executable, CHILD, str(port), str(i), "2",
                                 str(tmp_path / "multi.json")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for i in range(2)]
    reference = subprocess.run([sys.executable, CHILD, "0", "0", "1",
                                str(tmp_path / "one.json")], capture_output=True, text=True,
                               timeout=300)
    for worker in workers:
        _, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err[-3000:]
    assert reference.returncode == 0, reference.stderr[-3000:]
    multi = json.loads((tmp_path / "multi.json").read_text())
    one = json.loads((tmp_path / "one.json").read_text())
    assert (multi["processes"], multi["devices"]) == (2, 8)
    assert (one["processes"], one["devices"]) == (1, 8)
    np.testing.assert_allclose(multi["history"]["loss"], one["history"]["loss"], atol=1e-5)
    for a, b in zip(multi["weights"], one["weights"]):
        np.testing.assert_allclose(a, b, atol=1e-6)
    for a, b in zip(multi["sharded_weights"], one["sharded_weights"]):  # gathered whole
        np.testing.assert_allclose(a, b, atol=1e-6)
    assert abs(multi["evaluate"] - one["evaluate"]) <= 1e-5  # over all 96 rows in both
    # Process 0 predicted its own 48 rows (the reference: all 96).
    assert len(multi["predictions"]) == 48
    first_rows = np.asarray(one["predictions"]).reshape(6, 16, 1)[:, :8].reshape(48, 1)
    np.testing.assert_allclose(multi["predictions"], first_rows, atol=1e-5)
