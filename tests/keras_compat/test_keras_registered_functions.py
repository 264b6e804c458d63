"""``register_keras_serializable`` on a function, as Keras allows: the function is found by
its registered name, and a layer using it as its activation travels through ``.keras``
files both ways."""

import keras
import numpy as np
import pytest

import kgraph as kg


@kg.saving.register_keras_serializable(package="kgraph_tests", name="squared")
def squared(x):
    return x * x


@keras.saving.register_keras_serializable(package="kgraph_tests", name="squared")
def keras_squared(x):
    return x * x


def test_a_registered_function_is_found_by_name():
    assert kg.saving.get_registered_name(squared) == "kgraph_tests>squared"
    assert kg.saving.get_registered_object("kgraph_tests>squared") is squared
    assert kg.activations.get("kgraph_tests>squared") is squared
    assert kg.saving.get_registered_name(kg.activations.relu) == "relu"


def test_a_registered_activation_travels_through_keras_files(tmp_path):
    data = np.random.default_rng(0).normal(size=(4, 3)).astype("float32")
    x = kg.Input(shape=(3,))
    model = kg.Model(x, kg.layers.Dense(2, activation=squared)(x))
    assert model.layers[1].get_config()["activation"] == \
        keras.layers.Dense(2, activation=keras_squared).get_config()["activation"]
    model.save(tmp_path / "ours.keras")
    back = kg.saving.load_model(tmp_path / "ours.keras")
    assert back.layers[1].activation is squared
    theirs = keras.saving.load_model(tmp_path / "ours.keras")
    assert theirs.layers[1].activation is keras_squared
    np.testing.assert_allclose(np.asarray(theirs(data)), np.asarray(model(data)), rtol=1e-6)
    theirs.save(tmp_path / "theirs.keras")
    assert kg.saving.load_model(tmp_path / "theirs.keras").layers[1].activation is squared


def test_a_class_without_get_config_is_refused():
    with pytest.raises(ValueError, match="does not have a get_config"):
        kg.saving.register_keras_serializable()(type("Plain", (), {}))


@kg.saving.register_keras_serializable(package="kgraph_tests", name="doubled_mse")
def doubled_mse(y_true, y_pred):
    return 2 * kg.ops.mean(kg.ops.square(y_pred - y_true), axis=-1)


@keras.saving.register_keras_serializable(package="kgraph_tests", name="doubled_mse")
def keras_doubled_mse(y_true, y_pred):
    return 2 * keras.ops.mean(keras.ops.square(y_pred - y_true), axis=-1)


def test_a_registered_loss_is_saved_as_keras_saves_it_and_compiles_back(tmp_path):
    def model(lib, loss):
        x = lib.Input(shape=(3,))
        made = lib.Model(x, lib.layers.Dense(1)(x))
        made.compile(optimizer="sgd", loss=loss, metrics=[loss])
        return made

    ours, theirs = model(kg, doubled_mse), model(keras, keras_doubled_mse)
    assert ours.get_compile_config()["loss"] == theirs.get_compile_config()["loss"]
    assert ours.get_compile_config()["metrics"] == theirs.get_compile_config()["metrics"]
    ours.save(tmp_path / "ours.keras")
    back = kg.saving.load_model(tmp_path / "ours.keras")
    assert back.compiled and back.loss is doubled_mse
    assert keras.saving.load_model(tmp_path / "ours.keras").loss is keras_doubled_mse
