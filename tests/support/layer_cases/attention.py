"""Conformance cases: attention layers (MultiHeadAttention, Attention, AdditiveAttention)."""

from kgraph import layers
from tests.support.conformance import LayerCase


class _MHA(layers.MultiHeadAttention):
    """The harness calls ``layer(inputs)`` with one input: a list is ``(query, value[, key])``,
    a single tensor is self-attention ``(x, x)``."""

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and "value" not in kwargs:
            args = tuple(args[0]) if isinstance(args[0], (list, tuple)) else (args[0], args[0])
        return super().__call__(*args, **kwargs)


TOL = {"rtol": 1e-4, "atol": 1e-5}

CASES = [
    LayerCase("attn_mha_self", lambda **kw: _MHA(num_heads=2, key_dim=3, **kw), (4, 6),
              bad_input_shape=(6,), **TOL),
    LayerCase("attn_mha_cross_key", lambda **kw: _MHA(num_heads=2, key_dim=3, value_dim=4,
                                                      output_shape=5, use_bias=False, **kw),
              [(4, 6), (5, 6), (5, 3)], **TOL),
    LayerCase("attn_mha_causal_scores", lambda **kw: _MHA(num_heads=2, key_dim=3, **kw), (4, 6),
              call_kwargs={"use_causal_mask": True, "return_attention_scores": True}, **TOL),
    LayerCase("attn_mha_dropout", lambda **kw: _MHA(num_heads=2, key_dim=3, dropout=0.5, **kw),
              (4, 6), random=True, **TOL),
    LayerCase("attn_mha_gate_window", lambda **kw: _MHA(num_heads=2, key_dim=3, use_gate=True,
                                                        sliding_window=2, **kw),
              (4, 6), **TOL),
    LayerCase("attn_dot_scale", lambda **kw: layers.Attention(use_scale=True, **kw),
              [(4, 3), (5, 3)]),
    LayerCase("attn_concat_causal_scores_dropout", lambda **kw: layers.Attention(
        score_mode="concat", dropout=0.5, **kw), [(4, 3), (4, 3)],
        call_kwargs={"use_causal_mask": True, "return_attention_scores": True}, random=True),
    LayerCase("attn_additive_key", lambda **kw: layers.AdditiveAttention(**kw),
              [(4, 3), (5, 3), (5, 3)], **TOL),
]
