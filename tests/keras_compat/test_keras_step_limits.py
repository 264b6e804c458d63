"""``steps`` on in-memory data and Keras's debugging caps (``config.set_max_epochs``,
``set_max_steps_per_epoch``, ``KERAS_MAX_EPOCHS``): the same batches and counts as Keras."""

import os
import subprocess
import sys

import keras
import numpy as np
import pytest

import kgraph as kg

X = np.arange(30.0, dtype="float32").reshape(10, 3) / 10
Y = np.arange(10.0, dtype="float32").reshape(10, 1)


def _pair():
    theirs_in = keras.Input((3,))
    theirs = keras.Model(theirs_in, keras.layers.Dense(1)(theirs_in))
    ours_in = kg.Input((3,))
    ours = kg.Model(ours_in, kg.layers.Dense(1)(ours_in))
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    theirs.compile("sgd", "mse")
    ours.compile("sgd", "mse")
    return ours, theirs


def test_evaluate_and_predict_read_the_first_steps_batches_of_arrays():
    ours, theirs = _pair()
    for steps in (1, 2, 9):
        np.testing.assert_allclose(ours.evaluate(X, Y, batch_size=2, steps=steps, verbose=0),
                                   theirs.evaluate(X, Y, batch_size=2, steps=steps, verbose=0),
                                   rtol=1e-6)
        np.testing.assert_allclose(ours.predict(X, batch_size=3, steps=steps, verbose=0),
                                   theirs.predict(X, batch_size=3, steps=steps, verbose=0),
                                   rtol=1e-6)


@pytest.fixture
def caps():
    yield
    for lib in (kg, keras):
        lib.config.set_max_epochs(None)
        lib.config.set_max_steps_per_epoch(None)


def test_debugging_caps_limit_fit_evaluate_and_predict_as_keras(caps):
    ours, theirs = _pair()
    for lib in (kg, keras):
        lib.config.set_max_epochs(2)
        lib.config.set_max_steps_per_epoch(3)
        assert lib.config.max_epochs() == 2 and lib.config.max_steps_per_epoch() == 3
    # one epoch is capped at 3 of the 6 batches of (12 samples, batch 2)
    x, y = np.concatenate([X, X[:2]]), np.concatenate([Y, Y[:2]])
    with pytest.warns(UserWarning, match="Limiting epochs to 2"):
        history = ours.fit(x, y, batch_size=2, epochs=5, verbose=0)
    reference = theirs.fit(x, y, batch_size=2, epochs=5, verbose=0)
    assert len(history.history["loss"]) == len(reference.history["loss"]) == 2
    assert int(ours.optimizer.iterations) == int(theirs.optimizer.iterations) == 6
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    np.testing.assert_allclose(ours.evaluate(x, y, batch_size=2, verbose=0),  # 3 batches
                               theirs.evaluate(x, y, batch_size=2, verbose=0), rtol=1e-6)
    assert ours.predict(x, batch_size=2, verbose=0).shape == \
        theirs.predict(x, batch_size=2, verbose=0).shape == (6, 1)


def test_the_environment_sets_the_caps_at_import():
    code = ("import kgraph as kg; print(kg.config.max_epochs(), "
            "kg.config.max_steps_per_epoch())")
    env = {**os.environ, "KERAS_MAX_EPOCHS": "3", "KERAS_MAX_STEPS_PER_EPOCH": "7"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["3", "7"]


def test_validation_is_capped_and_steps_zero_reads_everything(caps):
    ours, theirs = _pair()
    for lib in (kg, keras):
        lib.config.set_max_steps_per_epoch(2)
    data = dict(batch_size=2, epochs=1, verbose=0, shuffle=False,
                validation_data=(X[::-1].copy(), Y[::-1].copy()))
    with pytest.warns(UserWarning, match="Limiting steps_per_epoch"):
        ours_history = ours.fit(X, Y, **data).history
    theirs_history = theirs.fit(X, Y, **data).history
    np.testing.assert_allclose(ours_history["val_loss"], theirs_history["val_loss"], rtol=1e-5)
    for lib in (kg, keras):
        lib.config.set_max_steps_per_epoch(None)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    np.testing.assert_allclose(ours.evaluate(X, Y, batch_size=2, steps=0, verbose=0),
                               theirs.evaluate(X, Y, batch_size=2, steps=0, verbose=0),
                               rtol=1e-6)


def test_a_models_own_predict_step_reads_the_first_steps_batches():
    class Own(kg.Model):
        def predict_step(self, state, data):  # Keras 3's JAX form
            return super().predict_step(state, data) * 2

    x = kg.Input((3,))
    model = Own(x, kg.layers.Dense(1)(x))
    assert model.predict(X, batch_size=4, steps=2, verbose=0).shape == (8, 1)


@pytest.mark.parametrize("steps_per_execution", [1, 2])
def test_steps_per_epoch_goes_on_through_the_pass_as_keras(steps_per_execution):
    """5 batches, 2 steps per epoch: epochs read batches 0-1, 2-3, then 4 alone (the pass
    ends), then a new pass; the same weights and logs as Keras."""
    histories, weights, seen = [], [], []
    for model in _pair():
        model.compile("sgd", "mse", steps_per_execution=steps_per_execution)
        history = model.fit(X, Y, batch_size=2, epochs=5, steps_per_epoch=2, shuffle=False,
                            verbose=0)
        histories.append(history.history["loss"])
        weights.append(model.get_weights())
    np.testing.assert_allclose(histories[0], histories[1], rtol=1e-6)
    for ours, theirs in zip(*weights):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)
