"""Keras 3 oracle: recurrent layers and wrappers give Keras's outputs with Keras's weights."""


import jax
import numpy as np
import pytest

from kgraph import layers
from tests.support.helpers import fixed_normal, read_only

keras = pytest.importorskip("keras")

X = fixed_normal(0, 2, 5, 3)
MASK = read_only(np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 1]], bool))
VARIANTS = [{}, {"return_sequences": True, "return_state": True, "go_backwards": True}]
LAYERS = [("LSTM", {}), ("GRU", {}), ("GRU", {"reset_after": False}), ("SimpleRNN", {})]


def pair(rng, class_name, **kwargs):
    """The same layer in Keras and kgraph, built, with Keras's weights copied in."""
    theirs = getattr(keras.layers, class_name)(**kwargs)
    ours = getattr(layers, class_name)(**kwargs)
    theirs.build((None,) + X.shape[1:])
    ours(X)
    weights = theirs.get_weights()
    # Non-default biases, so a misplaced bias shows.
    weights = [w + rng.normal(size=w.shape).astype(w.dtype) * 0.1 for w in weights]
    theirs.set_weights(weights)
    ours.set_weights(weights)
    return theirs, ours


def assert_same(theirs, ours, atol=1e-5):
    a, b = jax.tree_util.tree_leaves(theirs), jax.tree_util.tree_leaves(ours)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(np.asarray(y), np.asarray(x), rtol=1e-5, atol=atol)


@pytest.mark.parametrize("variant", VARIANTS, ids=["last", "seq_state_backwards"])
@pytest.mark.parametrize("class_name,extra", LAYERS,
                         ids=["lstm", "gru", "gru_reset_before", "simple_rnn"])
def test_recurrent_layer_matches_keras(class_name, extra, variant, rng):
    theirs, ours = pair(rng, class_name, units=4, **extra, **variant)
    for mask in (None, MASK):
        assert_same(theirs(X, mask=mask), ours(X, mask=mask))


def test_weights_and_config_keys_match_keras(rng):
    for class_name, extra in LAYERS:
        theirs, ours = pair(rng, class_name, units=4, **extra)
        assert [w.path.split("/", 1)[1] for w in theirs.weights] == [
            f"{ours.cell.name}/{w.name}" for w in ours.weights]
        assert [w.shape for w in theirs.get_weights()] == [w.shape for w in ours.get_weights()]
        theirs_keys, our_keys = set(theirs.get_config()), set(ours.get_config())
        assert theirs_keys <= our_keys and our_keys - theirs_keys <= {"seed"}, class_name


def test_lstm_initial_state_matches_keras(rng):
    theirs, ours = pair(rng, "LSTM", units=4, return_sequences=True, return_state=True)
    state = [rng.normal(size=(2, 4)).astype(np.float32) for _ in range(2)]
    assert_same(theirs(X, initial_state=state, mask=MASK), ours(X, initial_state=state,
                                                                 mask=MASK))


@pytest.mark.parametrize("merge_mode,variant", [
    ("concat", {"return_sequences": True}),
    ("sum", {"return_state": True}),
    (None, {"return_sequences": True, "return_state": True}),
])
def test_bidirectional_lstm_matches_keras(merge_mode, variant, rng):
    theirs = keras.layers.Bidirectional(keras.layers.LSTM(4, **variant), merge_mode=merge_mode)
    ours = layers.Bidirectional(layers.LSTM(4, **variant), merge_mode=merge_mode)
    theirs.build((None, 5, 3))
    ours(X)
    assert [w.path.split("/", 2)[2] for w in theirs.weights] == [
        f"lstm_cell/{w.name}" for w in ours.weights]
    weights = [w + 0.1 * rng.normal(size=w.shape).astype(w.dtype) for w in theirs.get_weights()]
    theirs.set_weights(weights)
    ours.set_weights(weights)
    for mask in (None, MASK):
        assert_same(theirs(X, mask=mask), ours(X, mask=mask))


def test_time_distributed_dense_matches_keras():
    theirs = keras.layers.TimeDistributed(keras.layers.Dense(2, activation="tanh"))
    ours = layers.TimeDistributed(layers.Dense(2, activation="tanh"))
    theirs.build((None, 5, 3))
    ours(X)
    ours.set_weights(theirs.get_weights())
    assert_same(theirs(X), ours(X))
