"""``GroupedQueryAttention``: attention where groups of query heads share key/value heads
(Keras 3's arguments, weights and numbers; ``num_key_value_heads == num_query_heads`` is
multi-head attention, 1 is multi-query attention).

Inputs are ``(batch, length, features)``. Weights: ``query`` ``(features, num_query_heads,
head_dim)``, ``key`` and ``value`` ``(features, num_key_value_heads, head_dim)``, optional
``gate``, and ``attention_output`` ``(num_query_heads, head_dim, features)``.

>>> import jax.numpy as jnp
>>> layer = GroupedQueryAttention(head_dim=4, num_query_heads=4, num_key_value_heads=2)
>>> layer(jnp.ones((2, 5, 8)), jnp.ones((2, 3, 8))).shape
(2, 5, 8)
"""

from __future__ import annotations

import math

import jax.numpy as jnp

from kgraph.base.input_spec import InputSpec
from kgraph.layers.multi_head_attention import MultiHeadAttention

__all__ = ["GroupQueryAttention", "GroupedQueryAttention"]


class GroupedQueryAttention(MultiHeadAttention):
    """Grouped-query attention. Call: ``layer(query, value, key=None, query_mask=None,
    value_mask=None, key_mask=None, attention_mask=None, return_attention_scores=False,
    training=None, use_causal_mask=False)``; scores are ``(batch, num_query_heads, T, S)``.
    """

    def __init__(self, head_dim, num_query_heads, num_key_value_heads, dropout=0.0,
                 use_bias=True, use_gate=False, sliding_window=None, flash_attention=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, seed=None, **kwargs):
        for name, value in (("head_dim", head_dim), ("num_query_heads", num_query_heads),
                            ("num_key_value_heads", num_key_value_heads)):
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Received an invalid value for argument `{name}`, expected a "
                                 f"positive integer. Received: {name}={value!r}")
        if num_query_heads % num_key_value_heads != 0:
            raise ValueError("`num_query_heads` must be divisible by `num_key_value_heads`.")
        super().__init__(num_query_heads, head_dim, dropout=dropout, use_bias=use_bias,
                         sliding_window=sliding_window, flash_attention=flash_attention,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         use_gate=use_gate, seed=seed, **kwargs)
        self.head_dim = head_dim
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        self.num_repeats = num_query_heads // num_key_value_heads
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(head_dim))

    def build(self, query_shape, value_shape=None, key_shape=None):
        query_shape = tuple(query_shape)
        value_shape = query_shape if value_shape is None else tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        for what, shape in (("query", query_shape), ("value", value_shape), ("key", key_shape)):
            if len(shape) != 3:
                raise ValueError(f'Layer "{self.name}" (GroupedQueryAttention) expects {what} '
                                 f"of rank 3 (batch, length, features), received shape {shape}.")
        q, kv, h = self.num_query_heads, self.num_key_value_heads, self.head_dim
        self.query_dense = self._projection("bqm,muh->bquh", (None, q, h), "uh", "query")
        self.query_dense.build(query_shape)
        self.key_dense = self._projection("bkm,mvh->bkvh", (None, kv, h), "vh", "key")
        self.key_dense.build(key_shape)
        if self.use_gate:
            self.gate_dense = self._projection("bqm,muh->bquh", (None, q, h), "uh", "gate",
                                               activation="sigmoid")
            self.gate_dense.build(query_shape)
        self.value_dense = self._projection("bkm,mvh->bkvh", (None, kv, h), "vh", "value")
        self.value_dense.build(value_shape)
        self.output_dense = self._projection("bquh,uhm->bqm", (None, query_shape[-1]), "m",
                                             "attention_output")
        self.output_dense.build((None, None, q, h))
        for sub in self._tracked_layers():
            sub.built = True
        self.attention_axes = (1,)
        self._norm_axes = (3,)
        self._dot_product_equation = "bquh,bkuh->buqk"
        self._combine_equation = "buqk,bkuh->bquh"
        self.input_spec = InputSpec(ndim=3, axes={-1: query_shape[-1]})
        self.built = True

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        value_shape = query_shape if value_shape is None else value_shape
        key_shape = value_shape if key_shape is None else key_shape
        if query_shape[-1] != value_shape[-1]:
            raise ValueError(f'Layer "{self.name}": The last dimension of `query_shape` and '
                             f"`value_shape` must be equal, but are {query_shape[-1]}, "
                             f"{value_shape[-1]}. Received: query_shape={query_shape}, "
                             f"value_shape={value_shape}")
        return super().compute_output_shape(query_shape, value_shape, key_shape)

    def _project_key_value(self, key, value):
        """Key and value heads, each repeated for its group of query heads."""
        return (jnp.repeat(self.key_dense(key), self.num_repeats, axis=2),
                jnp.repeat(self.value_dense(value), self.num_repeats, axis=2))

    def get_config(self):
        config = super().get_config()
        for key in ("num_heads", "key_dim", "value_dim", "output_shape", "attention_axes"):
            config.pop(key)
        return {**config, "head_dim": self.head_dim, "num_query_heads": self.num_query_heads,
                "num_key_value_heads": self.num_key_value_heads}


GroupQueryAttention = GroupedQueryAttention  # Keras's other name
