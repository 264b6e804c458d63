"""``keras.distribution``'s objects against Keras 3's, on one device and on 8 simulated
devices (in a subprocess: the device count is fixed when JAX starts): ``DataParallel`` and
``ModelParallel`` made in several ways show the same ``num_model_replicas``,
``num_processes``, ``data_shard_id``, ``batch_dim_name``, ``auto_shard_dataset``, mesh,
reprs and ``get_data_layout`` / ``get_variable_layout`` / ``get_tensor_layout`` layouts;
``with dist.scope():`` makes it ``distribution()`` inside and restores the one before
after (nested, and left by an exception); and a model made, compiled and trained inside the
scope trains equal (``tests/support/distribution_surface.py``)."""

import json
import os
import subprocess
import sys

import keras
import numpy as np

import kgraph as kg
from tests.support.distribution_surface import surface

_CHILD = os.path.join(os.path.dirname(os.path.dirname(__file__)), "support",
                      "distribution_surface_child.py")


def test_distribution_objects_show_what_keras_shows_on_one_device():
    theirs = surface(keras)
    mine = surface(kg)
    assert sorted(mine) == sorted(theirs)
    for name in theirs:
        assert mine[name] == theirs[name], name


def test_distribution_objects_and_scope_on_8_devices():
    done = subprocess.run([sys.executable, _CHILD], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["devices"] == 8
    theirs, mine = found["keras surface"], found["kgraph surface"]
    assert sorted(mine) == sorted(theirs)
    for name in theirs:
        assert mine[name] == theirs[name], name
    assert theirs["model parallel (2, 4)"]["num_model_replicas"] == 2  # 8 devices, really
    for kind in ("data parallel", "model parallel"):
        expected, got = found[f"keras {kind}"], found[f"kgraph {kind}"]
        assert got["after"] and expected["after"]  # the scope restored no distribution
        np.testing.assert_allclose(got["loss"], expected["loss"], rtol=1e-5)
        for ours, reference in zip(got["weights"], expected["weights"]):
            np.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-6)
