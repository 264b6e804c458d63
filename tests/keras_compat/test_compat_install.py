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


def test_a_keras_imported_before_keeps_working_while_installed(tmp_path):
    """Keras's own code imports ``keras.src`` modules lazily, inside its functions: those
    find Keras's modules, while every other import finds kgraph."""
    import numpy as np

    x, y = np.ones((4, 3), "float32"), np.ones((4, 2), "float32")
    with compat.install():
        import keras
        from keras.src.saving import serialization_lib

        assert keras is kg and serialization_lib.serialize_keras_object is \
            kg.saving.serialize_keras_object
        dense = real_keras.layers.Dense(2)  # its constructor imports keras.src lazily
        assert dense(x).shape == (4, 2)
        assert real_keras.saving.serialize_keras_object(dense)["module"] == "keras.layers"
        model = real_keras.Sequential([real_keras.Input((3,)), real_keras.layers.Dense(2)])
        model.compile("sgd", "mse")
        model.fit(x, y, verbose=0)
        model.save(tmp_path / "m.keras")
        loaded = real_keras.saving.load_model(tmp_path / "m.keras")
        assert type(loaded) is real_keras.Sequential
        np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
        assert importlib.import_module("keras.layers").Dense is kg.layers.Dense
    # what Keras imported meanwhile is Keras's, after as during
    assert importlib.import_module("keras.src.saving.serialization_lib").__file__.startswith(
        str(importlib.util.find_spec("keras").submodule_search_locations[0]))


def test_routing_under_another_import_hook_passes_through_once_uninstalled():
    """An import hook set over the routing while installed keeps calling it after
    ``uninstall``: Keras's own lazy imports then import as without kgraph (kgraph's finder
    stays out of ``sys.meta_path``)."""
    import builtins
    import pkgutil

    original = builtins.__import__
    with compat.install():
        routed = builtins.__import__
        builtins.__import__ = lambda *args, **kwargs: routed(*args, **kwargs)
    try:
        meta_path = list(sys.meta_path)
        utils = importlib.import_module("keras.src.utils")
        fresh = next(f"keras.src.utils.{m.name}" for m in pkgutil.iter_modules(utils.__path__)
                     if f"keras.src.utils.{m.name}" not in sys.modules
                     and not m.name.endswith("_test"))
        had_keras = "keras" in vars(utils)
        exec(f"import {fresh}", vars(utils))  # Keras's code: run in a Keras module's globals
        if not had_keras:
            del vars(utils)["keras"]  # (the name the import statement bound there)
        assert sys.meta_path == meta_path
        assert sys.modules[fresh].__file__.startswith(utils.__path__[0])
    finally:
        builtins.__import__ = original
