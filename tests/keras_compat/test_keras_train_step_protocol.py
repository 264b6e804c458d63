"""Keras 3's JAX-form protocol: a Model subclass built functionally with its own
train_step / test_step / predict_step (compiled by fit/evaluate/predict), stateless_call,
compute_loss and metrics, against Keras on the same data and initial weights."""


import jax
import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(0)
_x = _rng.random((96, 8)).astype("float32")
_y = _rng.random((96, 1)).astype("float32")


def _custom_class(lib):
    class CustomModel(lib.Model):
        def compute_loss_and_updates(self, trainable_variables, non_trainable_variables, x, y,
                                     training=False):
            y_pred, non_trainable_variables = self.stateless_call(
                trainable_variables, non_trainable_variables, x, training=training)
            return self.compute_loss(x, y, y_pred), (y_pred, non_trainable_variables)

        def train_step(self, state, data):
            trainable, non_trainable, optimizer_variables, metrics_variables = state
            x, y = data[0], data[1]  # (train_on_batch gives (x, y, sample_weight))
            grad_fn = jax.value_and_grad(self.compute_loss_and_updates, has_aux=True)
            (loss, (y_pred, non_trainable)), grads = grad_fn(trainable, non_trainable, x, y,
                                                             training=True)
            trainable, optimizer_variables = self.optimizer.stateless_apply(
                optimizer_variables, grads, trainable)
            logs, new_metrics = _guide_metrics(self, metrics_variables, loss, y, y_pred)
            return logs, (trainable, non_trainable, optimizer_variables, new_metrics)

    return CustomModel


def _guide_metrics(model, metrics_variables, loss, y, y_pred, sample_weight=None):
    """The JAX custom-step guide's metric updates: the loss tracker on the loss, the others
    on ``(y, y_pred)``; ``(logs, new metrics variables)``."""
    new_metrics, logs = [], {}
    for metric in model.metrics:
        own = metrics_variables[len(new_metrics):len(new_metrics) + len(metric.variables)]
        if metric.name == "loss":
            own = metric.stateless_update_state(own, loss)
        else:
            own = metric.stateless_update_state(own, y, y_pred, sample_weight=sample_weight)
        logs[metric.name] = metric.stateless_result(own)
        new_metrics += own
    return logs, new_metrics


def _build(lib):
    inputs = lib.Input(shape=(8,))
    hidden = lib.layers.Dense(16, activation="relu")(inputs)
    model = _custom_class(lib)(inputs, lib.layers.Dense(1)(hidden))
    model.compile(optimizer=lib.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    return model


def test_custom_train_step_fit_matches_keras():
    ours, theirs = _build(kg), _build(keras)
    assert type(ours).__name__ == "CustomModel" and isinstance(ours, kg.Functional)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    hist_ours = ours.fit(_x, _y, batch_size=32, epochs=3, shuffle=False, verbose=0)
    hist_theirs = theirs.fit(_x, _y, batch_size=32, epochs=3, shuffle=False, verbose=0)
    assert set(hist_ours.history) == set(hist_theirs.history) == {"loss", "mae"}
    for name in ("loss", "mae"):
        np.testing.assert_allclose(hist_ours.history[name], hist_theirs.history[name],
                                   rtol=1e-5)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-5, atol=1e-6)
    # (Keras's own default test_step would call the override above with its signature.)
    loss, mae = ours.evaluate(_x, _y, verbose=0)
    assert np.isclose(loss, np.mean((ours.predict(_x, verbose=0) - _y) ** 2), rtol=1e-5)


def test_train_on_batch_with_an_own_train_step_keeps_the_optimizer_state_as_keras():
    """Batch after batch, the optimizer continues from the state the step returned (its
    Keras variables read back into its own state)."""
    ours, theirs = _build(kg), _build(keras)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    for start in range(0, 96, 32):
        rows = slice(start, start + 32)
        ours.train_on_batch(_x[rows], _y[rows])
        theirs.train_on_batch(_x[rows], _y[rows])
    assert int(ours.optimizer.iterations) == int(theirs.optimizer.iterations) == 3
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-5, atol=1e-6)
    for a, b in zip(ours.optimizer.variables, theirs.optimizer.variables):
        np.testing.assert_allclose(np.asarray(a.value), np.asarray(b.value), rtol=1e-5,
                                   atol=1e-6)


def test_own_trackers_and_test_step_and_predict_step():
    class Tracked(kg.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.loss_tracker = kg.metrics.Mean(name="loss")

        @property
        def metrics(self):
            return [self.loss_tracker]

        def train_step(self, state, data):
            return super().train_step(state, data)

        def test_step(self, state, data):
            trainable, non_trainable, metrics_variables = state
            x, y = data
            y_pred, non_trainable = self.stateless_call(trainable, non_trainable, x)
            loss = self.compute_loss(x, y, y_pred)
            metrics_variables = self.loss_tracker.stateless_update_state(metrics_variables,
                                                                         loss)
            return ({"loss": self.loss_tracker.stateless_result(metrics_variables)},
                    (trainable, non_trainable, metrics_variables))

        def predict_step(self, state, data):
            return super().predict_step(state, data) * 0 + 7

    x = kg.Input(shape=(8,))
    model = Tracked(x, kg.layers.Dense(1)(x))
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(_x, _y, epochs=2, verbose=0, validation_data=(_x, _y))
    assert set(history.history) == {"loss", "val_loss"}
    assert isinstance(model.evaluate(_x, _y, verbose=0), float)
    assert np.all(model.predict(_x, verbose=0) == 7)


def test_stateless_call_is_pure_and_needs_a_key_for_random_layers():
    x = kg.Input(shape=(8,))
    model = kg.Model(x, kg.layers.Dropout(0.5)(kg.layers.Dense(4)(x)))
    trainable = [v.value for v in model.trainable_variables]
    # as Keras's: the Dropout's seed generator state is among the non-trainable variables
    seed_state = [np.asarray(v.value) for v in model.non_trainable_variables]
    assert len(seed_state) == 1
    before = [w.copy() for w in model.get_weights()]
    out, non_trainable = jax.jit(lambda t, n: model.stateless_call(t, n, _x))(trainable,
                                                                                 seed_state)
    np.testing.assert_allclose(out, model(_x), rtol=1e-6)
    np.testing.assert_array_equal(non_trainable[0], seed_state[0])  # inference: no draw
    assert all(np.array_equal(a, b) for a, b in zip(before, model.get_weights()))
    with pytest.raises(ValueError, match="non-trainable variables"):  # Keras's count check
        model.stateless_call(trainable, [], _x, training=True)
    with pytest.raises(ValueError, match='Layer "dropout(_[0-9]+)?" needs a random key'):
        model.stateless_call(trainable, seed_state, _x, training=True)
    dropped, kept = model.stateless_call(trainable, seed_state, _x, training=True,
                                         key=jax.random.PRNGKey(0))
    assert float(np.mean(np.asarray(dropped) == 0)) > 0.3
    np.testing.assert_array_equal(kept[0], seed_state[0])  # draws from the key given
    np.testing.assert_array_equal(model.non_trainable_variables[0].value, seed_state[0])


def test_a_compute_loss_override_is_the_objective_of_fit_and_evaluate():
    class Doubled(kg.Model):
        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                         training=True):
            return 2.0 * super().compute_loss(x, y, y_pred, sample_weight, training)

    x = kg.Input(shape=(8,))
    model = Doubled(x, kg.layers.Dense(1)(x))
    model.compile(optimizer=kg.optimizers.SGD(0.0), loss="mse")
    history = model.fit(_x, _y, epochs=1, batch_size=96, shuffle=False, verbose=0)
    mse = float(np.mean((model.predict(_x, verbose=0) - _y) ** 2))
    assert history.history["loss"][0] == pytest.approx(2 * mse, rel=1e-5)
    assert model.evaluate(_x, _y, verbose=0) == pytest.approx(2 * mse, rel=1e-5)


def _stateless_loss_class(lib):
    """The JAX custom-step guide's current form: ``stateless_compute_loss`` with the
    metrics variables, and ``sample_weight``."""

    class CustomModel(lib.Model):
        def compute_loss_and_updates(self, trainable_variables, non_trainable_variables,
                                     metrics_variables, x, y, sample_weight, training=False):
            y_pred, non_trainable_variables = self.stateless_call(
                trainable_variables, non_trainable_variables, x, training=training)
            loss, (trainable_variables, non_trainable_variables, metrics_variables) = (
                self.stateless_compute_loss(
                    trainable_variables, non_trainable_variables, metrics_variables, x=x, y=y,
                    y_pred=y_pred, sample_weight=sample_weight, training=training))
            return loss, (y_pred, non_trainable_variables, metrics_variables)

        def train_step(self, state, data):
            trainable, non_trainable, optimizer_variables, metrics_variables = state
            x, y, sample_weight = lib.utils.unpack_x_y_sample_weight(data)
            grad_fn = jax.value_and_grad(self.compute_loss_and_updates, has_aux=True)
            (loss, (y_pred, non_trainable, metrics_variables)), grads = grad_fn(
                trainable, non_trainable, metrics_variables, x, y, sample_weight,
                training=True)
            trainable, optimizer_variables = self.optimizer.stateless_apply(
                optimizer_variables, grads, trainable)
            logs, new_metrics = _guide_metrics(self, metrics_variables, loss, y, y_pred,
                                               sample_weight)
            return logs, (trainable, non_trainable, optimizer_variables, new_metrics)

    return CustomModel


def test_stateless_compute_loss_in_a_train_step_matches_keras():
    weights = np.linspace(0.5, 1.5, len(_x)).astype("float32")
    models = {}
    for lib in (keras, kg):
        inputs = lib.Input(shape=(8,))
        hidden = lib.layers.Dense(16, activation="relu")(inputs)
        outputs = lib.layers.BatchNormalization()(lib.layers.Dense(1)(hidden))
        models[lib] = _stateless_loss_class(lib)(inputs, outputs)
        # SGD: Adam turns the rounding of near-zero gradients into whole steps
        models[lib].compile(optimizer=lib.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    models[kg].set_weights([np.asarray(w) for w in models[keras].get_weights()])
    runs = {lib: (model, model.fit(_x, _y, sample_weight=weights, batch_size=32, epochs=2,
                                   shuffle=False, verbose=0).history)
            for lib, model in models.items()}
    (ours, ours_logs), (theirs, theirs_logs) = runs[kg], runs[keras]
    assert set(ours_logs) == set(theirs_logs)
    for name in theirs_logs:
        np.testing.assert_allclose(ours_logs[name], theirs_logs[name], rtol=1e-5)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-5, atol=1e-6)
    assert len(ours.metrics_variables) == len(theirs.metrics_variables)  # once built


def test_stateless_compute_loss_returns_what_compute_loss_changed():
    class Tracking(kg.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.loss_tracker = kg.metrics.Mean(name="loss")

        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                         training=True):
            loss = kg.ops.mean((y - y_pred) ** 2)
            self.loss_tracker.update_state(loss)
            return loss

        @property
        def metrics(self):
            return [self.loss_tracker]

    inputs = kg.Input(shape=(8,))
    model = Tracking(inputs, kg.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd")
    trainable = [v.value for v in model.trainable_variables]
    metrics_variables = [v.value for v in model.metrics_variables]
    y_pred = model(_x[:4])

    @jax.jit
    def step(trainable, metrics_variables):
        return model.stateless_compute_loss(trainable, [], metrics_variables, x=_x[:4],
                                            y=_y[:4], y_pred=y_pred)

    loss, (_, _, new_metrics) = step(trainable, metrics_variables)
    expected = np.mean((_y[:4] - np.asarray(y_pred)) ** 2)
    np.testing.assert_allclose(loss, expected, rtol=1e-6)
    assert model.loss_tracker.stateless_result(new_metrics) == pytest.approx(expected, 1e-6)
    assert model.loss_tracker.result() == 0  # the tracker's own state is untouched
    with pytest.raises(ValueError, match="expected 2 metrics variables"):
        model.stateless_compute_loss(trainable, [], [], x=_x[:4], y=_y[:4], y_pred=y_pred)
