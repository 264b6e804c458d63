"""compiler.export: the program and its weights as files that run with JAX alone."""

import json
import os
import pathlib
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg

# The loader docs/export.md shows, run in a process where kgraph, compiler and runtime can't be imported.
LOADER = '''
import sys
for name in ("kgraph", "compiler", "runtime"):
    sys.modules[name] = None  # importing any of them now fails
import jax, numpy as np
from safetensors.numpy import load_file

def load(directory):
    with open(f"{directory}/program.jaxexport", "rb") as f:
        exported = jax.export.deserialize(bytearray(f.read()))
    trees = {"params": {}, "state": {}}
    for key, value in load_file(f"{directory}/weights.safetensors").items():
        *path, leaf = key.split("/")
        node = trees
        for name in path:
            node = node.setdefault(name, {})
        node[leaf] = value
    return lambda inputs: exported.call(trees["params"], trees["state"], inputs)

directory, inputs_file, outputs_file = sys.argv[1:]
for name in ("kgraph", "compiler", "runtime"):
    try:
        __import__(name)
        raise SystemExit(f"{name} was importable")
    except ImportError:
        pass
run = load(directory)
np.savez(outputs_file, **{name: np.asarray(run(x)) for name, x in np.load(inputs_file).items()})
'''


def _model():
    kg.utils.set_random_seed(0)
    x = kg.Input(shape=(6, 4), name="series")
    h = kg.layers.Conv1D(8, 3, padding="same", activation="relu")(x)
    h = kg.layers.BatchNormalization()(h)
    h = kg.layers.LayerNormalization()(kg.layers.Dense(8)(h))
    h = kg.layers.GlobalAveragePooling1D()(kg.layers.Dropout(0.5)(h))
    for i in range(4):  # repeated blocks: scanned, and exported with named weights
        h = kg.layers.Dense(8, activation="tanh", name=f"block{i}")(h)
    return kg.Model(x, kg.layers.Dense(3, name="scores")(h))


def test_the_exported_program_runs_without_kgraph_at_any_batch_size(tmp_path):
    model = _model()
    rng = np.random.default_rng(0)
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    state = jax.tree_util.tree_map(lambda a: a * 1.5 + 0.25, state)  # not the initial values
    signature = compiler.export(program, tmp_path / "out", params=params, state=state)
    assert signature["inputs"] == [{"name": "series", "shape": ["b", 6, 4],
                                    "dtype": "float32"}]
    assert signature["outputs"] == [{"name": "scores", "shape": ["b", 3], "dtype": "float32"}]
    assert signature["versions"]["jax"] == jax.__version__
    on_disk = json.loads((tmp_path / "out" / "signature.json").read_text())
    assert on_disk == signature
    batches = {str(n): rng.normal(size=(n, 6, 4)).astype("f4") for n in (1, 3, 8)}
    np.savez(tmp_path / "inputs.npz", **batches)
    (tmp_path / "loader.py").write_text(LOADER)
    result = subprocess.run([sys.executable, str(tmp_path / "loader.py"), str(tmp_path / "out"),
                             str(tmp_path / "inputs.npz"), str(tmp_path / "outputs.npz")],
                            capture_output=True, text=True, timeout=300, cwd=tmp_path,
                            env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert result.returncode == 0, result.stderr[-3000:]
    outputs = np.load(tmp_path / "outputs.npz")
    for name, x in batches.items():
        expected, _ = program.apply(params, state, jnp.asarray(x))
        np.testing.assert_allclose(outputs[name], np.asarray(expected), atol=1e-6, rtol=1e-6)


def test_a_model_exports_its_own_weights_and_stacked_weights_are_unstacked(tmp_path):
    model = _model()
    compiler.export(model, tmp_path / "a")
    params, state = compiler.load_safetensors(tmp_path / "a" / "weights.safetensors")
    assert "block2" in params and "block0..block3" not in params
    own = compiler.variables(model)
    for a, b in zip(jax.tree_util.tree_leaves((params, state)), jax.tree_util.tree_leaves(own)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    program = compiler.compile(model)
    stacked = program.stack(*own)
    compiler.export(program, tmp_path / "b", params=stacked[0], state=stacked[1])
    again = compiler.load_safetensors(tmp_path / "b" / "weights.safetensors")
    assert sorted(again[0]) == sorted(params)


def test_weights_are_arguments_so_other_weights_can_be_swapped_in(tmp_path):
    model = _model()
    compiler.export(model, tmp_path / "m")
    exported = jax.export.deserialize(
        bytearray((tmp_path / "m" / "program.jaxexport").read_bytes()))
    params, state = compiler.load_safetensors(tmp_path / "m" / "weights.safetensors")
    doubled = jax.tree_util.tree_map(lambda a: a * 2, params)
    x = jnp.ones((2, 6, 4))
    expected, _ = compiler.compile(model).apply(doubled, state, x)
    np.testing.assert_allclose(exported.call(doubled, state, x), expected, atol=1e-5)
    size = (tmp_path / "m" / "program.jaxexport").stat().st_size
    assert size < 64 << 10  # no weights baked in


def test_dict_inputs_several_outputs_and_platforms(tmp_path):
    a, b = kg.Input(shape=(3,), name="a-feat"), kg.Input(shape=(None, 2), name="token-ids")
    pooled = kg.layers.GlobalMaxPooling1D()(b)
    joined = kg.layers.Concatenate()([a, pooled])
    model = kg.Model({"z_tokens": b, "a": a}, [kg.layers.Dense(2, name="left")(joined),
                                               kg.layers.Dense(1, name="right")(joined)])
    signature = compiler.export(model, tmp_path / "d", platforms=("cpu", "tpu"))
    assert signature["platforms"] == ["cpu", "tpu"] and signature["input_structure"] == "dict"
    assert [(i["key"], i["name"], i["shape"]) for i in signature["inputs"]] == [
        ("a", "a-feat", ["b", 3]), ("z_tokens", "token-ids", ["b", "b_1", 2])]
    assert [o["name"] for o in signature["outputs"]] == ["left", "right"]
    exported = jax.export.deserialize(
        bytearray((tmp_path / "d" / "program.jaxexport").read_bytes()))
    params, state = compiler.variables(model)
    inputs = {"a": jnp.ones((5, 3)), "z_tokens": jnp.ones((5, 7, 2))}
    got = exported.call(params, state, inputs)
    expected, _ = compiler.compile(model).apply(params, state, inputs)
    for x, y in zip(got, expected):
        np.testing.assert_allclose(x, y, atol=1e-6)


def test_named_axes_tie_the_unknown_sizes_of_several_inputs(tmp_path):
    tokens = kg.Input(shape=(None,), name="tokens", dtype="int32")
    mask = kg.Input(shape=(None,), name="mask")
    embedded = kg.layers.Embedding(10, 4)(tokens)
    gate = kg.layers.Lambda(lambda m: m[..., None])(mask)
    model = kg.Model({"tokens": tokens, "mask": mask},
                     kg.layers.Multiply()([embedded, gate]))  # needs one length
    with pytest.raises(ValueError, match="cannot be exported"):
        compiler.export(model, tmp_path / "untied")  # two lengths, unrelated
    signature = compiler.export(model, tmp_path / "d",
                                shapes={"tokens": ("b", "length"), "mask": (None, "length")})
    assert [i["shape"] for i in signature["inputs"]] == [["b", "length"], ["b", "length"]]
    exported = jax.export.deserialize(
        bytearray((tmp_path / "d" / "program.jaxexport").read_bytes()))
    params, state = compiler.variables(model)
    for batch, length in ((1, 3), (4, 7)):
        inputs = {"tokens": jnp.ones((batch, length), "int32"),
                  "mask": jnp.asarray(np.arange(batch * length).reshape(batch, length) % 2,
                                      "float32")}
        np.testing.assert_allclose(exported.call(params, state, inputs),
                                   model(inputs), atol=1e-6)
    fixed = compiler.export(model, tmp_path / "fixed", shapes={"tokens": (None, 5),
                                                                "mask": (None, 5)})
    assert [i["shape"] for i in fixed["inputs"]] == [["b", 5], ["b", 5]]
    for shapes, message in [({"ids": ("b", "n")}, "'ids', which is not an input"),
                            ({"tokens": ("b",)}, "has 1 axes"),
                            ({"tokens": ("b", "a length")}, "must be a name"),
                            ({"tokens": ("b", 0)}, "is not a size")]:
        with pytest.raises(ValueError, match=message):
            compiler.export(model, tmp_path / "bad", shapes=shapes)


def test_layers_that_cannot_be_exported_are_named(tmp_path):
    class FixedBatch(kg.layers.Layer):
        def call(self, x):
            return jnp.reshape(x, (int(x.shape[0]) * 2, -1))  # needs a concrete batch

    class HostCall(kg.layers.Layer):
        def call(self, x):
            return jax.pure_callback(lambda v: np.asarray(v) * 2,
                                     jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    for layer, message in [(FixedBatch(name="fixed"), "Layer 'fixed' .* symbolic batch"),
                           (HostCall(name="host"), "Layer 'host' .* calls back into Python")]:
        x = kg.Input(shape=(4,))
        model = kg.Model(x, layer(kg.layers.Dense(4)(x)))
        with pytest.raises(ValueError, match=message):
            compiler.export(model, tmp_path / layer.name)
        assert not (tmp_path / layer.name / "program.jaxexport").exists()


def test_bad_arguments_are_errors(tmp_path):
    model = _model()
    with pytest.raises(ValueError, match="platforms must be some of"):
        compiler.export(model, tmp_path / "x", platforms=("cpu", "gpu9"))
    with pytest.raises(ValueError, match="batch_dim must be a name"):
        compiler.export(model, tmp_path / "x", batch_dim="batch size")
    with pytest.raises(ValueError, match="expected shape"):
        params, state = compiler.variables(model)
        params["scores"]["kernel"] = params["scores"]["kernel"][:2]
        compiler.export(model, tmp_path / "x", params=params, state=state)


def test_the_docs_show_the_loader_this_test_runs():
    readme = (pathlib.Path(__file__).parents[2] / "docs" / "export.md").read_text()
    body = LOADER[LOADER.index("def load("):LOADER.index("directory, inputs_file")].strip()
    assert body in readme


def test_mixed_precision_exports_each_platform_its_own_contraction(tmp_path):
    x = kg.Input(shape=(16,))
    model = kg.Model(x, kg.layers.Dense(8, dtype="mixed_bfloat16", name="half")(x))
    compiler.export(model, tmp_path / "m", platforms=("cpu", "tpu"))
    exported = jax.export.deserialize(
        bytearray((tmp_path / "m" / "program.jaxexport").read_bytes()))
    module = exported.mlir_module()
    # the accelerator's form accumulates bf16 x bf16 in float32; CPU's uses float32 copies
    assert "tensor<?x16xbf16>, tensor<16x8xbf16>) -> tensor<?x8xf32>" in module
    assert "tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>" in module
    params, state = compiler.variables(model)
    inputs = jnp.ones((3, 16))
    expected, _ = compiler.compile(model).apply(params, state, inputs)
    np.testing.assert_allclose(np.asarray(exported.call(params, state, inputs), np.float32),
                               np.asarray(expected, np.float32))
