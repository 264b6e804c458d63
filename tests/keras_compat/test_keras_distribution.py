"""``keras.distribution`` on kgraph: the layout map matches paths as Keras's does, and the
same Keras code trains equal on one device, data parallel and model parallel over 8
simulated devices, under Keras and under kgraph (in a subprocess: the device count is
fixed when JAX starts)."""

import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest

import kgraph as kg

_CHILD = os.path.join(os.path.dirname(os.path.dirname(__file__)), "support",
                      "distribution_child.py")

_KEYS = {"up/kernel": (None, "model"), "mid.*kernel": ("model", None), "bias": ("model",),
         "^down": (None, None)}
_PATHS = ["up/kernel", "mid/kernel", "mid_2/kernel", "up/bias", "down/kernel", "down/bias",
          "other/gamma", "encoder/mid/kernel"]


def _layouts(K):
    mesh = K.distribution.DeviceMesh((1,), ["model"], K.distribution.list_devices()[:1])
    layouts = K.distribution.LayoutMap(mesh)
    for key, axes in _KEYS.items():
        layouts[key] = axes
    return layouts


@pytest.mark.parametrize("path", _PATHS)
def test_layout_map_lookup_equals_keras(path):
    def lookup(K):
        try:
            found = _layouts(K)[path]
        except ValueError as error:
            return "error: several keys" if "several" in str(error) or "multiple" in str(
                error) else str(error)
        return None if found is None else tuple(found.axes)

    assert lookup(kg) == lookup(keras)


def test_the_same_code_trains_equal_on_8_devices():
    done = subprocess.run([sys.executable, _CHILD], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["devices"] == 8
    reference = found["keras one device"]
    for kind in ("one device", "data parallel", "model parallel"):
        for name in ("keras", "kgraph"):
            run = found[f"{name} {kind}"]
            np.testing.assert_allclose(run["loss"], reference["loss"], rtol=1e-5)
            for ours, theirs in zip(run["weights"], reference["weights"]):
                np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    # the runs were placed as asked: a weight on every device where the batch is split
    assert [found[f"kgraph {kind}"]["up_kernel_devices"]
            for kind in ("one device", "data parallel", "model parallel")] == [1, 8, 8]
    assert found["kgraph model parallel"]["up_kernel_spec"] == "PartitionSpec(None, 'model')" \
        or found["kgraph model parallel"]["up_kernel_spec"] == "P(None, 'model')"


def test_a_distribution_is_the_default_of_compile_and_context_managed():
    mesh = kg.distribution.DeviceMesh((1,), ["batch"])
    with kg.distribution.DataParallel(device_mesh=mesh) as dist:
        assert kg.distribution.distribution() is dist
        x = kg.Input(shape=(2,))
        model = kg.Model(x, kg.layers.Dense(1)(x))
        model.compile(optimizer="sgd", loss="mse")
        model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), verbose=0)
        placement = model._training_setup.config["placement"]
        assert placement.mesh is dist.mesh and placement.data_axis == "batch"
    assert kg.distribution.distribution() is None
    with pytest.raises(ValueError, match="axis_names"):
        kg.distribution.DeviceMesh((1, 1), ["batch"])
    with pytest.raises(TypeError, match="Distribution"):
        kg.distribution.set_distribution("data parallel")
