"""KerasHub's backbones on kgraph, against Keras: code we did not write, run unchanged.

With ``kgraph.compat.install()``, KerasHub's ``import keras`` gives kgraph. Each of 14
backbones at a tiny configuration (``tests/support/keras_hub_cases.py``) is built by
KerasHub under Keras and under kgraph, in separate processes: kgraph loads the weights file
Keras wrote, and must have Keras's parameter count and outputs, and compile to one pure
program (``compiler.compile``) with the same outputs. A ``LlamaCausalLM`` takes one
``fit`` step equal to Keras's, and one with LoRA enabled on its backbone; a backbone's
``.keras`` file goes both ways.

A deeper ``LlamaCausalLM`` (``tests/support/keras_hub_deep.py``, on 8 simulated devices)
runs its decoder blocks as one scan inside the nested backbone, their weights stacked,
with the numbers of the unrolled program; trains fully sharded as on one device; and
exports with ``compiler.export``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

pytest.importorskip("keras_hub", reason="KerasHub is installed by the README's test command")

_SUPPORT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "support")
sys.path.insert(0, _SUPPORT)
import keras_hub_cases  # noqa: E402

# one group: the runs are made once, on one worker
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("keras_hub")]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("keras_hub"))
    env = {**os.environ, "KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu"}
    for system in ("keras", "kgraph", "keras-load"):
        done = subprocess.run([sys.executable, os.path.join(_SUPPORT, "keras_hub_cases.py"),
                               system, directory], env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, f"{system} run failed:\n{done.stderr[-4000:]}"
    return directory


def _load(directory, name):
    with np.load(os.path.join(directory, name)) as data:
        return {key: data[key] for key in data.files}


def _assert_close(got, want, what):
    scale = max(float(np.max(np.abs(value))) for value in want.values())
    assert set(got) == set(want), what
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=0, atol=1e-4 * scale,
                                   err_msg=f"{what}: {name}")


@pytest.mark.parametrize("case", list(keras_hub_cases.CASES))
def test_backbone_matches_keras_on_keras_weights(runs, case):
    keras = _load(runs, f"{case}.keras.npz")
    kgraph = _load(runs, f"{case}.kgraph.npz")
    assert int(kgraph.pop("params")) == int(keras.pop("params")) > 0
    compiled = {name[len("compiled/"):]: kgraph.pop(name)
                for name in list(kgraph) if name.startswith("compiled/")}
    _assert_close(kgraph, keras, f"{case} eager outputs")
    _assert_close(compiled, keras, f"{case} compiled program's outputs")


def test_causal_lm_fit_step_matches_keras(runs):
    keras = _load(runs, "fit.keras.npz")
    kgraph = _load(runs, "fit.kgraph.npz")
    _assert_same_step(kgraph, keras, "the step")


def _assert_same_step(kgraph, keras, what):
    """The same loss and the same weights after ``what``."""
    np.testing.assert_allclose(kgraph.pop("loss"), keras.pop("loss"), rtol=1e-5)
    assert len(kgraph) == len(keras) > 10
    for name in keras:
        np.testing.assert_allclose(kgraph[name], keras[name], rtol=0, atol=1e-6,
                                   err_msg=f"weight {name} after {what}")


def test_backbone_enable_lora_trains_and_saves_as_on_keras(runs):
    """KerasHub's LoRA fine-tuning (``backbone.enable_lora``, ``save_lora_weights``): the
    same weights trained, the same step, the same ``.lora.h5`` file."""
    import h5py

    keras = _load(runs, "lora.keras.npz")
    kgraph = _load(runs, "lora.kgraph.npz")
    trained = [str(name) for name in keras.pop("trained")]
    assert [str(name) for name in kgraph.pop("trained")] == trained
    assert trained and all("lora_kernel" in name for name in trained)
    _assert_same_step(kgraph, keras, "the LoRA step")

    def contents(system):
        found = {}
        with h5py.File(os.path.join(runs, f"llama.{system}.lora.h5"), "r") as file:
            file.visititems(lambda name, item: found.__setitem__(name, item[()])
                            if isinstance(item, h5py.Dataset) else None)
        return found

    ours, theirs = contents("kgraph"), contents("keras")
    assert sorted(ours) == sorted(theirs) and len(theirs) > 2
    for name, value in theirs.items():
        np.testing.assert_allclose(ours[name], value, rtol=0, atol=1e-6, err_msg=name)


def test_backbone_keras_files_go_both_ways(runs):
    keras = {k: v for k, v in _load(runs, "gpt2.keras.npz").items() if k != "params"}
    _assert_close(_load(runs, "file.kgraph.npz"), keras, "Keras's file loaded by kgraph")
    _assert_close(_load(runs, "file.keras-load.npz"), keras, "kgraph's file loaded by Keras")
    with zipfile.ZipFile(os.path.join(runs, "gpt2.kgraph.keras")) as archive:
        config = json.loads(archive.read("config.json"))
    assert config["registered_name"] == "keras_hub>GPT2Backbone"
    assert config["class_name"] == "GPT2Backbone"


@pytest.fixture(scope="module")
def deep(tmp_path_factory):
    """``tests/support/keras_hub_deep.py``'s report, run on 8 simulated devices."""
    directory = str(tmp_path_factory.mktemp("keras_hub_deep"))
    env = {**os.environ, "KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu",
           "JAX_NUM_CPU_DEVICES": "8"}
    done = subprocess.run([sys.executable, os.path.join(_SUPPORT, "keras_hub_deep.py"),
                           directory], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"deep run failed:\n{done.stderr[-4000:]}"
    with open(os.path.join(directory, "deep.json")) as file:
        return json.load(file)


def test_a_deep_causal_lm_scans_its_blocks_inside_the_nested_backbone(deep):
    import keras_hub_deep

    layers = keras_hub_deep.LAYERS
    # one run of every decoder block, inside the backbone; the padding mask rides along
    assert deep["runs"]["found"] == [[layers, ["llama_backbone"], 0]]
    assert deep["runs"]["stacked"] == [
        ["llama_backbone", f"transformer_layer_0..transformer_layer_{layers - 1}"]]
    assert deep["scan"]
    assert deep["stacked_vs_unrolled"] <= 1e-5


def test_a_deep_causal_lm_trains_fully_sharded_on_8_devices_as_on_one(deep):
    assert deep["fsdp_devices"] == 8
    assert deep["fsdp_vs_one_device"] <= 1e-5


def test_a_deep_backbone_exports_and_runs_without_kgraph(deep):
    assert deep["export"] <= 1e-5
