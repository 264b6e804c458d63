"""During ``fit`` the model's variables and the train state are one thing: what a callback
writes through Keras's API is trained on from the next step, what it reads is the current
state. Keras 3 (JAX backend) is the oracle where it supports the same script."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg

_data = np.random.default_rng(0)
X = _data.normal(size=(48, 4)).astype(np.float32)
Y = _data.normal(size=(48, 1)).astype(np.float32)


def _pair():
    """The same two-layer model in Keras and in kgraph, with Keras's initial weights."""
    made = []
    for lib in (keras, kg):
        x = lib.Input(shape=(4,))
        h = lib.layers.Dense(8, activation="tanh", name="hidden")(x)
        model = lib.Model(x, lib.layers.Dense(1, name="out")(h))
        model.compile(optimizer=lib.optimizers.Adam(0.01), loss="mse")
        made.append(model)
    made[1].set_weights([np.asarray(w) for w in made[0].get_weights()])
    return made


def _fit(model, callbacks, epochs=2):
    return model.fit(X, Y, batch_size=16, epochs=epochs, shuffle=False, verbose=0,
                     callbacks=callbacks).history


def _callback(lib, **hooks):
    """A callback whose hooks are ``hook(self.model, ...)``: in Keras, reading
    ``self.model`` is what brings the running state back to the model's variables."""
    class Hooks(lib.callbacks.Callback):
        pass

    for name, hook in hooks.items():
        setattr(Hooks, name, lambda self, index, logs=None, hook=hook: hook(self.model, index, logs))
    return Hooks()


def _close(ours, theirs, tolerance=1e-5):
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tolerance, atol=tolerance)


def test_weights_set_at_an_epoch_end_are_what_the_next_epoch_trains():
    histories, weights = [], []
    for lib, model in zip((keras, kg), _pair()):
        def halve(model, epoch, logs):
            if epoch == 0:
                model.set_weights([w * 0.5 for w in model.get_weights()])

        histories.append(_fit(model, [_callback(lib, on_epoch_end=halve)]))
        weights.append(model.get_weights())
    _close(histories[1]["loss"], histories[0]["loss"])
    _close(weights[1], weights[0])


def test_a_variable_assigned_in_a_batch_hook_is_used_from_the_next_step():
    histories, weights = [], []
    for lib, model in zip((keras, kg), _pair()):
        def set_bias(model, batch, logs):
            if batch == 1:
                model.get_layer("out").weights[1].assign(np.full((1,), 3.0, np.float32))

        histories.append(_fit(model, [_callback(lib, on_train_batch_end=set_bias)]))
        weights.append(model.get_weights())
    _close(histories[1]["loss"], histories[0]["loss"])
    _close(weights[1], weights[0])


def test_reads_in_a_batch_hook_see_the_current_weights():
    seen = []
    for lib, model in zip((keras, kg), _pair()):
        record = []

        def look(model, batch, logs, record=record):
            record.append((model.predict(X[:3], verbose=0),
                           np.asarray(model.get_layer("hidden").kernel),
                           model.evaluate(X, Y, verbose=0)))

        _fit(model, [_callback(lib, on_train_batch_end=look)], epochs=1)
        seen.append(record)
    assert len(seen[0]) == len(seen[1]) == 3
    for ours, theirs in zip(seen[1], seen[0]):
        _close(ours, theirs)
    assert not np.allclose(seen[1][0][1], seen[1][2][1])  # the kernel moved batch to batch


def test_compiling_again_with_the_same_optimizer_keeps_its_state():
    weights, iterations = [], []
    models = _pair()
    initial = models[1].get_weights()
    for model in models:
        _fit(model, [], epochs=1)
        model.compile(optimizer=model.optimizer, loss="mse", metrics=["mae"])
        history = _fit(model, [], epochs=1)
        assert "mae" in history
        weights.append(model.get_weights())
        iterations.append(int(model.optimizer.iterations))
    assert iterations == [6, 6]
    _close(weights[1], weights[0])
    kg_model = _pair()[1]
    kg_model.set_weights(initial)
    _fit(kg_model, [], epochs=1)
    _fit(kg_model, [], epochs=1)  # two fits, no compile between: bitwise the same
    assert all(np.array_equal(a, b) for a, b in zip(kg_model.get_weights(), weights[1]))


def test_a_new_optimizer_starts_afresh():
    model = _pair()[1]
    _fit(model, [], epochs=1)
    model.compile(optimizer=kg.optimizers.Adam(0.01), loss="mse")
    _fit(model, [], epochs=1)
    assert int(model.optimizer.iterations) == 3


def test_a_layer_frozen_in_a_batch_hook_stops_training_from_the_next_step():
    model = _pair()[1]
    frozen = {}

    def freeze(model, batch, logs):
        if batch == 1 and not frozen:
            model.get_layer("hidden").trainable = False
            frozen["hidden"] = [w.copy() for w in model.get_layer("hidden").get_weights()]
            frozen["out"] = [w.copy() for w in model.get_layer("out").get_weights()]

    _fit(model, [_callback(kg, on_train_batch_end=freeze)])
    _close(model.get_layer("hidden").get_weights(), frozen["hidden"], 0.0)
    assert not np.allclose(model.get_layer("out").get_weights()[0], frozen["out"][0])
    model.get_layer("hidden").trainable = True  # unfrozen: trains again, from fit's start
    before = model.get_layer("hidden").get_weights()[0].copy()
    with pytest.warns(RuntimeWarning, match="start fresh"):
        _fit(model, [], epochs=1)
    assert not np.allclose(model.get_layer("hidden").get_weights()[0], before)


def test_the_variables_hold_the_trained_weights_after_fit_and_after_a_failing_fit():
    model = _pair()[1]
    captured = {}

    def boom(model, batch, logs):
        if batch == 2:
            captured["kernel"] = np.asarray(model.get_layer("out").kernel).copy()
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        _fit(model, [_callback(kg, on_train_batch_end=boom)])
    assert all(v._view is None for v in model.weights)  # unbound again
    _close([model.get_layer("out").kernel], [captured["kernel"]], 0.0)
