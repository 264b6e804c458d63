"""Files with assets and sharded weights, with Keras as the oracle: a ``.keras`` file whose
adapted lookup layer keeps its vocabulary in ``assets/`` loads in kgraph (and kgraph's in
Keras) with the same vocabulary and outputs; weights saved with ``max_shard_size`` are
Keras's map and shards, and load in the other library; a layer saving under its own keys
(``save_own_variables``) is stored and read under them; a layer given as an activation
round-trips as Keras's; a model whose class has its own ``compile`` warns as Keras on load;
hostile shard maps and assets are refused."""

from __future__ import annotations

import json
import os
import zipfile

import keras
import numpy as np
import pytest

import kgraph as kg
from kgraph.saving.errors import LoadError

TOKENS = np.array([[3], [7], [3], [9]])
PROBE = np.array([[7], [5], [9]])


def _lookup_model(lib):
    inputs = lib.Input(shape=(1,), dtype="int32")
    lookup = lib.layers.IntegerLookup()
    lookup.adapt(TOKENS)
    return lib.Model(inputs, lookup(inputs))


@pytest.mark.parametrize("writer,reader", [(keras, kg), (kg, keras), (kg, kg)])
def test_vocabulary_assets_load_across_libraries(tmp_path, writer, reader):
    path = str(tmp_path / "lookup.keras")
    model = _lookup_model(writer)
    model.save(path)
    assert "assets/layers/integer_lookup/vocabulary.txt" in zipfile.ZipFile(path).namelist()
    loaded = reader.saving.load_model(path)
    assert [int(t) for t in loaded.layers[-1].get_vocabulary()[1:]] == \
        [int(t) for t in model.layers[-1].get_vocabulary()[1:]]
    np.testing.assert_array_equal(np.asarray(loaded.predict(PROBE, verbose=0)),
                                  np.asarray(model.predict(PROBE, verbose=0)))


def test_unclaimed_asset_is_refused(tmp_path):
    x = kg.Input((2,))
    path = str(tmp_path / "m.keras")
    kg.Model(x, kg.layers.Dense(1)(x)).save(path)
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("assets/layers/dense/extra.txt", b"data")
    with pytest.raises(LoadError, match="belongs to no layer"):
        kg.load_model(path)


def _dense_model(lib):
    x = lib.Input((3,))
    return lib.Model(x, lib.layers.Dense(300, name="wide")(lib.layers.Dense(4)(x)))


@pytest.mark.parametrize("writer,reader", [(keras, kg), (kg, keras)])
def test_sharded_weights_across_libraries(tmp_path, writer, reader):
    source, target = _dense_model(writer), _dense_model(reader)
    path = str(tmp_path / "w.weights.json")
    source.save_weights(path, max_shard_size=5e-6)  # ~5 KB shards: two of them
    with open(path) as file:
        weight_map = json.load(file)["weight_map"]
    assert len(os.listdir(tmp_path)) == 3 and len(weight_map["/layers/dense_1/vars"]) == 2
    target.load_weights(path)
    for a, b in zip(source.get_weights(), target.get_weights()):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_sharded_file_names_kgraph_writes_are_keras(tmp_path):
    names = {}
    for lib in (keras, kg):
        folder = tmp_path / lib.__name__
        folder.mkdir()
        _dense_model(lib).save_weights(str(folder / "w.weights.json"), max_shard_size=5e-6)
        with open(folder / "w.weights.json") as file:
            names[lib.__name__] = (sorted(os.listdir(folder)), json.load(file)["weight_map"])
    assert names["kgraph"] == names["keras"]


@pytest.mark.parametrize("bad", ["../outside.weights.h5", "/etc/passwd.h5", "a\\b.h5",
                                 ".hidden.h5", ["x.h5", 3]])
def test_hostile_shard_map_is_refused(tmp_path, bad):
    model = _dense_model(kg)
    path = tmp_path / "w.weights.json"
    model.save_weights(str(path), max_shard_size=5e-6)
    path.write_text(json.dumps({"metadata": {}, "weight_map": {"/layers/wide/vars": bad}}))
    with pytest.raises(LoadError, match="shard"):
        model.load_weights(str(path))


def test_layer_as_activation_round_trips_as_keras():
    layer = kg.layers.Dense(4, activation=kg.layers.ReLU(name="my_relu"))
    oracle = keras.layers.Dense(4, activation=keras.layers.ReLU(name="my_relu"))
    ours, theirs = layer.get_config()["activation"], oracle.get_config()["activation"]
    assert (ours["class_name"], ours["config"]["name"]) == \
        (theirs["class_name"], theirs["config"]["name"])
    clone = kg.saving.deserialize_keras_object(
        json.loads(json.dumps(kg.saving.serialize_keras_object(layer))))
    assert isinstance(clone.activation, kg.layers.ReLU) and clone.activation.name == "my_relu"


class KeyedStore(kg.layers.Layer):
    """A layer saving under its own keys (Keras's ``save_own_variables`` allows any)."""

    def build(self, input_shape):
        self.table = np.zeros((3,), "float64")

    def call(self, x):
        return x

    def save_own_variables(self, store):
        store["table"] = self.table

    def load_own_variables(self, store):
        self.table = np.array(store["table"])


def test_layer_saving_under_its_own_keys(tmp_path):
    x = kg.Input((2,))
    layer = KeyedStore(name="keyed")
    model = kg.Model(x, layer(x))
    layer.table = np.array([1.0, 2.0, 3.0])
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    import h5py
    with h5py.File(path) as file:
        assert list(file["layers/keyed_store/vars"]) == ["table"]  # Keras's layout
    clone = kg.Model(x, KeyedStore(name="keyed")(x))
    clone.load_weights(path)
    np.testing.assert_array_equal(clone.layers[-1].table, [1.0, 2.0, 3.0])


@pytest.mark.parametrize("lib", [keras, kg])
def test_model_with_its_own_compile_is_not_compiled_on_load(tmp_path, lib):
    class OwnCompile(lib.Model):
        def compile(self, *args, **kwargs):
            super().compile(*args, **kwargs)

    x = lib.Input((2,))
    model = OwnCompile(x, lib.layers.Dense(1)(x))
    model.compile("sgd", "mse")
    path = str(tmp_path / "m.keras")
    model.save(path)
    with pytest.warns(UserWarning, match=r"`compile\(\)` was not called as part of model "
                                         "loading because the model's `compile\\(\\)` method "
                                         "is custom"):
        lib.saving.load_model(path, custom_objects={"OwnCompile": OwnCompile})


def test_a_vocabulary_file_is_an_asset_not_config_as_keras(tmp_path):
    """A lookup given a vocabulary file leaves it out of its config (as Keras's) and its
    ``.keras`` file carries it in ``assets/``: it loads after the file is gone."""
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\nc\n")
    configs = []
    for lib in (kg, keras):
        layer = lib.layers.StringLookup(vocabulary=str(vocab), oov_token="[OOV]",
                                        mask_token="[MASK]", name="index")
        configs.append(layer.get_config().get("vocabulary"))
    assert configs == [None, None]
    model = kg.Sequential([layer_ := kg.layers.StringLookup(
        vocabulary=str(vocab), oov_token="[OOV]", mask_token="[MASK]", name="index")])
    vocab.unlink()
    model.save(tmp_path / "m.keras")
    loaded = kg.saving.load_model(tmp_path / "m.keras").get_layer("index")
    assert loaded.get_vocabulary() == layer_.get_vocabulary() == ["[MASK]", "[OOV]", "a",
                                                                  "b", "c"]
