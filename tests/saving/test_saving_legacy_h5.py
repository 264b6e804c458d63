"""Keras's legacy HDF5 files: model files (``model.save("m.h5")``) and weights files (the
pretrained keras.applications format), read with the same checks as ``.keras`` files."""


import h5py
import keras
import numpy as np
import pytest
from keras.src.legacy.saving import legacy_h5_format

import kgraph as kg
from kgraph.saving import LoadError


def _network():
    x = keras.Input((4,), name="x")
    h = keras.layers.Dense(4, name="dense")(keras.layers.BatchNormalization(name="bn")(
        keras.layers.Dense(4, name="first")(x)))
    seq = keras.layers.Reshape((2, 2))(h)
    out = keras.layers.Concatenate()([keras.layers.Bidirectional(keras.layers.LSTM(3))(seq),
                                      keras.layers.GRU(2)(seq)])
    model = keras.Model(x, out)
    rng = np.random.default_rng(0)
    for variable in model.weights:
        variable.assign(rng.uniform(0.5, 1.5, variable.shape).astype(variable.dtype))
    return model


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("legacy")
    network = _network()
    model_file, weights_file = str(folder / "model.h5"), str(folder / "weights.h5")
    network.save(model_file)
    with h5py.File(weights_file, "w") as file:
        legacy_h5_format.save_weights_to_hdf5_group(file, network)
    inputs = np.random.default_rng(1).normal(size=(3, 4)).astype("float32")
    return network, model_file, weights_file, inputs


def test_a_legacy_model_file_loads_with_kerass_numbers(files):
    network, model_file, _, inputs = files
    model = kg.load_model(model_file)
    np.testing.assert_allclose(model(inputs), network(inputs), rtol=1e-5, atol=1e-6)


def test_a_legacy_weights_file_loads_by_layer_order(files):
    network, model_file, weights_file, inputs = files
    model = kg.load_model(model_file)
    for variable in model.weights:
        variable.assign(np.zeros(variable.shape, variable.dtype))
    model.load_weights(weights_file)
    np.testing.assert_allclose(model(inputs), network(inputs), rtol=1e-5, atol=1e-6)


def _damaged(files, tmp_path, mutate):
    _, model_file, weights_file, _ = files
    path = tmp_path / "damaged.h5"
    path.write_bytes(open(weights_file, "rb").read())
    with h5py.File(path, "r+") as file:
        mutate(file)
    return str(path)


@pytest.mark.parametrize("mutate, message", [
    (lambda f: f["dense"].__setitem__("evil", h5py.ExternalLink("/etc/passwd", "/")),
     "ExternalLink"),
    (lambda f: f["dense"].attrs.__setitem__("weight_names", [b"dense/kernel"]),
     "holds 1 weights in the file"),
    (lambda f: f.attrs.__setitem__("layer_names", [b"dense"]), "weights for 1 layers"),
    (lambda f: f["dense"].create_dataset("stray", data=np.zeros(2)), "match no weight"),
    (lambda f: f.attrs.__setitem__("layer_names", np.arange(3)), "must be a list of strings"),
    (lambda f: f.attrs.__setitem__("exec", b"x"), "unexpected attribute 'exec'"),
])
def test_damaged_or_hostile_legacy_files_are_refused(files, tmp_path, mutate, message):
    model = kg.load_model(files[1])
    with pytest.raises(LoadError, match=message):
        model.load_weights(_damaged(files, tmp_path, mutate))


def test_a_legacy_model_file_compiles_with_its_training_config(tmp_path):
    x = keras.Input((4,))
    network = keras.Model(x, keras.layers.Dense(2)(x))
    network.compile(keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    data = np.ones((8, 4), np.float32), np.ones((8, 2), np.float32)
    network.fit(*data, verbose=0)
    network.save(tmp_path / "m.h5")
    with pytest.warns(UserWarning, match="optimizer state .* is not read"):
        model = kg.load_model(tmp_path / "m.h5")
    assert type(model.optimizer).__name__ == "SGD"
    ours = model.evaluate(*data, verbose=0, return_dict=True)
    theirs = network.evaluate(*data, verbose=0, return_dict=True)
    assert set(ours) == set(theirs) == {"loss", "mae"}
    np.testing.assert_allclose(ours["loss"], theirs["loss"], rtol=1e-6)
    assert kg.load_model(tmp_path / "m.h5", compile=False).optimizer is None
