"""``model.stop_training = True`` set by a callback against Keras 3: every callback hook
called (name, index, log names), the history, the epochs and the trained weights, when it is
set in ``on_train_begin``, ``on_epoch_begin`` (of the first or a later epoch) or
``on_train_batch_begin``; for arrays, a ``PyDataset`` and a model with its own
``train_step``. Keras reads it after each batch, so the batch after it is set still trains,
and the epoch ends (validation, ``on_epoch_end``, a history entry)."""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip("keras")

import kgraph as kg

HOOKS = ["on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
         "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
         "on_test_batch_begin", "on_test_batch_end"]

RNG = np.random.default_rng(0)
X = RNG.normal(size=(20, 3)).astype("float32")
Y = RNG.normal(size=(20, 1)).astype("float32")


def recorder(lib, stop_in, stop_at):
    """A callback recording every hook call, which sets ``model.stop_training`` in the
    hook ``stop_in`` when its index is ``stop_at``."""

    class Recorder(lib.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.calls = []

    def hook_named(name):
        def hook(self, *args, **kwargs):
            index = args[0] if args and not isinstance(args[0], dict) else None
            logs = args[-1] if args and isinstance(args[-1], dict) else kwargs.get("logs")
            self.calls.append((name, index, sorted(logs or ())))
            if name == stop_in and index in (stop_at, None):
                self.model.stop_training = True
        return hook

    for name in HOOKS:
        setattr(Recorder, name, hook_named(name))
    return Recorder()


def batches(lib):
    class Batches(lib.utils.PyDataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return X[i * 4:(i + 1) * 4], Y[i * 4:(i + 1) * 4]

    return Batches()


def plain_model(lib):
    x = lib.Input((3,))
    return lib.Model(x, lib.layers.Dense(1, name="dense")(x))


def own_step_model(lib):
    class OwnStep(lib.Model):
        def train_step(self, state, data):
            return super().train_step(state, data)

    x = lib.Input((3,))
    return OwnStep(x, lib.layers.Dense(1, name="dense")(x))


def run(lib, data, stop_in, stop_at, weights):
    model = (own_step_model if data == "own_train_step" else plain_model)(lib)
    if weights is not None:
        model.set_weights(weights)
    start = [np.array(w) for w in model.get_weights()]
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    callback = recorder(lib, stop_in, stop_at)
    given = (batches(lib),) if data == "py_dataset" else (X, Y)
    history = model.fit(*given, batch_size=None if data == "py_dataset" else 4, epochs=3,
                        validation_data=(X[:8], Y[:8]), callbacks=[callback], verbose=0,
                        shuffle=False)
    return dict(calls=callback.calls, history=history.history, epochs=history.epoch,
                weights=[np.asarray(w) for w in model.get_weights()], start=start)


@pytest.mark.parametrize("data", ["arrays", "py_dataset", "own_train_step"])
@pytest.mark.parametrize("stop_in, stop_at", [("on_epoch_begin", 0), ("on_epoch_begin", 1),
                                              ("on_train_begin", None),
                                              ("on_train_batch_begin", 2)])
def test_stop_training_follows_keras(data, stop_in, stop_at):
    theirs = run(keras, data, stop_in, stop_at, None)
    mine = run(kg, data, stop_in, stop_at, theirs["start"])
    assert mine["calls"] == theirs["calls"]
    assert mine["epochs"] == theirs["epochs"]
    assert sorted(mine["history"]) == sorted(theirs["history"])
    for name, values in theirs["history"].items():
        np.testing.assert_allclose(mine["history"][name], values, rtol=1e-5, err_msg=name)
    for got, expected in zip(mine["weights"], theirs["weights"]):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)
