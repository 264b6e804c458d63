"""GroupedQueryAttention: Keras's outputs and scores with Keras's weights; masks; config."""


import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(0)
_q = _rng.normal(size=(2, 5, 8)).astype("float32")
_v = _rng.normal(size=(2, 4, 6)).astype("float32")
_mask = np.array([[1, 1, 1, 0], [1, 1, 0, 0]], bool)


@pytest.mark.parametrize("kwargs, call", [
    (dict(head_dim=4, num_query_heads=4, num_key_value_heads=2), {}),
    (dict(head_dim=3, num_query_heads=6, num_key_value_heads=1, use_bias=False), {}),
    (dict(head_dim=4, num_query_heads=4, num_key_value_heads=4, use_gate=True),
     {"return_attention_scores": True}),
    (dict(head_dim=4, num_query_heads=2, num_key_value_heads=1),
     {"attention_mask": np.ones((2, 5, 4), bool) & _mask[:, None, :]}),
])
def test_gqa_matches_keras(kwargs, call):
    ours = kg.layers.GroupedQueryAttention(**kwargs)
    theirs = keras.layers.GroupQueryAttention(**kwargs)
    theirs(_q, _v)
    ours(_q, _v)
    assert [w.shape for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    ours.set_weights([np.asarray(w) for w in theirs.weights])
    got, want = ours(_q, _v, **call), theirs(_q, _v, **call)
    got, want = (got, want) if call.get("return_attention_scores") else ([got], [want])
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)
    rebuilt = kg.layers.GroupedQueryAttention.from_config(theirs.get_config())
    assert rebuilt.get_config()["num_key_value_heads"] == kwargs["num_key_value_heads"]


def test_gqa_causal_self_attention_matches_keras_and_trains():
    kwargs = dict(head_dim=4, num_query_heads=4, num_key_value_heads=2)
    ours, theirs = kg.layers.GroupedQueryAttention(**kwargs), keras.layers.GroupQueryAttention(
        **kwargs)
    theirs(_q, _q)
    ours(_q, _q)
    ours.set_weights([np.asarray(w) for w in theirs.weights])
    np.testing.assert_allclose(np.asarray(ours(_q, _q, use_causal_mask=True)),
                               np.asarray(theirs(_q, _q, use_causal_mask=True)), atol=1e-5)
    x = kg.Input(shape=(5, 8))
    model = kg.Model(x, kg.layers.GroupedQueryAttention(**kwargs)(x, x, use_causal_mask=True))
    model.compile(optimizer="adam", loss="mse")
    assert np.isfinite(model.fit(_q, _q, epochs=1, verbose=0).history["loss"][0])


def test_gqa_rejects_heads_that_do_not_divide():
    with pytest.raises(ValueError, match="divisible"):
        kg.layers.GroupedQueryAttention(head_dim=4, num_query_heads=5, num_key_value_heads=2)
    assert kg.layers.GroupQueryAttention is kg.layers.GroupedQueryAttention
