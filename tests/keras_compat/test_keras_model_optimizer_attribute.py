"""``model.optimizer = ...`` as Keras's, with Keras 3 as the oracle: before ``compile`` the
model holds the optimizer (``compile`` then chooses its own); after ``compile`` the next
``fit`` trains with the one assigned (the same weights after a step)."""

from __future__ import annotations

import keras
import numpy as np

import kgraph as kg


def _model(lib):
    model = lib.Sequential([lib.layers.Input((3,)), lib.layers.Dense(1, name="out")])
    model.compile(optimizer=lib.optimizers.SGD(learning_rate=0.0), loss="mse")
    return model


def test_an_assigned_optimizer_trains_as_keras():
    x = np.arange(12, dtype="float32").reshape(4, 3) / 10
    y = np.ones((4, 1), "float32")
    theirs, ours = _model(keras), _model(kg)
    ours.set_weights(theirs.get_weights())
    for lib, model in ((keras, theirs), (kg, ours)):
        model.optimizer = lib.optimizers.SGD(learning_rate=0.1)
        model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5)
    assert float(np.asarray(ours.optimizer.learning_rate)) == np.float32(0.1)


def test_an_optimizer_assigned_before_compile_is_held_as_keras():
    for lib in (keras, kg):
        model = lib.Sequential([lib.layers.Input((3,)), lib.layers.Dense(1)])
        assigned = lib.optimizers.Adam()
        model.optimizer = assigned
        assert model.optimizer is assigned
        model.compile(optimizer="sgd", loss="mse")
        assert type(model.optimizer).__name__ == "SGD"
