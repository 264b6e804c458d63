"""Keras 3 oracle: attention layers give Keras's outputs with Keras's weights."""


import jax
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers
from tests.support.helpers import fixed_normal, read_only

keras = pytest.importorskip("keras")

Q, V, K = fixed_normal(1, 2, 4, 6), fixed_normal(2, 2, 5, 6), fixed_normal(3, 2, 5, 6)
ATT_MASK = read_only(np.random.default_rng(4).random((2, 4, 5)) > 0.3)
Q_MASK = read_only(np.array([[1, 1, 1, 0], [1, 0, 1, 1]], bool))
V_MASK = read_only(np.array([[1, 1, 0, 1, 0], [1, 1, 1, 1, 0]], bool))


def assert_same(theirs, ours, atol=1e-5):
    a, b = jax.tree_util.tree_leaves(theirs), jax.tree_util.tree_leaves(ours)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(np.asarray(y), np.asarray(x), rtol=1e-5, atol=atol)


def noisy(rng, weights):
    return [w + 0.1 * rng.normal(size=w.shape).astype(w.dtype) for w in weights]


@pytest.mark.parametrize("kwargs", [
    {"num_heads": 2, "key_dim": 3},
    {"num_heads": 3, "key_dim": 2, "output_shape": 7, "use_bias": False},
    {"num_heads": 2, "key_dim": 3, "use_gate": True, "sliding_window": 2},
], ids=["default", "output_shape_no_bias", "gate_window"])
def test_multi_head_attention_matches_keras(kwargs, rng):
    theirs = keras.layers.MultiHeadAttention(**kwargs)
    ours = layers.MultiHeadAttention(**kwargs)
    theirs(Q, V, K)
    ours(Q, V, K)
    assert [ours.name + w.path[len(theirs.name):] for w in theirs.weights] == [
        w.path for w in ours.weights]  # the same paths, under each one's own name
    weights = noisy(rng, theirs.get_weights())
    theirs.set_weights(weights)
    ours.set_weights(weights)
    for call_kwargs in ({}, {"attention_mask": ATT_MASK}, {"use_causal_mask": True},
                        {"value_mask": V_MASK, "key_mask": V_MASK},
                        {"attention_mask": ATT_MASK, "use_causal_mask": True,
                         "return_attention_scores": True}):
        assert_same(theirs(Q, V, K, **call_kwargs), ours(Q, V, K, **call_kwargs))
    assert set(theirs.get_config()) == set(ours.get_config())


def test_multi_head_attention_self_attention_scores_and_axes_match_keras(rng):
    x = rng.normal(size=(2, 3, 4, 6)).astype(np.float32)
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
def test_attention_matches_keras(class_name, kwargs, rng):
    theirs = getattr(keras.layers, class_name)(**kwargs)
    ours = getattr(layers, class_name)(**kwargs)
    inputs = [Q, V, K]
    theirs(inputs)
    ours(inputs)
    assert [w.name for w in theirs.weights] == [w.name for w in ours.weights]
    weights = noisy(rng, theirs.get_weights())
    theirs.set_weights(weights)
    ours.set_weights(weights)
    for call_kwargs in ({}, {"mask": [Q_MASK, V_MASK]},
                        {"use_causal_mask": True, "return_attention_scores": True},
                        {"mask": [None, V_MASK], "use_causal_mask": True}):
        assert_same(theirs(inputs, **call_kwargs), ours(inputs, **call_kwargs))
    assert set(theirs.get_config()) == set(ours.get_config())


def paired_mha(rng, **kwargs):
    """A Keras and a kgraph MultiHeadAttention with the same (noisy) weights."""
    theirs = keras.layers.MultiHeadAttention(**kwargs)
    ours = layers.MultiHeadAttention(**kwargs)
    theirs(Q, V, key=K)
    ours(Q, V, key=K)
    theirs.set_weights(noisy(rng, theirs.get_weights()))
    ours.set_weights(theirs.get_weights())
    return theirs, ours


def test_multi_head_attention_key_keyword_is_the_key_tensor_eager_and_symbolic(rng):
    theirs, ours = paired_mha(rng, num_heads=2, key_dim=3)
    expected = theirs(Q, V, key=K)
    assert not np.allclose(np.asarray(expected), np.asarray(theirs(Q, V)), atol=1e-3)
    assert_same(expected, ours(Q, V, key=K))
    assert_same(expected, ours(Q, V, key=K, training=True))  # not taken as a PRNG key
    assert_same(expected, ours(query=Q, value=V, key=K))
    q, v, k = (kg.Input(shape=a.shape[1:]) for a in (Q, V, K))
    out = ours(q, v, key=k)
    assert out.shape == (None, 4, 6)
    node = ours._inbound_nodes[-1]
    assert [t is k for t in node._keras_inputs] == [False, False, True]
    model = kg.Model([q, v, k], out)
    assert_same(expected, model([Q, V, K]))
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    assert_same(expected, jax.jit(program.apply)(params, state, [Q, V, K])[0])
    clone = kg.model_from_json(model.to_json())
    clone.set_weights(model.get_weights())
    assert_same(expected, clone([Q, V, K]))


Q_TOKENS = np.array([[3, 1, 0, 0], [2, 4, 5, 0]], np.int32)
V_TOKENS = np.array([[1, 2, 3, 0, 0], [4, 0, 0, 0, 0]], np.int32)
K_TOKENS = np.array([[1, 2, 0, 0, 0], [4, 5, 6, 7, 0]], np.int32)


def embeddings(count, dim=6):
    """``count`` pairs of Keras/kgraph Embedding(mask_zero=True) with the same weights."""
    pairs = []
    for _ in range(count):
        theirs = keras.layers.Embedding(8, dim, mask_zero=True)
        ours = layers.Embedding(8, dim, mask_zero=True)
        theirs(Q_TOKENS)
        ours(Q_TOKENS)
        ours.set_weights(theirs.get_weights())
        pairs.append((theirs, ours))
    return pairs


@pytest.mark.parametrize("masked", ["value", "query_value", "query_value_key"])
def test_multi_head_attention_takes_the_masks_of_query_value_and_key_as_keras(masked, rng):
    theirs, ours = paired_mha(rng, num_heads=2, key_dim=3)
    (eq_t, eq_o), (ev_t, ev_o), (ek_t, ek_o) = embeddings(3)
    pooled = keras.layers.GlobalAveragePooling1D(), layers.GlobalAveragePooling1D()

    def build(lib, embed_q, embed_v, embed_k, mha, pool):
        qt, vt, kt = (lib.Input(shape=t.shape[1:], dtype="int32")
                      for t in (Q_TOKENS, V_TOKENS, K_TOKENS))
        q = embed_q(qt) if "query" in masked else lib.layers.Lambda(lambda x: x + 0.0)(embed_q(qt))
        v, k = embed_v(vt), embed_k(kt)
        out = mha(q, v, key=k) if "key" in masked else mha(q, v)
        return lib.Model([qt, vt, kt], [out, pool(out)])

    keras_model = build(keras, eq_t, ev_t, ek_t, theirs, pooled[0])
    model = build(kg, eq_o, ev_o, ek_o, ours, pooled[1])
    data = [Q_TOKENS, V_TOKENS, K_TOKENS]
    expected = keras_model(data)
    assert_same(expected, model(data))
    params, state = compiler.variables(model)
    assert_same(expected, jax.jit(compiler.compile(model).apply)(params, state, data)[0])
    # copies: arrays carry no Keras mask (an eager embedding's own outputs carry theirs)
    unmasked = ours(np.asarray(eq_o(Q_TOKENS)), np.asarray(ev_o(V_TOKENS)))
    assert not np.allclose(np.asarray(expected[0]), np.asarray(unmasked), atol=1e-3)


@pytest.mark.parametrize("class_name", ["Attention", "AdditiveAttention"])
def test_attention_takes_the_masks_of_its_input_list_as_keras(class_name):
    theirs, ours = getattr(keras.layers, class_name)(), getattr(layers, class_name)()
    theirs([Q, V])
    ours([Q, V])
    ours.set_weights(theirs.get_weights())
    (eq_t, eq_o), (ev_t, ev_o) = embeddings(2)

    def build(lib, embed_q, embed_v, attention):
        qt, vt = (lib.Input(shape=t.shape[1:], dtype="int32") for t in (Q_TOKENS, V_TOKENS))
        out = attention([embed_q(qt), embed_v(vt)])
        return lib.Model([qt, vt], lib.layers.GlobalAveragePooling1D()(out))

    expected = build(keras, eq_t, ev_t, theirs)([Q_TOKENS, V_TOKENS])
    assert_same(expected, build(kg, eq_o, ev_o, ours)([Q_TOKENS, V_TOKENS]))
