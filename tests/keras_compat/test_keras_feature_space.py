"""``kgraph.utils.FeatureSpace`` against Keras 3's ``keras.utils.FeatureSpace``.

Keras's FeatureSpace runs on TensorFlow, which this environment does not have, so its
outputs, adapted states, configs and ``.keras`` file were recorded with Keras 3.15.1 on
TensorFlow 2.21 by::

    KERAS_BACKEND=tensorflow python tests/support/record_feature_space_oracle.py \\
        tests/keras_compat/feature_space_oracle.json tests/keras_compat/feature_space.keras

(``feature_space_oracle.json``: the outputs on ``TRAIN``, ``TEST`` and one unbatched record
of the spaces in ``SPACES``, their states, configs and file layout; ``feature_space.keras``:
Keras's own file of the ``"concat"`` space). What runs without TensorFlow is compared live:
signatures, errors, the preprocessors' configs, and Keras's ``Discretization`` quantiles.
"""

import inspect
import io
import json
import os
import zipfile

import grain
import h5py
import keras
import numpy as np
import pytest
from keras.src.layers.preprocessing import feature_space as keras_feature_space

import kgraph as kg
from kgraph.utils import FeatureSpace
from tests.support.record_feature_space_oracle import SAMPLE, SPACES, TEST, TRAIN, build

HERE = os.path.dirname(__file__)
with open(os.path.join(HERE, "feature_space_oracle.json")) as _file:
    ORACLE = json.load(_file)
KERAS_FILE = os.path.join(HERE, "feature_space.keras")
INPUTS = {"train": TRAIN, "test": TEST, "sample": SAMPLE}
NUMERIC = ["f", "fd", "fn", "fr", "ic", "ic2", "ih"]  # the first 24 "concat" columns
NUMERIC_WIDTH = 24


@pytest.fixture(scope="module")
def spaces():
    """The recorded spaces, built with kgraph and adapted on ``TRAIN``."""
    out = {}
    for name, spec in SPACES.items():
        space = build(kg, spec)
        space.adapt(TRAIN)
        out[name] = space
    return out


def _pick(data, spec):
    return {name: data[name] for name in spec[0]}


def _assert_like(output, recorded):
    """``output`` has the recorded shape, values and kind (Keras's int64 are int32 here)."""
    output = np.asarray(output)
    assert output.shape == tuple(recorded["shape"])
    assert output.dtype.kind == np.dtype(recorded["dtype"]).kind
    np.testing.assert_allclose(output, np.asarray(recorded["values"]), rtol=0, atol=1e-6)


@pytest.mark.parametrize("space_name", list(SPACES))
@pytest.mark.parametrize("inputs", list(INPUTS))
def test_outputs_equal_kerass(spaces, space_name, inputs):
    space = spaces[space_name]
    output = space(_pick(INPUTS[inputs], SPACES[space_name]))
    recorded = ORACLE["spaces"][space_name]["outputs"][inputs]
    if "values" in recorded:
        _assert_like(output, recorded)
    else:
        crosses = sorted(space.crossers)
        assert list(output) == sorted(set(recorded) - set(crosses)) + crosses  # Keras's order
        for key, value in recorded.items():
            _assert_like(output[key], value)


def _state(layer):
    if isinstance(layer, kg.layers.Normalization):
        return {"mean": np.asarray(layer.adapt_mean).reshape(1, -1).tolist(),
                "variance": np.asarray(layer.adapt_variance).reshape(1, -1).tolist()}
    if isinstance(layer, kg.layers.Discretization):
        return {"bin_boundaries": layer.bin_boundaries}
    if isinstance(layer, (kg.layers.StringLookup, kg.layers.IntegerLookup)):
        return {"vocabulary": layer.get_vocabulary()}
    return {}


@pytest.mark.parametrize("space_name", list(SPACES))
def test_adapted_states_equal_kerass(spaces, space_name):
    states = {name: _state(layer) for name, layer in spaces[space_name].preprocessors.items()}
    recorded = ORACLE["spaces"][space_name]["states"]
    assert set(states) == set(recorded)
    for name, state in states.items():
        assert state.keys() == recorded[name].keys(), name
        for key, value in state.items():
            if key == "vocabulary":
                assert value == recorded[name][key], name
            else:
                np.testing.assert_allclose(value, recorded[name][key], rtol=1e-6)


@pytest.mark.parametrize("sizes,num_bins", [((7,), 3), ((20,), 4), ((50, 50, 37), 32),
                                            ((300,), 5), ((40, 90), 6)])
def test_discretization_adapt_equals_kerass_quantile_summary(sizes, num_bins):
    batches = [np.random.default_rng(n).normal(size=(n, 1)).astype("float32") for n in sizes]
    theirs = keras.layers.Discretization(num_bins=num_bins)
    for batch in batches:  # Keras's adapt() on batches, without its tf.data check
        theirs.update_state(batch)
    theirs.finalize_state()
    ours = kg.layers.Discretization(num_bins=num_bins)
    ours.adapt(batches)
    assert ours.bin_boundaries == list(theirs.bin_boundaries)


def test_graph_model_equals_kerass_numbers():
    """A space of numbers and integers is a graph: a Model from get_inputs() to
    get_encoded_features() gives Keras's numbers, and models build and train on it."""
    features, options, _ = SPACES["concat"]
    space = build(kg, ({name: features[name] for name in NUMERIC}, options, []))
    space.adapt({name: TRAIN[name] for name in NUMERIC})
    inputs, encoded = space.get_inputs(), space.get_encoded_features()
    assert encoded.shape == (None, NUMERIC_WIDTH)
    assert {k: np.dtype(v.dtype).name for k, v in inputs.items()} == {
        k: v for k, v in ORACLE["spaces"]["concat"]["input_dtypes"].items() if k in NUMERIC}
    graph = kg.Model(inputs, encoded)
    test = {name: np.asarray(TEST[name])[:, None] for name in NUMERIC}
    expected = np.asarray(ORACLE["spaces"]["concat"]["outputs"]["test"]["values"])
    np.testing.assert_allclose(graph.predict(test, verbose=0), expected[:, :NUMERIC_WIDTH],
                               atol=1e-6)
    head = kg.layers.Dense(1, activation="sigmoid")(kg.layers.Dense(4)(encoded))
    trained = kg.Model(encoded, head)
    trained.compile("adam", "binary_crossentropy")
    features = np.asarray(space({name: TRAIN[name] for name in NUMERIC}))
    history = trained.fit(features, np.arange(12) % 2, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    end_to_end = kg.Model(inputs, trained(encoded))
    np.testing.assert_allclose(end_to_end.predict(test, verbose=0),
                               trained.predict(expected[:, :NUMERIC_WIDTH], verbose=0),
                               atol=1e-6)


def test_string_features_stay_on_the_host(spaces):
    space = spaces["concat"]
    with pytest.raises(TypeError, match=r"FeatureSpace .*\['sc', 'sc2', 'sh'\] hold strings"):
        space.get_inputs()
    encoded = space.get_encoded_features()
    assert list(encoded.shape) == ORACLE["spaces"]["concat"]["encoded_shape"]
    model = kg.Model(encoded, kg.layers.Dense(1)(encoded))
    model.compile("sgd", "mse")
    history = model.fit(np.asarray(space(TRAIN)), np.zeros(12), epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    shapes = {k: [None, *v.shape[1:]] for k, v in spaces["dict"].get_encoded_features().items()}
    assert shapes == ORACLE["spaces"]["dict"]["encoded_shape"]


@pytest.mark.parametrize("kind", ["records", "generator", "batches", "grain", "grain_batched",
                                  "grain_iter"])
def test_adapt_accepts_iterables_of_dicts(spaces, kind):
    spec = SPACES["dict"]
    records = [{name: TRAIN[name][i] for name in spec[0]} for i in range(12)]
    data = {"records": records, "generator": (r for r in records),
            "batches": [{name: TRAIN[name][i:i + 5] for name in spec[0]} for i in (0, 5, 10)],
            "grain": grain.MapDataset.source(records),
            "grain_batched": grain.MapDataset.source(records).batch(4),
            "grain_iter": grain.MapDataset.source(records).to_iter_dataset()}[kind]
    space = build(kg, spec)
    space.adapt(data)
    for name, value in space(_pick(TEST, spec)).items():
        _assert_like(value, ORACLE["spaces"]["dict"]["outputs"]["test"][name])


@pytest.mark.parametrize("data,message", [
    (np.zeros(3), r"FeatureSpace.adapt\(\) accepts a dict of arrays"),
    ("text", r"FeatureSpace.adapt\(\) accepts"), (None, r"FeatureSpace.adapt\(\) accepts"),
    ([({"fn": 1.0}, 1)], r"must be a dict of features \(drop the labels"),
    ([], "empty dataset"), ({"fn": [1.0]}, "has no feature 'fd'"),
    ([{"fn": 1.0}], "element 0 has no feature 'fd'")])
def test_adapt_refuses_other_data(data, message):
    with pytest.raises(ValueError, match=message):
        build(kg, SPACES["dict"]).adapt(data)


def test_calls_are_checked(spaces):
    space = spaces["dict"]
    with pytest.raises(ValueError, match="can only be called with a dict"):
        space([1.0])
    with pytest.raises(ValueError, match=r"missing \['sh'\], unknown \['label'\]"):
        space({**{k: v for k, v in _pick(TEST, SPACES["dict"]).items() if k != "sh"},
               "label": [1]})
    with pytest.raises(ValueError, match="call `.adapt"):
        FeatureSpace({"x": "float_normalized"})({"x": [1.0]})


def test_signatures_and_errors_equal_kerass():
    theirs, ours = keras.utils.FeatureSpace, FeatureSpace
    for name in ("__init__", "cross", "feature", "float", "float_rescaled", "float_normalized",
                 "float_discretized", "integer_categorical", "string_categorical",
                 "string_hashed", "integer_hashed", "adapt", "get_inputs",
                 "get_encoded_features", "get_config", "save"):
        assert inspect.signature(getattr(ours, name)) == inspect.signature(
            getattr(theirs, name)), name
    for cls in ("Feature", "Cross"):
        assert inspect.signature(getattr(kg.utils.feature_space_specs, cls)) == \
            inspect.signature(getattr(keras_feature_space, cls))
    cases = [lambda lib: lib.FeatureSpace({}),
             lambda lib: lib.FeatureSpace({"a": "float"}, output_mode="x"),
             lambda lib: lib.FeatureSpace({"a": "bogus"}),
             lambda lib: lib.FeatureSpace({"a": "float"}, crosses=[("a", "z")]),
             lambda lib: lib.FeatureSpace({"a": "float"}, crosses=[("a", "a")],
                                          crossing_dim=0),
             lambda lib: lib.FeatureSpace.cross(("a", "b"), 3, output_mode="float"),
             lambda lib: lib.FeatureSpace.feature("float32", None, "multi_hot")]
    for case in cases:
        with pytest.raises(ValueError) as theirs_error:
            case(keras.utils)
        with pytest.raises(ValueError) as ours_error:
            case(kg.utils)
        assert str(ours_error.value) == str(theirs_error.value)


def _policy_name(config):
    dtype = config.get("dtype")
    return {**config, "dtype": dtype["config"]["name"] if isinstance(dtype, dict) else dtype}


def test_preprocessor_configs_equal_kerass():
    """Keras's constructors whose layers run without TensorFlow, compared live."""
    for kind, kwargs in (("float", {}), ("float_normalized", {}),
                         ("float_rescaled", {"scale": 0.5, "offset": 2.0}),
                         ("float_discretized", {"num_bins": 4}),
                         ("float_discretized", {"num_bins": None, "bin_boundaries": [0.5],
                                                "output_mode": "int"})):
        theirs = getattr(keras.utils.FeatureSpace, kind)(name="x", **kwargs)
        ours = getattr(FeatureSpace, kind)(name="x", **kwargs)
        assert (ours.dtype, ours.output_mode) == (theirs.dtype, theirs.output_mode)
        expected = _policy_name(theirs.preprocessor.get_config())
        got = _policy_name(ours.preprocessor.get_config())
        assert json.loads(json.dumps(got)) == json.loads(json.dumps(expected)), kind
    features = {"a": "float", "b": "float_rescaled", "c": "float_discretized"}
    theirs = keras.utils.FeatureSpace(features, num_discretization_bins=5).get_config()
    ours = FeatureSpace(features, num_discretization_bins=5).get_config()
    for config in (theirs, ours):
        for entry in config["features"].values():
            preprocessor = entry["config"]["preprocessor"]
            preprocessor["config"] = _policy_name(preprocessor["config"])
            if preprocessor["module"] == "kgraph.layers":  # written keras.layers in files
                preprocessor["module"] = "keras.layers"
    assert json.loads(json.dumps(ours)) == json.loads(json.dumps(theirs))


def _h5_paths(data):
    found = set()
    with h5py.File(io.BytesIO(data), "r") as file:
        file.visit(found.add)
    return found


@pytest.mark.parametrize("space_name", list(SPACES))
def test_file_layout_equals_kerass(spaces, space_name, tmp_path):
    """kgraph's file: Keras's config (Keras keeps vocabularies in assets and dtypes as
    policies; kgraph keeps both in the config) and Keras's weights layout."""
    path = tmp_path / "space.keras"
    spaces[space_name].save(path)
    recorded = ORACLE["spaces"][space_name]["file"]
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == [m for m in recorded["members"]
                                              if not m.startswith("assets/")]
        config = json.loads(archive.read("config.json"))
        weights = archive.read("model.weights.h5")
    assert _h5_paths(weights) == set(recorded["weights"])
    expected = recorded["config"]
    assert {k: v for k, v in config.items() if k != "config"} == {
        k: v for k, v in expected.items() if k != "config"}
    assert {k: v for k, v in config["config"].items() if k != "features"} == {
        k: v for k, v in expected["config"].items() if k != "features"}
    for name, entry in expected["config"]["features"].items():
        ours = config["config"]["features"][name]
        theirs_pre, ours_pre = (entry["config"]["preprocessor"],
                                ours["config"]["preprocessor"])
        assert {**ours, "config": None} == {**entry, "config": None}
        assert {k: v for k, v in ours["config"].items() if k != "preprocessor"} == {
            k: v for k, v in entry["config"].items() if k != "preprocessor"}
        assert {k: v for k, v in ours_pre.items() if k != "config"} == {
            k: v for k, v in theirs_pre.items() if k != "config"}
        theirs_config = _policy_name(theirs_pre["config"])
        if theirs_pre["class_name"] in ("StringLookup", "IntegerLookup"):
            vocabulary = ORACLE["spaces"][space_name]["states"][name]["vocabulary"]
            specials = len(vocabulary) - len(ours_pre["config"]["vocabulary"])
            theirs_config["vocabulary"] = vocabulary[specials:]
        assert _policy_name(ours_pre["config"]) == theirs_config, name


def test_kerass_file_loads(tmp_path):
    space = kg.saving.load_model(KERAS_FILE)  # as keras.saving.load_model reads it
    assert isinstance(space, FeatureSpace)
    spec = SPACES["concat"]
    for inputs in INPUTS:
        _assert_like(space(_pick(INPUTS[inputs], spec)),
                     ORACLE["spaces"]["concat"]["outputs"][inputs])
    path = tmp_path / "again.keras"
    space.save(path)  # and saved again by kgraph, it loads with the same numbers
    _assert_like(kg.saving.load_model(path)(_pick(TEST, spec)),
                 ORACLE["spaces"]["concat"]["outputs"]["test"])


@pytest.mark.parametrize("space_name", ["dict", "defaults"])
def test_round_trip(spaces, space_name, tmp_path):
    path = tmp_path / "space.keras"
    spaces[space_name].save(path)
    loaded = FeatureSpace.load(path)
    assert loaded.get_config() == spaces[space_name].get_config()
    outputs = loaded(_pick(TEST, SPACES[space_name]))
    recorded = ORACLE["spaces"][space_name]["outputs"]["test"]
    for key, value in (outputs.items() if isinstance(outputs, dict) else [("", outputs)]):
        _assert_like(value, recorded[key] if key else recorded)
    with pytest.raises(ValueError, match="must end in .keras"):
        loaded.save(tmp_path / "space.h5")
