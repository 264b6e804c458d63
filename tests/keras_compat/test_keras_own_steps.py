"""Models with their own ``compute_loss`` or ``train_step`` (Keras 3's JAX form) get every
``fit`` argument Keras gives them and log Keras's numbers: Keras 3 is the oracle."""

from __future__ import annotations

import jax
import keras
import numpy as np
import pytest

import kgraph as kg
from tests.support.keras_differential import guide_train_step, half_loss

_data = np.random.default_rng(0)
X = _data.normal(size=(50, 4)).astype(np.float32)  # batches of 16: the last one has 2 rows
Y = _data.integers(0, 3, 50).astype(np.int32)
WEIGHTS = _data.uniform(0.2, 2.0, 50).astype(np.float32)
X_VAL = _data.normal(size=(20, 4)).astype(np.float32)
Y_VAL = _data.integers(0, 3, 20).astype(np.int32)


def _models(make_class):
    """The same subclassed model in Keras and kgraph, with Keras's initial weights."""
    made = []
    for lib in (keras, kg):
        x = lib.Input(shape=(4,))
        h = lib.layers.Dense(6, activation="relu")(x)
        model = make_class(lib.Model)(x, lib.layers.Dense(3, activation="softmax")(h))
        model.compile(optimizer=lib.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"], weighted_metrics=["accuracy"])
        made.append(model)
    made[1].set_weights([np.asarray(w) for w in made[0].get_weights()])
    return made


def _same_logs(ours, theirs):
    assert set(ours) == set(theirs), (sorted(ours), sorted(theirs))
    for name in theirs:
        np.testing.assert_allclose(np.asarray(ours[name]), np.asarray(theirs[name]),
                                   rtol=1e-5, atol=1e-6, err_msg=name)


FIT_OPTIONS = {
    "class weights and validation cadence": dict(
        class_weight={0: 1.0, 1: 2.0, 2: 0.5}, validation_data=(X_VAL, Y_VAL),
        validation_freq=2, validation_steps=1, validation_batch_size=8),
    "sample weights and a validation split": dict(sample_weight=WEIGHTS,
                                                  validation_split=0.2),
}


@pytest.mark.parametrize("options", list(FIT_OPTIONS))
def test_a_model_overriding_compute_loss_gets_every_fit_argument(options):
    histories, weights = [], []
    for model in _models(half_loss):
        history = model.fit(X, Y, batch_size=16, epochs=3, shuffle=False, verbose=0,
                            **FIT_OPTIONS[options])
        histories.append(history.history)
        weights.append(model.get_weights())
    _same_logs(histories[1], histories[0])
    for ours, theirs in zip(weights[1], weights[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_evaluate_weighs_the_loss_by_batch_size_and_only_weighted_metrics_by_sample():
    results = [model.evaluate(X, Y, sample_weight=WEIGHTS, batch_size=16, verbose=0,
                              return_dict=True) for model in _models(half_loss)]
    _same_logs(results[1], results[0])
    assert results[1]["accuracy"] != results[1]["weighted_accuracy"]


def test_the_guides_train_step_trains_and_logs_as_keras():
    histories, weights = [], []
    for model in _models(guide_train_step):
        history = model.fit(X, Y, batch_size=16, epochs=2, shuffle=False, verbose=0)
        histories.append(history.history)
        weights.append(model.get_weights())
    _same_logs(histories[1], histories[0])
    for ours, theirs in zip(weights[1], weights[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_compiling_without_a_loss_trains_on_what_the_model_computes():
    x = kg.Input(shape=(4,))
    # no loss anywhere: compile accepts it (as Keras), the first step says so (Keras's JAX
    # backend would train on a loss of 0; its other backends raise)
    plain = kg.Model(x, kg.layers.Dense(1, name="out")(x), name="plain")
    plain.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="'plain' has no loss to compute"):
        plain.fit(X, Y[:, None].astype(np.float32), epochs=1, verbose=0)

    class OwnLoss(kg.Model):
        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                         training=True):
            return kg.ops.mean((y_pred - y) ** 2)

    model = OwnLoss(x, kg.layers.Dense(1)(x))
    model.compile(optimizer="sgd")
    history = model.fit(X, Y[:, None].astype(np.float32), epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def _compiled_pair(**compile_options):
    made = []
    for lib in (keras, kg):
        x = lib.Input(shape=(4,))
        model = half_loss(lib.Model)(x, lib.layers.Dense(3, activation="softmax")(x))
        model.compile(loss="sparse_categorical_crossentropy", **{
            key: value(lib) if callable(value) else value
            for key, value in compile_options.items()})
        made.append(model)
    made[1].set_weights([np.asarray(w) for w in made[0].get_weights()])
    return made


def test_own_steps_honour_steps_per_execution_and_end_on_the_moving_average():
    hooks, weights = [], []
    for lib, model in zip((keras, kg), _compiled_pair(
            optimizer=lambda lib: lib.optimizers.SGD(0.1, use_ema=True),
            steps_per_execution=2)):
        seen = []
        model.fit(X, Y, batch_size=16, epochs=1, shuffle=False, verbose=0, callbacks=[
            lib.callbacks.LambdaCallback(
                on_train_batch_begin=lambda batch, logs, seen=seen: seen.append(("b", batch)),
                on_train_batch_end=lambda batch, logs, seen=seen: seen.append(("e", batch)))])
        hooks.append(seen)
        weights.append(model.get_weights())
    assert hooks[1] == hooks[0] == [("b", 0), ("e", 1), ("b", 2), ("e", 3)]
    for ours, theirs in zip(weights[1], weights[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_validation_data_wins_over_a_validation_split():
    logs = [model.fit(X, Y, batch_size=16, epochs=1, shuffle=False, verbose=0,
                      validation_split=0.5, validation_data=(X_VAL, Y_VAL)).history
            for model in _compiled_pair(optimizer="sgd", metrics=["accuracy"])]
    _same_logs(logs[1], logs[0])


def test_a_model_with_its_own_steps_is_not_left_off_a_mesh_nor_out_of_its_precision():
    x = kg.Input(shape=(4,))
    model = half_loss(kg.Model)(x, kg.layers.Dense(3)(x))
    with pytest.raises(ValueError, match="does not place it on a mesh"):
        model.compile(optimizer="sgd", loss="mse", mesh=jax.make_mesh((1,), ("data",)))
    seen = []

    class Peek(kg.Model):
        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                         training=True):
            seen.append(y_pred.dtype)
            return kg.ops.mean(y_pred)

    peek = Peek(x, kg.layers.Dense(3)(x))
    peek.compile(optimizer="sgd", precision="mixed_bfloat16")
    peek.fit(X, Y, epochs=1, verbose=0)
    assert seen and all(dtype == np.dtype("bfloat16") for dtype in seen)
