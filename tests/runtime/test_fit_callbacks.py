"""Callbacks inside a real fit: early stopping, learning-rate changes, logs, progress."""

import jax
import numpy as np
import optax
import pytest

import compiler
import kgraph as kg
from kgraph.callbacks import callbacks as cb
from kgraph.losses import losses


def _model():
    x = kg.Input(shape=(5,))
    h = kg.layers.Dense(8, activation="tanh")(x)
    return kg.Model(x, kg.layers.Dense(3)(h))


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 5)).astype(np.float32)
    return x, (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 1).astype(np.int32)


def _compiled(optimizer="adam", **kwargs):
    model = _model()
    model.compile(optimizer, losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], **kwargs)
    return model


def test_early_stopping_restores_the_best_weights():
    model = _compiled(optax.sgd(2.0))  # a step size that makes validation loss bounce
    x, y = _data(64)
    snapshots = []
    record = cb.LambdaCallback(on_epoch_end=lambda epoch, logs: snapshots.append(
        (logs["val_loss"], jax.tree_util.tree_map(np.array, compiler.variables(model)))))
    stop = cb.EarlyStopping(monitor="val_loss", patience=2, restore_best_weights=True)
    history = model.fit(x, y, batch_size=16, epochs=30, validation_data=_data(32, seed=1),
                        callbacks=[record, stop], verbose=0)
    assert len(history.epoch) < 30 and stop.stopped_epoch == history.epoch[-1]
    best = min(snapshots, key=lambda s: s[0])[1]
    for a, b in zip(jax.tree_util.tree_leaves(best),
                    jax.tree_util.tree_leaves(compiler.variables(model))):
        np.testing.assert_array_equal(a, b)


def test_reduce_lr_on_plateau_changes_the_optimizer_learning_rate():
    model = _compiled("adam")
    x, y = _data(32)
    reduce = cb.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0, min_delta=10.0)
    history = model.fit(x, y, batch_size=16, epochs=3, callbacks=[reduce], verbose=0)
    # Keras logs the rate each epoch ran with, then reduces it after a plateau epoch.
    np.testing.assert_allclose(history.history["learning_rate"], [1e-3, 1e-3, 5e-4],
                               rtol=1e-6)
    rate = optax.tree_utils.tree_get(model._opt_state, "learning_rate")
    np.testing.assert_allclose(rate, 2.5e-4, rtol=1e-6)  # in the optimizer state itself
    with pytest.raises(ValueError, match="inject_hyperparams"):
        _compiled(optax.adam(1e-3)).fit(x, y, callbacks=[cb.ReduceLROnPlateau()], verbose=0)


def test_csv_logger_and_batch_logs(tmp_path):
    model = _compiled()
    x, y = _data(40)
    seen = []
    batch_logs = cb.LambdaCallback(on_train_batch_end=lambda b, logs: seen.append(
        (b, float(logs["loss"]))))
    path = tmp_path / "log.csv"
    model.fit(x, y, batch_size=16, epochs=2, callbacks=[cb.CSVLogger(str(path)), batch_logs],
              verbose=0)
    assert [b for b, _ in seen] == [0, 1, 2, 0, 1, 2]
    assert all(np.isfinite(v) for _, v in seen)
    lines = path.read_text().splitlines()
    assert lines[0] == "epoch,accuracy,loss,val_accuracy,val_loss"  # Keras's columns
    assert len(lines) == 3


def test_terminate_on_nan_stops_at_the_bad_batch(capsys):
    x, y = _data(64)
    x[40] = np.nan
    model = _compiled()
    history = model.fit(x, y, batch_size=16, epochs=3, shuffle=False,
                        callbacks=[cb.TerminateOnNaN()], verbose=0)
    assert history.epoch == [0]
    assert "batch 2 (step 2)" in capsys.readouterr().out


def test_progress_lines_when_not_a_terminal(capsys):
    model = _compiled()
    model.fit(*_data(32), batch_size=16, epochs=2, validation_data=_data(16, 1), verbose=1)
    out = capsys.readouterr().out
    assert "Epoch 2/2" in out and "val_loss:" in out and "accuracy:" in out
    model.fit(*_data(32), batch_size=16, epochs=1, verbose=0)
    assert capsys.readouterr().out == ""
