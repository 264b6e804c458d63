"""Value checks beyond the bad-input catalog: checked_apply, what unchecked jit does, the
cost of the params check, and fit failing before training leaves the model intact."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import compiler.program as program_module
import kgraph as kg
from kgraph import layers


def _embedding_program():
    ids = kg.Input(shape=(3,), dtype="int32")
    program = compiler.compile(kg.Model(ids, layers.Embedding(5, 2, name="emb")(ids)))
    params, state = program.init(jax.random.PRNGKey(0))
    return program, params, state


def test_checked_apply_without_error_matches_apply():
    program, params, state = _embedding_program()
    ids = jnp.array([[0, 4, 2]])
    error, (out, _) = jax.jit(program.checked_apply)(params, state, ids)
    assert error.get() is None
    np.testing.assert_array_equal(out, program.apply(params, state, ids)[0])


def test_checked_apply_reports_the_layer_and_the_id():
    program, params, state = _embedding_program()
    error, _ = jax.jit(program.checked_apply)(params, state, jnp.array([[0, 1, 6]]))
    assert 'Layer "emb" (Embedding)' in error.get() and "received id 6" in error.get()


def test_unchecked_jit_behaves_as_documented():
    """Under jit without checks: ids in [-n, 0) wrap around, other bad ids give NaN rows."""
    program, params, state = _embedding_program()
    table = params["emb"]["embeddings"]
    out, _ = jax.jit(program.apply)(params, state, jnp.array([[-1, 5, 100]]))
    np.testing.assert_array_equal(out[0, 0], table[4])
    assert np.isnan(out[0, 1:]).all()


def test_params_check_runs_once_per_trace(monkeypatch):
    calls = []
    original = program_module.check_weights
    monkeypatch.setattr(program_module, "check_weights",
                        lambda *a: calls.append(1) or original(*a))
    x = kg.Input(shape=(4,))
    program = compiler.compile(kg.Model(x, layers.Dense(3)(x)))
    params, state = program.init(jax.random.PRNGKey(0))
    step = jax.jit(program.apply)
    for _ in range(3):
        step(params, state, jnp.ones((2, 4)))
    assert len(calls) == 1


def test_params_with_the_right_shapes_and_dtypes_pass():
    x = kg.Input(shape=(4,))
    model = kg.Model(x, layers.BatchNormalization()(layers.Dense(3)(x)))
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    out, _ = program.apply(params, state, jnp.ones((2, 4)))
    assert out.shape == (2, 3)


def test_fit_with_bad_validation_data_fails_before_training_and_model_still_works():
    x = kg.Input(shape=(4,))
    model = kg.Model(x, layers.Dense(3)(x))
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    before = [w.copy() for w in model.get_weights()]
    data, labels = np.ones((8, 4), np.float32), np.zeros((8,), np.int32)
    with pytest.raises(ValueError, match="validation_data"):
        model.fit(data, labels, validation_data=(np.ones((4, 5), np.float32), labels[:4]),
                  verbose=0)
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)
    history = model.fit(data, labels, validation_data=(data, labels), verbose=0)
    assert "val_loss" in history.history


def test_valid_class_weight_still_weights_samples():
    x = kg.Input(shape=(4,))
    model = kg.Model(x, layers.Dense(3)(x))
    model.compile(optimizer="sgd", loss="categorical_crossentropy")
    one_hot = np.eye(3, dtype=np.float32)[[0, 1, 2, 0]]
    history = model.fit(np.ones((4, 4), np.float32), one_hot, class_weight={0: 1.0, 2: 3},
                        verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_rnn_checks_feature_size_only_after_build():
    lstm = layers.LSTM(2)
    assert lstm(np.ones((1, 3, 5), np.float32)).shape == (1, 2)
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 5"):
        lstm(kg.Input(shape=(3, 4)))


def test_float64_weights_run_while_jax_64_bit_types_are_off():
    """As Keras on JAX: a float64 layer keeps its dtype's name while JAX stores its values
    in 32 bits (x64 off); predict runs on those values."""
    assert not jax.config.jax_enable_x64
    model = kg.Sequential([kg.Input(shape=(3,)), layers.Dense(5, dtype="float64")])
    assert model.weights[0].dtype == "float64"
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(model.predict(x, verbose=0),
                               x @ np.asarray(model.weights[0]) + np.asarray(model.weights[1]),
                               rtol=1e-5)
