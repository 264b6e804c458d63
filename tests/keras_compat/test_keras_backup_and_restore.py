"""``BackupAndRestore``'s Keras attributes, with Keras 3 as the oracle: the counters
``_current_epoch`` (epochs finished) and ``_last_batch_seen``, and the paths of the latest and
previous backups' weights and training metadata (``_weights_path``, ...): they exist as
Keras's do, and damaging the latest weights makes the next ``fit`` resume from the backup
before, ending where Keras's ends (the epochs in the History, a counter weight the steps
advance)."""

from __future__ import annotations

import contextlib
import os

import keras
import numpy as np
import pytest

import kgraph as kg

_PATHS = ("_weights_path", "_training_metadata_path", "_prev_weights_path",
          "_prev_training_metadata_path")


def _model(lib):
    class Canary(lib.layers.Layer):
        """Counts the batches it is called on (a weight the train state carries)."""

        def __init__(self):
            super().__init__()
            self.counter = self.add_weight(shape=(), initializer="zeros", dtype="float32",
                                           trainable=False)

        def call(self, x):
            self.counter.assign_add(1)
            return x

    model = lib.Sequential([lib.layers.Input((3,)), Canary(), lib.layers.Dense(1)])
    model.compile(loss="mse", optimizer="sgd")
    return model


def _data():
    rng = np.random.default_rng(0)
    return rng.random((10, 3)), rng.random((10, 1))


def _damaged_latest_resumes_from_the_previous(lib, folder):
    model, (x, y) = _model(lib), _data()
    backup = lib.callbacks.BackupAndRestore(os.fspath(folder), save_freq="epoch",
                                            double_checkpoint=True, delete_checkpoint=False)
    model.fit(x, y, batch_size=4, epochs=2, callbacks=[backup], verbose=0)
    after_first = (backup._current_epoch, backup._last_batch_seen,
                   [os.path.exists(getattr(backup, name)) for name in _PATHS])
    with open(backup._weights_path, "w") as damaged:
        damaged.write("0")
    # kgraph says which backup it could not read
    with (pytest.warns(RuntimeWarning, match="can't be read") if lib is kg
          else contextlib.nullcontext()):
        history = model.fit(x, y, batch_size=4, epochs=5, callbacks=[backup], verbose=0)
    return after_first, (backup._current_epoch, history.epoch[-1],
                         int(np.asarray(model.layers[0].counter)))


def test_counters_and_backup_files_as_kerass(tmp_path):
    theirs = _damaged_latest_resumes_from_the_previous(keras, tmp_path / "keras")
    ours = _damaged_latest_resumes_from_the_previous(kg, tmp_path / "kgraph")
    assert ours == theirs


def test_batch_counters_as_kerass(tmp_path):
    seen = []
    for lib in (keras, kg):
        model, (x, y) = _model(lib), _data()
        backup = lib.callbacks.BackupAndRestore(os.fspath(tmp_path / lib.__name__),
                                                save_freq=2)
        record = []
        watch = lib.callbacks.LambdaCallback(on_train_batch_end=lambda batch, logs: record.append(
            (backup._current_epoch, backup._last_batch_seen)))
        # the watch first: kgraph's backup runs after the other callbacks whatever the order
        model.fit(x, y, batch_size=4, epochs=2, callbacks=[watch, backup], verbose=0)
        seen.append((record, backup._current_epoch, backup._last_batch_seen))
    assert seen[1] == seen[0]
