"""``HashedCrossing`` against Keras's numbers. Keras's layer needs TensorFlow (its bins are
``tf.sparse.cross_hashed``), which this environment does not have, so the expected bins,
configs and file config below were produced by Keras 3.15's ``HashedCrossing`` running on
TensorFlow 2.21 and are written out here."""

import io
import json
import zipfile

import jax
import numpy as np
import pytest

import kgraph as kg
from kgraph.layers.hashed_crossing import cross_hashed

_INTS = np.array([[3], [-1], [0], [2 ** 40], [-2 ** 40], [7]], "int64")
_TEXTS = np.array([["x"], ["yy"], [""], ["é"], ["long string here"], ["x"]])
_DOC = (np.array(["A", "B", "A", "B", "A"]), np.array([101, 101, 101, 102, 102]))

# (num_bins, output_mode, inputs, Keras's output)
_CASES = {
    "strings-ints": (5, "int", _DOC, [1, 4, 1, 1, 3]),
    "one-hot": (5, "one_hot", _DOC, [[0, 1, 0, 0, 0], [0, 0, 0, 0, 1], [0, 1, 0, 0, 0],
                                     [0, 1, 0, 0, 0], [0, 0, 0, 1, 0]]),
    "int64-and-unicode": (1000, "int", (_INTS, _TEXTS), [[419], [727], [158], [859], [595],
                                                         [56]]),
    "order-matters": (1000, "int", (_TEXTS, _INTS), [[960], [54], [600], [961], [31], [783]]),
    "three-features": (97, "int", (_INTS, _TEXTS, _INTS), [[46], [24], [43], [39], [5], [33]]),
    "int32": (1000, "int", (_INTS[:3].astype("int32"),) * 2, [[185], [229], [304]]),
    "small-ints": (50, "int", (np.array([1, 2], "uint8"), np.array([3, 4], "int16")), [1, 47]),
    "bytes": (1000, "int", (np.array([b"x", b"yy"]), np.array([b"\xff", b"z"])), [413, 873]),
    "scalars": (10, "int", (np.array("A"), np.array(3)), 6),
    "scalars-one-hot": (10, "one_hot", (np.array("A"), np.array(3)),
                        [[0, 0, 0, 0, 0, 0, 1, 0, 0, 0]]),
    "rank-1-one-hot": (6, "one_hot", (np.array(["a", "b"]), np.array(["c", "d"])),
                       [[1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0]]),
}
# Keras's config.json of Model([p, q], HashedCrossing(11, output_mode="one_hot")([p, q]))
_KERAS_MODEL_CONFIG = {
    "module": "keras.src.models.functional", "class_name": "Functional", "config": {
        "name": "functional_1", "trainable": True, "layers": [
            {"module": "keras.layers", "class_name": "InputLayer", "config": {
                "batch_shape": [None, 1], "dtype": "int64", "sparse": False, "ragged": False,
                "name": name, "optional": False}, "registered_name": None, "name": name,
             "inbound_nodes": []} for name in ("p", "q")] + [
            {"module": "keras.layers", "class_name": "HashedCrossing", "config": {
                "num_bins": 11, "output_mode": "one_hot", "sparse": False, "name": "cross",
                "dtype": "float32"}, "registered_name": None,
             "build_config": {"input_shape": [[None, 1], [None, 1]]}, "name": "cross",
             "inbound_nodes": [{"args": [[
                 {"class_name": "__keras_tensor__", "config": {
                     "shape": [None, 1], "dtype": "int64", "keras_history": [name, 0, 0]}}
                 for name in ("p", "q")]], "kwargs": {}}]}],
        "input_layers": [["p", 0, 0], ["q", 0, 0]], "output_layers": ["cross", 0, 0]},
    "registered_name": "Functional", "build_config": {"input_shape": None},
    "compile_config": {}}
_IDS = np.array([[3], [-1], [0]], "int32")
_MODEL_OUTPUT = np.eye(11, dtype="float32")[[1, 9, 4]]  # Keras's, on (_IDS, _IDS[::-1])


@pytest.mark.parametrize("case", list(_CASES))
def test_bins_equal_kerass(case):
    num_bins, mode, inputs, expected = _CASES[case]
    outputs = kg.layers.HashedCrossing(num_bins, output_mode=mode)(inputs)
    expected = np.asarray(expected, "float32" if mode == "one_hot" else "int32")
    assert outputs.dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(outputs), expected)


def test_the_hash_keeps_64_bits():
    bins = cross_hashed([np.array(["p", "q"]), np.array([1, 2])], 2 ** 40)
    np.testing.assert_array_equal(bins, [785430662312, 111846944199])  # Keras's int64 bins
    with pytest.raises(ValueError, match=r"num_bins=1099511627776 does not fit"):
        kg.layers.HashedCrossing(2 ** 40)((np.array(["p"]), np.array([1])))


def test_configs_equal_kerass():
    expected = [
        (kg.layers.HashedCrossing(5, name="a"),
         {"num_bins": 5, "output_mode": "int", "sparse": False, "name": "a", "dtype": "int64"}),
        (kg.layers.HashedCrossing(5, output_mode="one_hot", name="b"),
         {"num_bins": 5, "output_mode": "one_hot", "sparse": False, "name": "b",
          "dtype": "float32"}),
        (kg.layers.HashedCrossing(7, dtype="int32", name="c"),
         {"num_bins": 7, "output_mode": "int", "sparse": False, "name": "c", "dtype": "int32"}),
    ]
    for layer, config in expected:
        assert layer.get_config() == config
        assert kg.layers.HashedCrossing.from_config(config).get_config() == config
    assert kg.layers.HashedCrossing(5).name == "hashed_crossing"


def test_integer_crosses_run_in_models_jit_and_vmap(tmp_path):
    p, q = kg.Input((1,), dtype="int32", name="p"), kg.Input((1,), dtype="int32", name="q")
    model = kg.Model([p, q], kg.layers.HashedCrossing(11, output_mode="one_hot",
                                                      name="cross")([p, q]))
    assert model.output_shape == (None, 11)
    np.testing.assert_array_equal(model.predict([_IDS, _IDS[::-1]], verbose=0), _MODEL_OUTPUT)
    np.testing.assert_array_equal(np.asarray(model([_IDS, _IDS[::-1]])), _MODEL_OUTPUT)
    expected = kg.layers.HashedCrossing(13)([_IDS, _IDS[::-1]])
    for transform in (jax.jit, jax.vmap):
        outputs = transform(lambda a, b: kg.layers.HashedCrossing(13)([a, b]))(_IDS,
                                                                                 _IDS[::-1])
        np.testing.assert_array_equal(np.asarray(outputs), np.asarray(expected))
    three = [kg.Input((), dtype="int32") for _ in range(3)]
    assert kg.Model(three, kg.layers.HashedCrossing(7)(three)).output_shape == (None,)


def test_files_as_keras_writes_them_load(tmp_path):
    p, q = kg.Input((1,), dtype="int32", name="p"), kg.Input((1,), dtype="int32", name="q")
    model = kg.Model([p, q], kg.layers.HashedCrossing(11, output_mode="one_hot",
                                                      name="cross")([p, q]))
    model.save(tmp_path / "kgraph.keras")
    with zipfile.ZipFile(tmp_path / "kgraph.keras") as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    written = json.loads(files["config.json"])["config"]["layers"][-1]
    expected = _KERAS_MODEL_CONFIG["config"]["layers"][-1]
    assert {k: written[k] for k in ("module", "class_name", "config", "registered_name")} == \
        {k: expected[k] for k in ("module", "class_name", "config", "registered_name")}
    files["config.json"] = json.dumps(_KERAS_MODEL_CONFIG).encode()  # Keras's own file
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    (tmp_path / "keras.keras").write_bytes(buffer.getvalue())
    loaded = kg.load_model(tmp_path / "keras.keras")
    np.testing.assert_array_equal(loaded.predict([_IDS, _IDS[::-1]], verbose=0), _MODEL_OUTPUT)


@pytest.mark.parametrize("kwargs,match", [
    ({"num_bins": 5, "output_mode": "multi_hot"},
     r"HashedCrossing.*`output_mode`.*\('int', 'one_hot'\). Received: output_mode='multi_hot'"),
    ({"num_bins": 0}, r"HashedCrossing.*`num_bins` should be a positive integer.*num_bins=0"),
    ({"num_bins": 5, "sparse": True}, r"HashedCrossing.*sparse=True is not supported"),
])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        kg.layers.HashedCrossing(**kwargs)


@pytest.mark.parametrize("inputs,match", [
    (np.array([1, 2]), r"HashedCrossing.*list or tuple of inputs. Received: inputs=array"),
    ([np.array([1, 2])], r"HashedCrossing.*at least two inputs. Received: 1 input"),
    ((np.array([[1, 2]]),) * 2, r"HashedCrossing.*shape `\(\)`, `\(batch_size\)` or "
                                r"`\(batch_size, 1\)`. Received shapes: \[\(1, 2\), \(1, 2\)\]"),
    ((np.array([1, 2]), np.array([1, 2, 3])),
     r"HashedCrossing.*equal shape. Received shapes: \[\(2,\), \(3,\)\]"),
    ((np.array([1.0, 2.0]), np.array([1, 2])),
     r"HashedCrossing.*integer or string dtype. Received dtypes: \['float64', 'int64'\]"),
])
def test_bad_inputs_are_refused(inputs, match):
    with pytest.raises(ValueError, match=match):
        kg.layers.HashedCrossing(5)(inputs)


def test_floats_are_refused_inside_compiled_programs_too():
    with pytest.raises(ValueError, match=r"integer or string dtype.*'float32', 'int32'"):
        jax.jit(lambda a, b: kg.layers.HashedCrossing(5)([a, b]))(np.ones(2, "float32"),
                                                                   np.ones(2, "int32"))
    with pytest.raises(ValueError, match=r"equal shape. Received shapes: \[\(None, 1\), "
                                         r"\(None, 2\)\]"):
        kg.layers.HashedCrossing(5)([kg.Input((1,), dtype="int32"),
                                     kg.Input((2,), dtype="int32")])
