"""Building a subclassed model changes none of its state, with Keras 3 as the oracle: a
model whose ``call`` assigns a counter counts only the calls that ran (the first eager call,
or ``fit``'s steps, seen from a callback at each batch end), not the runs that built it."""

from __future__ import annotations

import keras
import numpy as np

import kgraph as kg


def _counting_model(lib):
    class Counting(lib.Model):
        def __init__(self):
            super().__init__()
            self.calls = self.add_variable(shape=(), initializer="zeros", trainable=False)

        def call(self, inputs):
            self.calls.assign(self.calls + 1)
            return inputs

    return Counting()


def _counts_in_fit(lib):
    model = _counting_model(lib)
    model.compile(optimizer="sgd", loss="mse")
    seen = []

    class Record(lib.callbacks.Callback):
        def on_train_begin(self, logs=None):
            seen.append(int(self.model.calls))

        def on_batch_end(self, batch, logs=None):
            seen.append(int(self.model.calls))

    record = Record()
    x = np.random.default_rng(0).random((8, 1)).astype("float32")
    model.fit(x, x, batch_size=2, epochs=1, callbacks=[record], verbose=0)
    return seen


def test_fit_counts_only_its_steps_as_keras():
    assert _counts_in_fit(kg) == _counts_in_fit(keras)


def test_first_eager_call_counts_once_as_keras():
    counts = []
    for lib in (keras, kg):
        model = _counting_model(lib)
        model(np.ones((2, 1), "float32"))
        counts.append(int(model.calls))
    assert counts[1] == counts[0]
