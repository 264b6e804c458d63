"""Our callbacks against Keras 3's, driven with the same epoch logs."""

from __future__ import annotations

import os

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from kgraph.callbacks import callbacks as ours
from tests.support.helpers import FakeLoop, drive_fit


class KerasOptimizer:
    def __init__(self, learning_rate):
        self.learning_rate = learning_rate


class KerasModel:
    """What Keras's callbacks touch on a model: stop_training and optimizer."""

    def __init__(self, learning_rate=1.0):
        self.stop_training = False
        self.optimizer = KerasOptimizer(learning_rate)


def drive_keras(callback, epoch_logs, model):
    callback.set_model(model)
    callback.on_train_begin()
    epochs = 0
    for epoch, logs in enumerate(epoch_logs):
        callback.on_epoch_begin(epoch)
        callback.on_epoch_end(epoch, dict(logs))
        epochs += 1
        if model.stop_training:
            break
    callback.on_train_end()
    return epochs


def val_losses(rng, n=12):
    """A noisy, plateauing sequence: repeats and small changes exercise min_delta."""
    return [float(v) for v in np.round(1.0 - 0.05 * np.arange(n) + rng.normal(0, 0.05, n), 2)]


EARLY_STOPPING_ARGS = [dict(patience=0), dict(patience=2), dict(patience=1, min_delta=0.03),
                       dict(patience=2, baseline=0.6), dict(patience=1, start_from_epoch=3),
                       dict(patience=1, mode="max"), dict(patience=3, min_delta=0.01, mode="min")]


@pytest.mark.parametrize("kwargs", EARLY_STOPPING_ARGS)
def test_early_stopping_matches_keras(kwargs):
    rng = np.random.default_rng(len(str(kwargs)))
    for _ in range(5):
        logs = [{"loss": 1.0, "val_loss": v} for v in val_losses(rng)]
        theirs, mine = keras.callbacks.EarlyStopping(**kwargs), ours.EarlyStopping(**kwargs)
        assert drive_fit([mine], FakeLoop(), logs) == drive_keras(theirs, logs, KerasModel())
        assert (mine.stopped_epoch, mine.best, mine.best_epoch, mine.wait) == (
            theirs.stopped_epoch, theirs.best, theirs.best_epoch, theirs.wait)


REDUCE_LR_ARGS = [dict(patience=0), dict(patience=2, factor=0.5),
                  dict(patience=1, cooldown=2, factor=0.5, min_lr=0.05),
                  dict(patience=1, min_delta=0.03), dict(patience=2, mode="max", cooldown=1)]


@pytest.mark.parametrize("kwargs", REDUCE_LR_ARGS)
def test_reduce_lr_on_plateau_matches_keras(kwargs):
    rng = np.random.default_rng(len(str(kwargs)))
    for _ in range(5):
        logs = [{"val_loss": v} for v in val_losses(rng)]
        loop, model = FakeLoop(learning_rate=1.0), KerasModel(learning_rate=1.0)
        mine_rates, theirs_rates, mine_logged, theirs_logged = [], [], [], []
        theirs = keras.callbacks.ReduceLROnPlateau(**kwargs)
        theirs.set_model(model)
        theirs.on_train_begin()
        for epoch, epoch_logs in enumerate(logs):
            epoch_logs = dict(epoch_logs)
            theirs.on_epoch_end(epoch, epoch_logs)
            theirs_rates.append(model.optimizer.learning_rate)
            theirs_logged.append(epoch_logs["learning_rate"])
        record = ours.LambdaCallback(on_epoch_end=lambda e, epoch_logs: (
            mine_rates.append(loop.learning_rate),
            mine_logged.append(epoch_logs["learning_rate"])))
        drive_fit([ours.ReduceLROnPlateau(**kwargs), record], loop, logs)
        np.testing.assert_allclose(mine_rates, theirs_rates, rtol=1e-6)
        np.testing.assert_allclose(mine_logged, theirs_logged, rtol=1e-6)


@pytest.mark.parametrize("with_val", [True, False])
def test_csv_logger_writes_the_same_bytes_as_keras(tmp_path, with_val):
    logs = [{"loss": 0.5, "accuracy": 0.25, "val_loss": 0.75, "val_accuracy": 0.125},
            {"loss": 0.1, "accuracy": 1 / 3, "val_loss": 1e-7, "val_accuracy": 0.5}]
    if not with_val:
        logs = [{k: v for k, v in epoch.items() if not k.startswith("val_")} for epoch in logs]
    for append in (False, True):
        drive_keras(keras.callbacks.CSVLogger(tmp_path / "keras.csv", separator=";",
                                              append=append), logs, KerasModel())
        drive_fit([ours.CSVLogger(tmp_path / "ours.csv", separator=";", append=append)],
                  FakeLoop(), logs)
    assert (tmp_path / "ours.csv").read_bytes() == (tmp_path / "keras.csv").read_bytes()


def test_history_matches_keras():
    logs = [{"loss": 1.0, "val_loss": 2.0}, {"loss": 0.5, "val_loss": 1.5}]
    theirs, mine = keras.callbacks.History(), ours.History()
    for _ in range(2):  # reused across two fits
        drive_keras(theirs, logs, KerasModel())
        drive_fit([mine], FakeLoop(), logs)
    assert (mine.history, mine.epoch) == (theirs.history, theirs.epoch)


def test_keras_callbacks_are_refused_with_a_pointer_to_ours():
    with pytest.raises(TypeError, match="use the same-named classes from kgraph.callbacks"):
        ours.CallbackList([keras.callbacks.EarlyStopping()])


def test_model_checkpoint_writes_the_files_keras_writes(tmp_path):
    """The same schedule of saves and file names: per epoch, every N batches (counted
    across epochs), from initial_epoch, with save_best_only on a monitor that improves
    only at some epochs."""
    import kgraph as kg

    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 3)).astype("float32")
    y = rng.normal(size=(50, 1)).astype("float32")

    def files(lib, folder):
        inputs = lib.Input(shape=(3,))
        model = lib.Model(inputs, lib.layers.Dense(1)(inputs))
        model.compile(lib.optimizers.SGD(0.0), "mse")
        checkpoint = lib.callbacks.ModelCheckpoint
        schedule = iter([3.0, 2.0, 2.5, 1.0])  # "score" improves at epochs 1, 2 and 4

        class Score(lib.callbacks.Callback):
            def on_epoch_end(self, epoch, logs=None):
                logs["score"] = next(schedule)

        model.fit(x, y, batch_size=10, epochs=4, initial_epoch=0, verbose=0, shuffle=False,
                  callbacks=[Score(),
                             checkpoint(str(folder / "e{epoch:02d}.weights.h5"),
                                        save_weights_only=True),
                             checkpoint(str(folder / "b{epoch}-{batch}.weights.h5"),
                                        save_weights_only=True, save_freq=3),
                             checkpoint(str(folder / "best{epoch}.weights.h5"),
                                        save_weights_only=True, save_best_only=True,
                                        monitor="score", mode="min")])
        model.fit(x, y, batch_size=10, epochs=6, initial_epoch=4, verbose=0,
                  callbacks=[checkpoint(str(folder / "i{epoch}.keras"))])
        return sorted(os.listdir(folder))

    (tmp_path / "keras").mkdir()
    (tmp_path / "ours").mkdir()
    expected = files(keras, tmp_path / "keras")
    assert "best3.weights.h5" not in expected and "b2-1.weights.h5" in expected
    assert files(kg, tmp_path / "ours") == expected
