"""Attention layers: values against NumPy references, mask combination, dropout, errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers
from tests.support.helpers import fixed_normal, MakeMask, read_only

Q, V, K = fixed_normal(1, 2, 4, 6), fixed_normal(2, 2, 5, 6), fixed_normal(3, 2, 5, 3)
ATT_MASK = read_only(np.random.default_rng(4).random((2, 4, 5)) > 0.3)
Q_MASK = read_only(np.array([[1, 1, 1, 0], [1, 0, 1, 1]], bool))
V_MASK = read_only(np.array([[1, 1, 0, 1, 0], [1, 1, 1, 1, 0]], bool))


def softmax(x, mask=None):
    x = np.asarray(x, np.float64)
    if mask is not None:
        x = np.where(mask, x, -1e9)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_mha(layer, q, v, k, mask=None):
    wq, bq, wk, bk, wv, bv, wo, bo = [np.asarray(w, np.float64) for w in layer.get_weights()]
    qh = np.einsum("btd,dnh->btnh", q, wq) + bq
    kh = np.einsum("bsd,dnh->bsnh", k, wk) + bk
    vh = np.einsum("bsd,dnh->bsnh", v, wv) + bv
    scores = np.einsum("btnh,bsnh->bnts", qh / np.sqrt(layer.key_dim), kh)
    probs = softmax(scores, None if mask is None else mask[:, None])
    heads = np.einsum("bnts,bsnh->btnh", probs, vh)
    return np.einsum("btnh,nhd->btd", heads, wo) + bo, probs


# ------------------------------------------------------------ MultiHeadAttention
def test_mha_matches_numpy_with_all_masks_combined():
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4)
    out, scores = layer(Q, V, K, attention_mask=ATT_MASK, query_mask=Q_MASK, value_mask=V_MASK,
                        use_causal_mask=True, return_attention_scores=True)
    causal = np.tril(np.ones((4, 5), bool))[None]
    mask = ATT_MASK & Q_MASK[:, :, None] & V_MASK[:, None, :] & causal
    expected, probs = np_mha(layer, Q, V, K, mask)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(scores, probs, rtol=1e-5, atol=1e-6)
    assert scores.shape == (2, 2, 4, 5)
    np.testing.assert_allclose(np.asarray(scores).sum(-1), 1.0, rtol=1e-5)


def test_mha_weights_like_keras():
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4, output_shape=7,
                                      name="mha")
    x = kg.Input(shape=(4, 6))
    y = layer(x, x)
    model = kg.Model(x, y)
    params, _ = compiler.variables(model)
    shapes = {name: {w: v.shape for w, v in sub.items()} for name, sub in params["mha"].items()}
    assert shapes == {"query": {"kernel": (6, 2, 3), "bias": (2, 3)},
                      "key": {"kernel": (6, 2, 3), "bias": (2, 3)},
                      "value": {"kernel": (6, 2, 4), "bias": (2, 4)},
                      "attention_output": {"kernel": (2, 4, 7), "bias": (7,)}}
    assert [w.path for w in layer.weights] == [f"mha/{path}" for path in (  # as Keras's
        "query/kernel", "query/bias", "key/kernel", "key/bias", "value/kernel", "value/bias",
        "attention_output/kernel", "attention_output/bias")]
    assert y.shape == (None, 4, 7)


def test_causal_mask_hides_the_future(rng):
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    x = rng.normal(size=(1, 5, 6)).astype(np.float32)
    changed = x.copy()
    changed[:, 3:] += 1.0
    a = np.asarray(layer(x, x, use_causal_mask=True))
    b = np.asarray(layer(changed, changed, use_causal_mask=True))
    np.testing.assert_allclose(a[:, :3], b[:, :3], rtol=1e-6)
    assert not np.allclose(a[:, 3:], b[:, 3:])


def test_query_mask_flows_from_the_graph():
    class MaskOut(kg.Layer):
        def call(self, inputs, mask=None):
            return inputs if mask is None else inputs * mask[..., None].astype(inputs.dtype)

    data = Q.copy()
    data[~Q_MASK, 0] = 0.0
    x = kg.Input(shape=(4, 6))
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3, name="mha")
    masked = MakeMask()(x)
    model = kg.Model(x, MaskOut()(mha(masked, masked)))
    # Self-attention: the tensor's mask is both the query mask and the value mask (Keras).
    expected = (np.asarray(mha(data, data, query_mask=Q_MASK, value_mask=Q_MASK))
                * Q_MASK[..., None])
    out, _ = jax.jit(compiler.compile(model).apply)(*compiler.variables(model), data)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    assert mha.compute_mask(data, Q_MASK) is Q_MASK


def test_mha_dropout_training_only_and_scores_before_dropout():
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3, dropout=0.5)
    base = layer(Q, V)
    np.testing.assert_array_equal(base, layer(Q, V, training=False))
    x = kg.Input(shape=(4, 6))
    model = kg.Model(x, layer(x, x, return_attention_scores=True))
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    (out1, s1), _ = program.apply(params, state, Q, training=True, key=jax.random.PRNGKey(1))
    (out2, _), _ = program.apply(params, state, Q, training=True, key=jax.random.PRNGKey(2))
    (out0, s0), _ = program.apply(params, state, Q)
    assert not np.allclose(out1, out2) and not np.allclose(out1, out0)
    np.testing.assert_allclose(s1, s0, rtol=1e-6)  # returned probabilities: pre-dropout
    # Keyword ``key`` is the attention key tensor even in training (not a PRNG key).
    out = layer(Q, V, key=V, training=True)
    assert out.shape == (2, 4, 6)


def test_mha_positional_and_keyword_arguments_agree():
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    np.testing.assert_allclose(layer(Q, V, K), layer(query=Q, value=V, key=K), rtol=1e-6)
    other = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    np.testing.assert_allclose(other(Q, V), other(Q, value=V, key=V), rtol=1e-6)


def test_mha_errors():
    with pytest.raises(ValueError, match="num_heads"):
        layers.MultiHeadAttention(num_heads=0, key_dim=2)
    with pytest.raises(ValueError, match="key_dim"):
        layers.MultiHeadAttention(num_heads=2, key_dim="2")
    with pytest.raises(ValueError, match="attention_axes"):
        layers.MultiHeadAttention(2, 2, attention_axes="1")
    with pytest.raises(ValueError, match="sliding_window"):
        layers.MultiHeadAttention(2, 2, sliding_window=0)
    with pytest.raises(ValueError, match="except the last one"):
        layers.MultiHeadAttention(2, 2)(Q, V, K[:, :4])
    with pytest.raises(ValueError, match='"mha_rank"'):
        layers.MultiHeadAttention(2, 2, name="mha_rank")(Q[:, 0], Q[:, 0])
    with pytest.raises(TypeError, match="value"):
        layers.MultiHeadAttention(2, 2)(Q)


def test_two_mha_layers_start_from_different_weights():
    a, b = layers.MultiHeadAttention(2, 3), layers.MultiHeadAttention(2, 3)
    a(Q, Q), b(Q, Q)
    assert not np.allclose(a.get_weights()[0], b.get_weights()[0])


def test_mha_config_round_trip():
    layer = layers.MultiHeadAttention(2, 3, value_dim=4, output_shape=(7,), dropout=0.1,
                                      use_gate=True, sliding_window=3, seed=5)
    layer(Q, V)
    config = layer.get_config()
    assert config["attention_axes"] == [1] and config["value_dim"] == 4
    clone = layers.MultiHeadAttention.from_config(config)
    assert clone.get_config() == config
    clone(Q, V)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(clone(Q, V), layer(Q, V), rtol=1e-6)


def test_mha_mixed_precision_softmax_in_float32():
    layer = layers.MultiHeadAttention(2, 3, dtype="mixed_bfloat16")
    out, scores = layer(Q, V, return_attention_scores=True)
    assert out.dtype == scores.dtype == jnp.bfloat16
    assert layer.get_weights()[0].dtype == np.float32
    np.testing.assert_allclose(np.asarray(scores, np.float32).sum(-1), 1.0, atol=2e-2)


# ----------------------------------------------------- Attention / AdditiveAttention
def np_attention(scores, v, q_mask=None, v_mask=None, causal=False):
    mask = np.ones(scores.shape, bool)
    if v_mask is not None:
        mask &= v_mask[:, None, :]
    if causal:
        mask &= np.tril(np.ones(scores.shape[-2:], bool))[None]
    weights = softmax(np.where(mask, scores, scores - 1e9))
    out = weights @ v
    if q_mask is not None:
        out = out * q_mask[..., None]
    return out, weights


@pytest.mark.parametrize("score_mode", ["dot", "concat"])
def test_attention_matches_numpy(score_mode):
    q, v, k = Q[..., :3], V[..., :3], K
    layer = layers.Attention(use_scale=True, score_mode=score_mode)
    layer([q, v, k])
    layer.set_weights([np.float32(1.5)] * len(layer.get_weights()))
    out, weights = layer([q, v, k], mask=[Q_MASK, V_MASK], use_causal_mask=True,
                         return_attention_scores=True)
    if score_mode == "dot":
        scores = 1.5 * q @ np.swapaxes(k, -1, -2)
    else:
        scores = 1.5 * np.tanh(1.5 * (q[:, :, None] + k[:, None])).sum(-1)
    expected, expected_w = np_attention(scores, v, Q_MASK, V_MASK, causal=True)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(weights, expected_w, rtol=1e-5, atol=1e-6)


def test_additive_attention_matches_numpy():
    q, v = Q[..., :3], V[..., :3]
    layer = layers.AdditiveAttention()
    out = layer([q, v], mask=[None, V_MASK])
    scale = np.asarray(layer.get_weights()[0], np.float64)
    assert scale.shape == (3,)
    scores = (scale * np.tanh(q[:, :, None] + v[:, None])).sum(-1)
    expected, _ = np_attention(scores, v, v_mask=V_MASK)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    assert "score_mode" not in layer.get_config()


def test_attention_in_graph_with_masks_and_scores():
    q_in, v_in = kg.Input(shape=(4, 3)), kg.Input(shape=(5, 3))
    att = layers.Attention(name="att")
    out, scores = att([MakeMask()(q_in), MakeMask()(v_in)], return_attention_scores=True)
    assert out.shape == (None, 4, 3) and scores.shape == (None, 4, 5)
    model = kg.Model([q_in, v_in], [out, scores])
    q, v = Q[..., :3].copy(), V[..., :3].copy()
    q[~Q_MASK, 0], v[~V_MASK, 0] = 0.0, 0.0
    got, _ = jax.jit(compiler.compile(model).apply)(*compiler.variables(model), [q, v])
    expected = att([q, v], mask=[Q_MASK, V_MASK], return_attention_scores=True)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    assert np.all(np.asarray(got[1])[..., ~V_MASK[0]][0] < 1e-6)
    np.testing.assert_array_equal(att.compute_mask([q, v], [Q_MASK, V_MASK])[0], Q_MASK)


def test_attention_dropout_and_errors():
    layer = layers.Attention(dropout=0.5)
    q, v = Q[..., :3], V[..., :3]
    np.testing.assert_array_equal(layer([q, v]), layer([q, v], training=False))
    a = layer([q, v], training=True, key=jax.random.PRNGKey(0))
    assert not np.allclose(a, layer([q, v]))
    with pytest.raises(ValueError, match="list of inputs"):
        layers.Attention()(q)
    with pytest.raises(ValueError, match="length 2 or 3"):
        layers.Attention()([q])
    with pytest.raises(ValueError, match="mask must be a list"):
        layers.Attention()([q, v], mask=Q_MASK)
    with pytest.raises(ValueError, match="score_mode"):
        layers.Attention(score_mode="general")
