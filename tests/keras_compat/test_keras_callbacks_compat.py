"""Callbacks as Keras drives them: every hook gets a dict (a read-only mapping for batch logs) (epoch/test-end keys as Keras's),
and LearningRateScheduler sets Keras's learning rates."""


from collections.abc import Mapping

import keras
import numpy as np

import kgraph as kg

_x = np.random.default_rng(0).normal(size=(40, 3)).astype("float32")
_y = (_x[:, :1] > 0).astype("float32")


def _recorder(base):
    class Recorder(base):
        def __init__(self):
            super().__init__()
            self.calls = []

    for hook in ["on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
                 "on_test_begin", "on_test_end", "on_predict_begin", "on_predict_end",
                 "on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin",
                 "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end"]:
        def record(self, *args, _hook=hook, **kwargs):
            logs = kwargs.get("logs", args[-1] if args else None)
            assert isinstance(logs, Mapping), (_hook, logs)  # batch logs: read lazily
            keys = tuple(sorted(logs)) if _hook.endswith(("epoch_end", "test_end")) else ()
            self.calls.append((_hook, keys))

        setattr(Recorder, hook, record)
    return Recorder()


def _run(lib, callback):
    x = lib.Input(shape=(3,))
    model = lib.Model(x, lib.layers.Dense(1, activation="sigmoid")(x))
    model.compile(optimizer="sgd", loss="binary_crossentropy", metrics=["accuracy"])
    model.fit(_x, _y, batch_size=16, epochs=2, validation_split=0.25, verbose=0,
              callbacks=[callback])
    model.evaluate(_x, _y, batch_size=16, verbose=0, callbacks=[callback])
    model.predict(_x, batch_size=16, verbose=0, callbacks=[callback])
    return callback.calls


def test_hooks_receive_dicts_with_kerass_keys_in_kerass_order():
    ours = _run(kg, _recorder(kg.callbacks.Callback))
    theirs = _run(keras, _recorder(keras.callbacks.Callback))
    assert ours == theirs


def test_learning_rate_scheduler_matches_keras():
    def schedule(epoch, lr):
        return lr if epoch < 1 else lr * 0.5

    rates = []
    for lib in (kg, keras):
        x = lib.Input(shape=(3,))
        model = lib.Model(x, lib.layers.Dense(1)(x))
        model.compile(optimizer=lib.optimizers.SGD(0.2), loss="mse")
        history = model.fit(_x, _y, epochs=4, verbose=0,
                            callbacks=[lib.callbacks.LearningRateScheduler(schedule)])
        rates.append(history.history["learning_rate"])
    np.testing.assert_allclose(rates[0], rates[1], rtol=1e-6)
    np.testing.assert_allclose(rates[0], [0.2, 0.1, 0.05, 0.025], rtol=1e-6)
