"""Keras-style compile/fit/evaluate/predict over the Trainer."""

import jax
import numpy as np
import optax
import pytest

import compiler
import kgraph as kg
from kgraph.losses import losses
from runtime import History


def _model():
    x = kg.Input(shape=(5,), name="features")
    h = kg.layers.Dense(16, activation="relu", name="hidden")(x)
    h = kg.layers.BatchNormalization(name="bn")(h)
    return kg.Model(x, kg.layers.Dense(3, name="logits")(h))


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 5)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 1).astype(np.int32)
    return x, y


def _compiled(seed=0):
    model = _model()
    model.compile(optimizer=optax.adam(1e-2),
                  loss=losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], seed=seed)
    return model


def test_fit_learns_and_records_history():
    model = _compiled()
    x, y = _data(200)
    history = model.fit(x, y, batch_size=32, epochs=8, validation_data=_data(64, seed=1),
                        verbose=0)
    assert isinstance(history, History)
    assert list(history.history) == ["loss", "accuracy", "val_loss", "val_accuracy"]
    assert history.epoch == list(range(8))
    assert all(len(v) == 8 for v in history.history.values())
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["accuracy"][-1] > 0.8


def test_trained_weights_end_up_in_the_model():
    model = _compiled()
    x, y = _data(64)
    before = np.asarray(model(x))
    model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    after = np.asarray(model(x))
    assert not np.allclose(before, after)
    np.testing.assert_allclose(model.predict(x, batch_size=7), after, rtol=1e-5, atol=1e-5)
    params, _ = compiler.variables(model)
    np.testing.assert_array_equal(params["logits"]["kernel"],
                                  model.get_layer("logits").kernel)


def test_evaluate_with_a_partial_last_batch_equals_the_full_batch_computation():
    model = _compiled()
    x, y = _data(50)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    loss, accuracy = model.evaluate(x, y, batch_size=16)  # 16+16+16+2 rows, padded
    logits = np.asarray(model(x))
    expected_loss = float(np.mean(losses.SparseCategoricalCrossentropy(True)(y, logits)))
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-5)
    np.testing.assert_allclose(accuracy, np.mean(logits.argmax(-1) == y), rtol=1e-6)
    logs = model.evaluate(x, y, batch_size=16, return_dict=True)
    assert list(logs) == ["accuracy", "loss"]  # sorted by name, as Keras returns them


def test_fit_is_deterministic_for_a_seed():
    results = []
    for _ in range(2):
        kg.random.set_seed(3)
        model = _compiled(seed=5)
        model.fit(*_data(64), batch_size=16, epochs=2, verbose=0)
        results.append(compiler.variables(model))
    for a, b in zip(jax.tree_util.tree_leaves(results[0]), jax.tree_util.tree_leaves(results[1])):
        np.testing.assert_array_equal(a, b)


def test_optimizer_state_carries_over_between_fit_calls():
    model = _compiled()
    x, y = _data(32)
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    first = model._opt_state
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    counts = [leaf for leaf in jax.tree_util.tree_leaves(model._opt_state) if leaf.ndim == 0]
    assert first is not None and any(int(c) == 2 for c in counts)  # Adam's step count


def test_fit_prints_per_epoch_progress(capsys):
    model = _compiled()
    model.fit(*_data(32), batch_size=16, epochs=2, verbose=2)
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "Epoch 2/2" in out and "loss:" in out and "accuracy:" in out


def test_compile_with_names():
    model = _model()
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    logs = model.evaluate(*_data(20), return_dict=True)
    assert set(logs) == {"loss", "accuracy"}


def test_predict_works_without_compile_and_keeps_output_structure():
    x = kg.Input(shape=(4,), name="x")
    model = kg.Model(x, {"a": kg.layers.Dense(2)(x), "b": kg.layers.Dense(1)(x)})
    data = np.ones((10, 4), np.float32)
    out = model.predict(data, batch_size=4)
    assert set(out) == {"a", "b"} and out["a"].shape == (10, 2) and out["b"].shape == (10, 1)
    np.testing.assert_allclose(out["a"], model(data)["a"], rtol=1e-6)


def test_errors_before_training():
    model = _model()
    with pytest.raises(RuntimeError, match="must call model.compile"):
        model.fit(*_data(8))
    model.compile(optimizer="adam", loss="mse")
    x, y = _data(8)
    with pytest.raises(ValueError, match="same number of samples"):
        model.fit(x, y[:5], verbose=0)
    before = compiler.variables(model)
    with pytest.raises(ValueError):
        model.fit(x, y[:5], verbose=0)
    for a, b in zip(jax.tree_util.tree_leaves(before),
                    jax.tree_util.tree_leaves(compiler.variables(model))):
        np.testing.assert_array_equal(a, b)
