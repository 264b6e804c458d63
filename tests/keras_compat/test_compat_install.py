"""``kgraph.compat.install()``: ``import keras`` gives kgraph until ``uninstall()``, then
whatever ``keras`` was imported before comes back."""

import importlib
import importlib.util
import sys

import keras as real_keras
import pytest

import kgraph as kg
from kgraph import compat


def test_keras_is_kgraph_while_installed():
    with compat.install():
        assert compat.installed()
        keras = importlib.import_module("keras")
        assert keras is kg
        assert importlib.import_module("keras.layers").Dense is kg.layers.Dense
        assert importlib.import_module("keras.ops.numpy") is importlib.import_module(
            "kgraph.ops.numpy")
        assert importlib.import_module("keras.preprocessing.sequence").pad_sequences is \
            kg.utils.pad_sequences
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module("keras.no_such_module")
        assert compat.install() is compat.install()  # twice is once
    assert not compat.installed()
    assert sys.modules["keras"] is real_keras
    # kgraph's modules keep their own identity: they can be found and reloaded as kgraph's
    assert kg.__spec__.name == "kgraph" and kg.layers.__spec__.name == "kgraph.layers"
    assert importlib.util.find_spec("kgraph.ops.numpy").name == "kgraph.ops.numpy"
    assert importlib.import_module("keras.layers") is real_keras.layers


def test_a_model_written_for_keras_builds_on_kgraph():
    source = ("import keras\n"
              "inputs = keras.Input(shape=(4,))\n"
              "outputs = keras.layers.Dense(2, activation=keras.activations.gelu)(inputs)\n"
              "model = keras.Model(inputs, outputs)\n")
    namespace = {}
    with compat.install():
        exec(source, namespace)  # noqa: S102 - the test's own source
    assert isinstance(namespace["model"], kg.Functional)
    assert namespace["model"].count_params() == 10


def test_uninstall_without_install_does_nothing():
    compat.uninstall()
    assert sys.modules["keras"] is real_keras
