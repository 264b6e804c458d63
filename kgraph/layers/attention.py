"""Dot-product and additive attention: ``Attention`` (Luong) and ``AdditiveAttention`` (Bahdanau).

Both are called on a list ``[query, value]`` or ``[query, value, key]`` (``key`` defaults to
``value``) of shapes (batch, Tq, dim), (batch, Tv, dim) and return (batch, Tq, dim), plus
the attention distribution (batch, Tq, Tv) with ``return_attention_scores=True``. A list
mask ``[query_mask, value_mask]`` keeps masked values out of the softmax and zeroes the
outputs at masked query positions; ``use_causal_mask=True`` stops position i from attending
to j > i. The softmax is computed in float32.

>>> import kgraph as kg
>>> q, v = kg.Input(shape=(4, 8)), kg.Input(shape=(6, 8))
>>> kg.layers.Attention()([q, v]).shape
(None, 4, 8)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph.base.layer import Layer
from kgraph.base.seed_generator import SeedGenerator
from kgraph.graph.keras_tensor import KerasTensor

__all__ = ["AdditiveAttention", "Attention"]


def _dropout(layer, weights, rate):
    keep = jax.random.bernoulli(layer.seed_generator.next(), 1.0 - rate, weights.shape)
    return jnp.where(keep, weights / (1.0 - rate), jnp.zeros((), weights.dtype))


class Attention(Layer):
    """Dot-product attention: ``softmax(query @ key^T [* scale]) @ value``.

    Args:
      use_scale: learn a scalar ``scale`` (initialized to 1) multiplying the scores.
      score_mode: ``"dot"`` (query . key) or ``"concat"``
        (``concat_score_weight * sum(tanh(scale * (query + key)))``).
      dropout: fraction of the attention weights dropped in training.
      seed: the seed of the dropout's ``SeedGenerator``.
    """

    supports_masking = True

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError("Invalid value for argument score_mode. Expected one of "
                             f"{{'dot', 'concat'}}. Received: score_mode={score_mode}")
        self.use_scale = use_scale
        self.score_mode = score_mode
        self.dropout = float(dropout)
        self.seed = seed
        if self.dropout > 0:  # as Keras's: the dropout's keys (kgraph.base.seed_generator)
            self.seed_generator = SeedGenerator(seed)
        self._returned_scores = False

    def _validate_inputs(self, inputs, mask=None):
        class_name = type(self).__name__
        # a list of inputs (or of their shapes: a shape is a tuple of ints)
        if not isinstance(inputs, (list, tuple)) or (
                inputs and isinstance(inputs[0], (int, type(None)))):
            raise ValueError(f'Layer "{self.name}": {class_name} layer must be called on a list '
                             f"of inputs, namely [query, value] or [query, value, key]. "
                             f"Received: inputs={inputs}.")
        if len(inputs) < 2 or len(inputs) > 3:
            raise ValueError(f'Layer "{self.name}": {class_name} layer accepts inputs list of '
                             "length 2 or 3, namely [query, value] or [query, value, key]. "
                             f"Received length: {len(inputs)}.")
        if mask is not None:
            if not isinstance(mask, (list, tuple)):
                raise ValueError(f'Layer "{self.name}": {class_name} layer mask must be a '
                                 f"list, namely [query_mask, value_mask]. Received: mask={mask}.")
            if len(mask) < 2 or len(mask) > 3:
                raise ValueError(f'Layer "{self.name}": {class_name} layer accepts mask list of '
                                 f"length 2 or 3. Received: mask={mask}.")

    def build(self, input_shape):
        self._validate_inputs(input_shape)
        query, key = input_shape[0], input_shape[2 if len(input_shape) > 2 else 1]
        shapes = isinstance(query, (tuple, list)) and isinstance(key, (tuple, list))
        if (shapes and query and key and None not in (query[-1], key[-1])
                and query[-1] != key[-1]):
            raise ValueError(f'Layer "{self.name}" ({type(self).__name__}): the query and the '
                             f"key must have the same last dimension to be scored; received "
                             f"query of shape {tuple(query)} and key of shape {tuple(key)}.")
        if self.use_scale:
            self.scale = self.add_weight((), "ones", name="scale")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight((), "ones", name="concat_score_weight")
        self.built = True

    def _calculate_scores(self, query, key):
        scale = self.scale if self.use_scale else None
        if self.score_mode == "dot":
            scores = jnp.matmul(query, jnp.swapaxes(key, -2, -1))
            return scores if scale is None else scores * scale
        q, k = jnp.expand_dims(query, -2), jnp.expand_dims(key, -3)
        summed = q + k if scale is None else scale * (q + k)
        return self.concat_score_weight * jnp.sum(jnp.tanh(summed), axis=-1)

    def _calculate_score_mask(self, scores, v_mask, use_causal_mask):
        """The mask of the scores (Keras's method): the value mask, and with
        ``use_causal_mask`` the lower-triangular (1, Tq, Tv) band too."""
        if not use_causal_mask:
            return v_mask
        tq, tv = scores.shape[-2], scores.shape[-1]
        causal = jnp.tril(jnp.ones((tq, tv), bool))[None]
        if v_mask is None:
            return causal
        return jnp.logical_and(jnp.expand_dims(jnp.asarray(v_mask, bool), -2), causal)

    def _apply_scores(self, scores, value, scores_mask, training):
        logits = scores.astype(jnp.float32)
        if scores_mask is not None:
            padding = jnp.logical_not(scores_mask)
            if padding.ndim == 2:
                padding = jnp.expand_dims(padding, -2)
            big = 65504.0 if scores.dtype == jnp.float16 else 1.0e9
            logits = jnp.where(padding, logits - big, logits)
        weights = jax.nn.softmax(logits, axis=-1).astype(scores.dtype)
        if training and self.dropout > 0:  # (the scores returned are these, as Keras's)
            weights = _dropout(self, weights, self.dropout)
        return jnp.matmul(weights, value), weights

    def call(self, inputs, mask=None, training=None, return_attention_scores=False,
             use_causal_mask=False):
        self._validate_inputs(inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask = mask[0] if mask else None
        value_mask = mask[1] if mask else None
        if value_mask is not None:
            value_mask = value_mask.astype(bool)
        scores = self._calculate_scores(query, key)
        scores_mask = self._calculate_score_mask(scores, value_mask, use_causal_mask)
        output, weights = self._apply_scores(scores, value, scores_mask, training)
        if query_mask is not None:
            output = jnp.where(jnp.expand_dims(query_mask.astype(bool), -1), output,
                               jnp.zeros((), output.dtype))
        self._returned_scores = bool(return_attention_scores)
        if return_attention_scores:
            return output, weights
        return output

    def compute_mask(self, inputs, mask=None):
        self._validate_inputs(inputs, mask)
        if mask is None or mask[0] is None:
            return None
        return (mask[0], None) if self._returned_scores else mask[0]

    def compute_output_shape(self, input_shape):
        query_shape, value_shape = input_shape[0], input_shape[1]
        return (*query_shape[:-1], value_shape[-1])

    def compute_output_spec(self, inputs, mask=None, training=None,
                            return_attention_scores=False, use_causal_mask=False):
        self._validate_inputs(inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        dtype = self.compute_dtype
        output = KerasTensor(self.compute_output_shape([query.shape, value.shape]), dtype)
        if return_attention_scores:
            return output, KerasTensor((*query.shape[:-1], key.shape[-2]), dtype)
        return output

    def get_config(self):
        return {**super().get_config(), "use_scale": self.use_scale,
                "score_mode": self.score_mode, "dropout": self.dropout, "seed": self.seed}


class AdditiveAttention(Attention):
    """Additive attention: scores ``sum(scale * tanh(query + key), axis=-1)``.

    Weights: ``scale`` (dim,), glorot-uniform, if ``use_scale`` (default True).
    """

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        self._validate_inputs(input_shape)
        dim = input_shape[0][-1]
        if self.use_scale:
            self.scale = self.add_weight((dim,), "glorot_uniform", name="scale")
        self.built = True

    def _calculate_scores(self, query, key):
        q, k = jnp.expand_dims(query, -2), jnp.expand_dims(key, -3)
        tanh = jnp.tanh(q + k)
        return jnp.sum(self.scale * tanh if self.use_scale else tanh, axis=-1)

    def get_config(self):
        config = super().get_config()
        del config["score_mode"]
        return config
