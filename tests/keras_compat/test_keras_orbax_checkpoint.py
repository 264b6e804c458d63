"""``kgraph.callbacks.OrbaxCheckpoint`` and Orbax checkpoint folders against Keras 3's: the
same step folders and state trees; folders written by Keras's callback load in kgraph
(``load_model``, ``load_weights``) and resume training as in Keras; folders written by
kgraph's callback load in Keras."""

import os
import re

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import kgraph as kg  # noqa: E402
from kgraph.saving.errors import LoadError  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.normal(size=(16, 3)).astype("float32")
Y = RNG.normal(size=(16, 2)).astype("float32")


def _model(lib, sequential=False):
    # no bias before BatchNormalization: its gradient is zero but for float noise, which
    # Adam's normalized steps would turn into lr-sized differences between any two systems
    L = lib.layers
    if sequential:
        return lib.Sequential([lib.Input((3,)), L.Dense(4, use_bias=False, name="h"),
                               L.BatchNormalization(name="bn"), L.Dense(2, name="out")],
                              name="seq")
    x = lib.Input((3,), name="x")
    y = L.Dense(2, name="out")(L.BatchNormalization(name="bn")(L.Dense(4, use_bias=False, name="h")(x)))
    return lib.Model(x, y, name="m")


def _pair(sequential=False):
    theirs, ours = _model(keras, sequential), _model(kg, sequential)
    ours.set_weights(theirs.get_weights())
    theirs.compile(optimizer=keras.optimizers.Adam(0.01, name="adam"), loss="mse", metrics=["mae"])
    ours.compile(optimizer=kg.optimizers.Adam(0.01, name="adam"), loss="mse", metrics=["mae"])
    return theirs, ours


def _flat(tree, prefix=""):
    out = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}/"))
        else:
            out[prefix + key] = np.asarray(value)
    return out


def _fit(model, callback=None, epochs=2):
    model.fit(X, Y, batch_size=4, epochs=epochs, shuffle=False, verbose=0,
              callbacks=[callback] if callback else [])


def _steps(folder):
    return sorted(int(s) for s in os.listdir(folder) if s.isdigit())


def _assert_trees_close(a, b, groups, atol=1e-5):
    for group in groups:
        fa, fb = _flat(a[group]), _flat(b[group])
        assert sorted(fa) == sorted(fb), group
        for path in fa:
            np.testing.assert_allclose(fa[path], fb[path], atol=atol, err_msg=path)


WEIGHTS = ("trainable_variables", "non_trainable_variables")
STATE = WEIGHTS + ("optimizer_variables",)
TRAINED = 1e-5  # kgraph's and Keras's training steps agree to float32 rounding


@pytest.mark.parametrize("sequential", [False, True])
def test_state_tree_is_keras_state_tree(sequential):
    theirs, ours = _pair(sequential)
    _assert_trees_close(theirs.get_state_tree(), ours.get_state_tree(), STATE)
    _fit(theirs, epochs=1), _fit(ours, epochs=1)
    a, b = theirs.get_state_tree("numpy_array"), ours.get_state_tree("numpy_array")
    _assert_trees_close(a, b, STATE, atol=TRAINED)
    assert sorted(_flat(a["metrics_variables"])) == sorted(_flat(b["metrics_variables"]))
    # set_state_tree takes Keras's tree: weights and the optimizer's state
    fresh = _model(kg, sequential)
    fresh.compile(optimizer=kg.optimizers.Adam(0.01, name="adam"), loss="mse", metrics=["mae"])
    fresh.set_state_tree(a)
    _assert_trees_close(a, fresh.get_state_tree(), STATE)
    with pytest.raises(ValueError, match="Unknown variable name"):
        fresh.set_state_tree({"weights": {}})


@pytest.fixture(scope="module")
def keras_written(tmp_path_factory):
    """Keras's callback during fit: every 3 batches, the 2 latest kept."""
    folder = str(tmp_path_factory.mktemp("keras") / "ckpt")
    theirs, _ = _pair()
    callback = keras.callbacks.OrbaxCheckpoint(folder, save_freq=3, max_to_keep=2)
    _fit(theirs, callback)
    callback.wait_until_finished()
    return folder


def test_kgraph_loads_keras_checkpoint_and_resumes_as_keras(keras_written):
    assert _steps(keras_written) == [3, 6]
    theirs = keras.saving.load_model(keras_written)
    ours = kg.load_model(keras_written)
    _assert_trees_close(theirs.get_state_tree(), ours.get_state_tree(), STATE, atol=0)
    assert int(ours.optimizer.iterations) == int(theirs.optimizer.iterations) == 6
    np.testing.assert_allclose(ours.predict(X, verbose=0), theirs.predict(X, verbose=0),
                               atol=1e-5)
    # load_weights on a compiled model of the same architecture: weights and optimizer
    _, other = _pair()
    other.load_weights(keras_written)
    _assert_trees_close(theirs.get_state_tree(), other.get_state_tree(), STATE, atol=0)
    # training goes on from the restored moments in both
    _fit(theirs, epochs=1), _fit(ours, epochs=1)
    _assert_trees_close(theirs.get_state_tree(), ours.get_state_tree(), STATE, atol=TRAINED)


def test_a_step_folder_loads_as_the_checkpoint(keras_written):
    _, ours = _pair()
    ours.load_weights(os.path.join(keras_written, "3"))
    assert int(ours.optimizer.iterations) == 3


@pytest.fixture(scope="module")
def kgraph_written(tmp_path_factory):
    """kgraph's and Keras's callbacks on the same model and data, every epoch, 2 kept."""
    root = tmp_path_factory.mktemp("kgraph")
    theirs, ours = _pair()
    ours_cb = kg.callbacks.OrbaxCheckpoint(str(root / "ours"), max_to_keep=2)
    theirs_cb = keras.callbacks.OrbaxCheckpoint(str(root / "theirs"), max_to_keep=2)
    _fit(ours, ours_cb, epochs=3), _fit(theirs, theirs_cb, epochs=3)
    theirs_cb.wait_until_finished()
    return str(root / "ours"), str(root / "theirs"), ours


def test_keras_loads_kgraph_checkpoint(kgraph_written):
    ours_folder, theirs_folder, ours = kgraph_written
    assert _steps(ours_folder) == _steps(theirs_folder) == [1, 2]
    assert sorted(os.listdir(os.path.join(ours_folder, "2"))) == sorted(
        os.listdir(os.path.join(theirs_folder, "2")))
    loaded = keras.saving.load_model(ours_folder)
    np.testing.assert_allclose(loaded.predict(X, verbose=0), ours.predict(X, verbose=0),
                               atol=1e-5)
    assert int(loaded.optimizer.iterations) == 12
    _assert_trees_close(loaded.get_state_tree(), ours.get_state_tree(), STATE, atol=1e-6)
    other = _model(keras)
    other.compile(optimizer=keras.optimizers.Adam(0.01, name="adam"), loss="mse")
    other.load_weights(ours_folder)
    _assert_trees_close(other.get_state_tree(), ours.get_state_tree(), WEIGHTS, atol=1e-6)


def test_integer_save_freq_and_max_to_keep_number_steps_as_keras(tmp_path):
    theirs, ours = _pair()
    for lib, model, name in ((keras, theirs, "theirs"), (kg, ours, "ours")):
        callback = lib.callbacks.OrbaxCheckpoint(str(tmp_path / name), save_freq=3,
                                                 max_to_keep=None, save_on_background=False)
        _fit(model, callback, epochs=2)
    assert _steps(tmp_path / "ours") == _steps(tmp_path / "theirs") == [3, 6]
    loaded = kg.load_model(str(tmp_path / "ours"))
    assert int(loaded.optimizer.iterations) == 6


def test_save_best_only_saves_the_steps_keras_saves(tmp_path):
    theirs, ours = _pair()
    for lib, model, name in ((keras, theirs, "theirs"), (kg, ours, "ours")):
        # the loss falls, so only the first epoch has the highest loss
        best = lib.callbacks.OrbaxCheckpoint(str(tmp_path / name), monitor="loss", mode="max",
                                             save_best_only=True, max_to_keep=None)
        _fit(model, best, epochs=2)
    assert _steps(tmp_path / "ours") == _steps(tmp_path / "theirs") == [0]
    with pytest.warns(UserWarning, match="Can save best model only with val_loss"):
        missing = kg.callbacks.OrbaxCheckpoint(str(tmp_path / "none"), save_best_only=True)
        _fit(ours, missing, epochs=1)
    assert not os.path.exists(tmp_path / "none") or _steps(tmp_path / "none") == []


def test_weights_only_checkpoint(tmp_path):
    theirs, ours = _pair()
    folder = str(tmp_path / "w")
    _fit(ours, kg.callbacks.OrbaxCheckpoint(folder, save_weights_only=True), epochs=1)
    assert sorted(os.listdir(os.path.join(folder, "0"))) == [
        "_CHECKPOINT_METADATA", "commit_success.txt", "pytree"]
    with pytest.raises(LoadError, match="save_weights_only=True"):
        kg.load_model(folder)
    with pytest.raises(ValueError, match="save_weights_only=True"):
        keras.saving.load_model(folder)
    theirs.load_weights(folder)
    fresh = _model(kg)
    fresh.load_weights(folder)
    for model in (theirs, fresh):
        np.testing.assert_allclose(model.predict(X, verbose=0), ours.predict(X, verbose=0),
                                   atol=1e-5)


def test_signature_and_errors_follow_keras(tmp_path):
    ours = kg.callbacks.OrbaxCheckpoint(str(tmp_path / "a"))
    theirs = keras.callbacks.OrbaxCheckpoint(str(tmp_path / "b"))
    for name in ("monitor", "verbose", "save_best_only", "save_freq", "max_to_keep",
                 "save_on_background", "save_weights_only", "best"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.is_multihost_enabled() is theirs.is_multihost_enabled() is False
    assert ours.is_primary_host() is theirs.is_primary_host() is True
    with pytest.raises(ValueError, match="Unrecognized save_freq"):
        kg.callbacks.OrbaxCheckpoint(str(tmp_path / "c"), save_freq="batch")
    with pytest.raises(ValueError, match="File format not supported|load_weights reads"):
        _model(kg).load_weights(str(tmp_path))  # an empty folder is no checkpoint


@pytest.mark.parametrize("name,kwargs", [
    ("SGD", dict(momentum=0.9)), ("Adam", dict(amsgrad=True)), ("AdamW", {}),
    ("RMSprop", dict(momentum=0.5, centered=True)), ("Adagrad", {}), ("Adadelta", {}),
    ("Adamax", {}), ("Lion", {}), ("Nadam", {}), ("Ftrl", {}), ("Lamb", {})])
def test_every_optimizers_state_tree_has_kerass_paths(name, kwargs):
    """The optimizer's slots are named as Keras names them (``<weight path>_<slot>``,
    Nadam's unscoped ``variable``), in Keras's order."""
    theirs, ours = _model(keras), _model(kg)
    theirs.compile(optimizer=getattr(keras.optimizers, name)(name="opt", **kwargs), loss="mse")
    ours.compile(optimizer=getattr(kg.optimizers, name)(name="opt", **kwargs), loss="mse")
    theirs.optimizer.build(theirs.trainable_variables)
    ours.fit(X[:4], Y[:4], batch_size=4, verbose=0)
    # Nadam's unscoped scalar is Keras's auto-named ``variable``, numbered ``variable_<n>``
    # by Keras's process-wide counter once other variables were made before it
    want = {re.sub(r"^variable_\d+$", "variable", p): v.shape
            for p, v in _flat(theirs.get_state_tree()["optimizer_variables"]).items()}
    got = ours.get_state_tree("numpy_array")["optimizer_variables"]
    assert {p: v.shape for p, v in _flat(got).items()} == want
