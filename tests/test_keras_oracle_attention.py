"""Keras 3 oracle: attention layers give Keras's outputs with Keras's weights."""

import os

os.environ.setdefault("KERAS_BACKEND", "jax")

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from kgraph import layers  # noqa: E402

keras = pytest.importorskip("keras")

RNG = np.random.default_rng(0)
Q = RNG.normal(size=(2, 4, 6)).astype(np.float32)
V = RNG.normal(size=(2, 5, 6)).astype(np.float32)
K = RNG.normal(size=(2, 5, 6)).astype(np.float32)
ATT_MASK = RNG.random((2, 4, 5)) > 0.3
Q_MASK = np.array([[1, 1, 1, 0], [1, 0, 1, 1]], bool)
V_MASK = np.array([[1, 1, 0, 1, 0], [1, 1, 1, 1, 0]], bool)


def assert_same(theirs, ours, atol=1e-5):
    a, b = jax.tree_util.tree_leaves(theirs), jax.tree_util.tree_leaves(ours)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(np.asarray(y), np.asarray(x), rtol=1e-5, atol=atol)


def noisy(weights):
    return [w + 0.1 * RNG.normal(size=w.shape).astype(w.dtype) for w in weights]


@pytest.mark.parametrize("kwargs", [
    {"num_heads": 2, "key_dim": 3},
    {"num_heads": 3, "key_dim": 2, "output_shape": 7, "use_bias": False},
    {"num_heads": 2, "key_dim": 3, "use_gate": True, "sliding_window": 2},
], ids=["default", "output_shape_no_bias", "gate_window"])
def test_multi_head_attention_matches_keras(kwargs):
    theirs = keras.layers.MultiHeadAttention(**kwargs)
    ours = layers.MultiHeadAttention(**kwargs)
    theirs(Q, V, K)
    ours(Q, V, K)
    assert [w.path.split("/", 1)[1] for w in theirs.weights] == [w.path for w in ours.weights]
    weights = noisy(theirs.get_weights())
    theirs.set_weights(weights)
    ours.set_weights(weights)
    for call_kwargs in ({}, {"attention_mask": ATT_MASK}, {"use_causal_mask": True},
                        {"value_mask": V_MASK, "key_mask": V_MASK},
                        {"attention_mask": ATT_MASK, "use_causal_mask": True,
                         "return_attention_scores": True}):
        assert_same(theirs(Q, V, K, **call_kwargs), ours(Q, V, K, **call_kwargs))
    assert set(theirs.get_config()) == set(ours.get_config())


def test_multi_head_attention_self_attention_scores_and_axes_match_keras():
    x = RNG.normal(size=(2, 3, 4, 6)).astype(np.float32)
    theirs = keras.layers.MultiHeadAttention(2, 3, attention_axes=(1, 2))
    ours = layers.MultiHeadAttention(2, 3, attention_axes=(1, 2))
    theirs(x, x)
    ours(x, x)
    ours.set_weights(theirs.get_weights())
    assert_same(theirs(x, x, return_attention_scores=True),
                ours(x, x, return_attention_scores=True))
    theirs = keras.layers.MultiHeadAttention(3, 2)
    ours = layers.MultiHeadAttention(3, 2)
    theirs(Q, Q)
    ours(Q, Q)
    ours.set_weights(theirs.get_weights())
    assert_same(theirs(Q, Q, use_causal_mask=True, return_attention_scores=True),
                ours(Q, Q, use_causal_mask=True, return_attention_scores=True))


@pytest.mark.parametrize("class_name,kwargs", [
    ("Attention", {}),
    ("Attention", {"use_scale": True}),
    ("Attention", {"score_mode": "concat", "use_scale": True}),
    ("AdditiveAttention", {}),
    ("AdditiveAttention", {"use_scale": False}),
], ids=["dot", "dot_scale", "concat_scale", "additive", "additive_no_scale"])
def test_attention_matches_keras(class_name, kwargs):
    theirs = getattr(keras.layers, class_name)(**kwargs)
    ours = getattr(layers, class_name)(**kwargs)
    inputs = [Q, V, K]
    theirs(inputs)
    ours(inputs)
    assert [w.name for w in theirs.weights] == [w.name for w in ours.weights]
    weights = noisy(theirs.get_weights())
    theirs.set_weights(weights)
    ours.set_weights(weights)
    for call_kwargs in ({}, {"mask": [Q_MASK, V_MASK]},
                        {"use_causal_mask": True, "return_attention_scores": True},
                        {"mask": [None, V_MASK], "use_causal_mask": True}):
        assert_same(theirs(inputs, **call_kwargs), ours(inputs, **call_kwargs))
    assert set(theirs.get_config()) == set(ours.get_config())
