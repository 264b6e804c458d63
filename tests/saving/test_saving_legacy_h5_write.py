"""Legacy ``.h5`` model files written as Keras 3 writes them (``model.save("m.h5")``,
``ModelCheckpoint("best.h5")``), with Keras's warning: Keras loads them with the same
numbers and compile settings, and kgraph reads them back."""

import contextlib
import warnings

import h5py
import keras
import numpy as np
import pytest

import kgraph as kg

_X = np.random.default_rng(0).normal(size=(16, 4)).astype("float32")
_Y = np.random.default_rng(1).normal(size=(16, 2)).astype("float32")


def _model(K, sequential=False):
    if sequential:
        return K.Sequential([K.Input(shape=(4,)), K.layers.Dense(8, activation="relu"),
                             K.layers.BatchNormalization(), K.layers.Dense(2)])
    x = K.Input(shape=(4,))
    inner = K.Sequential([K.layers.Dense(8, activation="relu"), K.layers.BatchNormalization()])
    return K.Model(x, K.layers.Dense(2)(inner(x)))


@pytest.mark.parametrize("sequential", [False, True])
def test_keras_loads_an_h5_file_kgraph_wrote(tmp_path, sequential):
    model = _model(kg, sequential)
    # a Loss object: Keras 3.15 cannot read back its own .h5 files compiled with loss="mse"
    model.compile(optimizer=kg.optimizers.Adam(0.01), loss=kg.losses.MeanSquaredError(),
                  metrics=["mae"])
    model.fit(_X, _Y, epochs=1, batch_size=8, verbose=0)
    path = str(tmp_path / "model.h5")
    with pytest.warns(UserWarning, match="legacy"):
        model.save(path)
    theirs = keras.saving.load_model(path)
    np.testing.assert_allclose(np.asarray(theirs.predict(_X, verbose=0)),
                               np.asarray(model.predict(_X, verbose=0)), rtol=1e-5, atol=1e-6)
    assert type(theirs.optimizer).__name__ == "Adam"
    assert np.isclose(float(theirs.optimizer.learning_rate), 0.01)
    ours = kg.saving.load_model(path)
    np.testing.assert_allclose(np.asarray(ours.predict(_X, verbose=0)),
                               np.asarray(model.predict(_X, verbose=0)), rtol=1e-6, atol=1e-6)
    assert ours.count_params() == model.count_params()


def test_the_file_is_laid_out_as_keras_lays_it_out(tmp_path):
    ours, theirs = _model(kg), _model(keras)
    for K, model, name in ((kg, ours, "ours.h5"), (keras, theirs, "theirs.h5")):
        model.compile(optimizer="adam", loss=K.losses.MeanSquaredError())
        with pytest.warns(UserWarning) if K is kg else contextlib.nullcontext():
            model.save(str(tmp_path / name))
    with h5py.File(tmp_path / "ours.h5") as a, h5py.File(tmp_path / "theirs.h5") as b:
        assert set(a.attrs) == set(b.attrs)
        assert set(a["model_weights"].attrs) == set(b["model_weights"].attrs)
        names = [list(f["model_weights"].attrs["layer_names"]) for f in (a, b)]
        assert len(names[0]) == len(names[1])
        for ours_layer, theirs_layer in zip(*names):  # in model.layers order
            assert [v.shape for v in _datasets(a["model_weights"][ours_layer])] == \
                [v.shape for v in _datasets(b["model_weights"][theirs_layer])]
        assert len(_datasets(a["optimizer_weights"])) == len(_datasets(b["optimizer_weights"]))


def _datasets(group) -> list:
    found = []
    group.visititems(lambda name, item: found.append(item)
                     if isinstance(item, h5py.Dataset) else None)
    return found


def test_model_checkpoint_to_an_h5_file(tmp_path):
    model = _model(kg)
    model.compile(optimizer="adam", loss=kg.losses.MeanSquaredError())
    path = str(tmp_path / "best_model.h5")
    with pytest.warns(UserWarning, match="legacy"):
        model.fit(_X, _Y, epochs=2, verbose=0, validation_data=(_X, _Y), callbacks=[
            kg.callbacks.ModelCheckpoint(path, monitor="val_loss", save_best_only=True)])
    np.testing.assert_allclose(np.asarray(keras.saving.load_model(path)(_X)).shape, (16, 2))
    with pytest.raises(ValueError, match=r"\.keras.*\.h5"):
        kg.callbacks.ModelCheckpoint(str(tmp_path / "model.ckpt"))


def test_overwrite_false_keeps_the_file(tmp_path):
    path = tmp_path / "model.h5"
    path.write_bytes(b"kept")
    with pytest.raises(FileExistsError):
        _model(kg).save(str(path), overwrite=False)
    assert path.read_bytes() == b"kept"


def test_bfloat16_weights_are_marked_as_keras_marks_them(tmp_path):
    x = kg.Input(shape=(4,))
    model = kg.Model(x, kg.layers.Dense(2, dtype="bfloat16")(x))
    path = str(tmp_path / "half.h5")
    with pytest.warns(UserWarning, match="legacy"):
        model.save(path)
    restored = kg.saving.load_model(path)
    for a, b in zip(restored.get_weights(), model.get_weights()):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_a_configuration_a_file_cannot_hold_is_warned_about_once(tmp_path):
    import optax

    model = _model(kg)
    model.compile(optimizer=optax.sgd(0.1), loss="mse")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.save(str(tmp_path / "model.h5"))
    assert sum("optax" in str(w.message) for w in caught) == 1
