"""``MultiHeadAttention`` (Vaswani et al., 2017), with Keras 3's arguments, weights and masks.

Projections are ``EinsumDense`` sub-layers named as in Keras: ``query``, ``key``,
``value`` (kernels (dim, num_heads, key_dim|value_dim), biases (num_heads, key_dim|value_dim)),
optionally ``gate``, and ``attention_output`` (kernel (num_heads, value_dim, out_dim), bias
(out_dim,)); ``get_weights()`` lists them in that order, as Keras.

Masks combine as in Keras: the query mask as (B, T, 1), the value and key masks as
(B, 1, S), the causal mask (``use_causal_mask=True``) as (1, T, S), a ``sliding_window``
band, and ``attention_mask`` (B, T, S), all ANDed. In a graph, the Keras masks of
``query``, ``value`` and ``key`` arrive as ``query_mask``, ``value_mask`` and ``key_mask``
(``kgraph.interpreter.masking``), so ``Embedding(mask_zero=True)`` padding of the value sequence is
never attended to; eagerly, pass them by name. The output's mask is the query's. The
softmax runs in float32; dropout applies to the attention probabilities in training (the
returned scores are before dropout).

``key=`` in a call is the attention key tensor (``layer(query, value, key=k)``, as Keras),
not a PRNG key: eager dropout draws from the layer's ``seed_generator`` (or the enclosing
call's key).
An explicit ``query_mask=`` is honoured (Keras 3 reads the query mask only from the
tensor's own mask and ignores the argument).

>>> import kgraph as kg
>>> x = kg.Input(shape=(5, 16))
>>> kg.layers.MultiHeadAttention(num_heads=2, key_dim=4)(x, x).shape
(None, 5, 16)
"""

from __future__ import annotations

import math
import string

import jax
import jax.numpy as jnp

from kgraph import config as _config
from kgraph import regularizers
from kgraph.base import shape_inference
from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.base.seed_generator import SeedGenerator
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.layers import weight_args as wa
from kgraph.layers.einsum_dense import EinsumDense
from kgraph.layers.rnn_cells import salted

__all__ = ["MultiHeadAttention"]


class _Projection(EinsumDense):
    """An ``EinsumDense`` whose eager initial weights also depend on its parent's name.

    (Every MultiHeadAttention has sub-layers named ``query``/``key``/...; without the salt,
    two of them would start from identical weights, see ``rnn_cells.salted``.) Quantized
    as Keras's ``EinsumDense`` sub-layers are.
    """

    _quantized_kind = "einsum"

    def __init__(self, *args, weight_salt=None, **kwargs):
        super().__init__(*args, **kwargs)
        self._weight_salt = weight_salt

    def add_weight(self, shape=(), initializer="glorot_uniform", *args, **kwargs):
        return super().add_weight(shape, salted(initializer, self._weight_salt), *args, **kwargs)


def _letter(i):
    return string.ascii_lowercase[i]


def _build_proj_equation(free_dims, bound_dims, output_dims):
    """Einsum equation, bias axes and output rank of a projection (as Keras)."""
    input_str = kernel_str = output_str = bias_axes = ""
    for i in range(free_dims):
        input_str += _letter(i)
        output_str += _letter(i)
    for i in range(bound_dims):
        char = _letter(free_dims + i)
        input_str += char
        kernel_str += char
    for i in range(output_dims):
        char = _letter(free_dims + bound_dims + i)
        kernel_str += char
        output_str += char
        bias_axes += char
    return f"{input_str},{kernel_str}->{output_str}", bias_axes, len(output_str)


def _get_output_shape(output_rank, known_last_dims):
    return [None] * (output_rank - len(known_last_dims)) + list(known_last_dims)


def _build_attention_equation(rank, attn_axes):
    """Query-key dot-product and combination equations over ``attn_axes``.

    Keras's, except that the dot product takes the query first (Keras: key first): the
    same scores, and XLA:CPU compiles this order to a faster train step (compare
    ``benchmarks/bench_runtime.py --workloads transformer`` with the operands swapped).
    """
    target = "".join(_letter(i) for i in range(rank))
    batch_dims = tuple(i for i in range(rank) if i not in attn_axes and i != rank - 1)
    offset, source = rank, ""
    for i in range(rank):
        if i in batch_dims or i == rank - 1:
            source += target[i]
        else:
            source += _letter(offset)
            offset += 1
    product = "".join([target[i] for i in batch_dims] + [target[i] for i in attn_axes]
                      + [source[i] for i in attn_axes])
    return f"{target},{source}->{product}", f"{product},{source}->{target}", len(product)


class MultiHeadAttention(Layer):
    """Multi-head attention. See the module docstring for weights and masks.

    Args:
      num_heads, key_dim: number of heads and size of each head for query and key.
      value_dim: size of each head for value (default ``key_dim``).
      dropout: dropout rate on the attention probabilities (training only).
      use_bias: whether the projections have biases.
      output_shape: output shape besides batch and attention dims (default: the query's
        last dimension).
      attention_axes: axes attention runs over (default: all but batch, heads, features).
      sliding_window: restrict each query to keys within ``sliding_window - 1`` positions.
      flash_attention: as Keras: True refuses attention dropout and returning the scores;
        None or False take ``kgraph.config.is_flash_attention_enabled()``. XLA picks the
        kernel either way.
      kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, \
      activity_regularizer, kernel_constraint, bias_constraint: for the projections.
      use_gate: gate the attention output with ``sigmoid(gate(query))``.
      seed: the seed of the dropout's ``SeedGenerator`` (see ``kgraph.layers.Dropout``).

    Call: ``layer(query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
    attention_mask=None, return_attention_scores=False, training=None,
    use_causal_mask=False)``; returns the output, or ``(output, scores)`` with scores
    (batch, num_heads, T, S).
    """

    supports_masking = True

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
                 output_shape=None, attention_axes=None, sliding_window=None,
                 flash_attention=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 use_gate=False, seed=None, **kwargs):
        if not isinstance(num_heads, int) or isinstance(num_heads, bool) or num_heads <= 0:
            raise ValueError("Received an invalid value for argument `num_heads`, expected a "
                             f"positive integer. Received: num_heads={num_heads}")
        if not isinstance(key_dim, int) or isinstance(key_dim, bool) or key_dim <= 0:
            raise ValueError("Received an invalid value for argument `key_dim`, expected a "
                             f"positive integer. Received: key_dim={key_dim}")
        if value_dim is not None and (not isinstance(value_dim, int) or value_dim <= 0):
            raise ValueError("Received an invalid value for argument `value_dim`, expected a "
                             f"positive integer or `None`. Received: value_dim={value_dim}")
        super().__init__(**kwargs)
        self.num_heads = num_heads
        self.key_dim = key_dim
        self.value_dim = value_dim if value_dim else key_dim
        self.dropout = float(dropout)
        self.use_bias = use_bias
        self.use_gate = use_gate
        if output_shape:
            if isinstance(output_shape, int):
                output_shape = (output_shape,)
            try:
                output_shape = tuple(output_shape)
            except TypeError:
                raise ValueError(f"Invalid `output_shape`: {output_shape}. When specified, the "
                                 "`output_shape` should be of type tuple, list, or int.") from None
        self._output_shape = output_shape or None
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes and not isinstance(attention_axes, (list, tuple)):
            raise ValueError("`attention_axes` must be an int, list, or tuple. "
                             f"Received: attention_axes={attention_axes}")
        self.attention_axes = tuple(attention_axes) if attention_axes is not None else None
        if sliding_window is not None and (not isinstance(sliding_window, int)
                                           or sliding_window <= 0):
            raise ValueError("`sliding_window` must be `None` or a positive integer. "
                             f"Received: sliding_window={sliding_window}")
        self.sliding_window = sliding_window
        self.flash_attention = flash_attention or _config.is_flash_attention_enabled()
        if self.flash_attention and self.dropout > 0.0:
            raise ValueError("Dropout is not supported when flash attention is enabled. "
                             "Please set dropout to 0.0 to use flash attention.")
        wa.set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer,
                           kernel_constraint)
        wa.set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self._projection_activity_regularizer = regularizers.get(activity_regularizer)
        self.seed = seed
        if self.dropout > 0:  # (Keras's dropout sub-layer holds one likewise)
            self.seed_generator = SeedGenerator(seed)
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(self.key_dim))
        self._returned_scores = False

    # ----------------------------------------------------------------- build
    def _get_common_kwargs_for_sublayer(self) -> dict:
        """The arguments Keras gives every projection (fresh initializers each time), for
        subclasses that build their own ``EinsumDense`` projections."""
        def fresh(initializer):  # a name stays a name; an object is copied
            return initializer.clone() if hasattr(initializer, "clone") else initializer

        return {"kernel_initializer": fresh(self.kernel_initializer),
                "bias_initializer": fresh(self.bias_initializer),
                "kernel_regularizer": self.kernel_regularizer,
                "bias_regularizer": self.bias_regularizer,
                "activity_regularizer": self._projection_activity_regularizer,
                "kernel_constraint": self.kernel_constraint,
                "bias_constraint": self.bias_constraint, "dtype": self.dtype_policy}

    def _projection(self, equation, output_shape, bias_axes, name, activation=None):
        layer = _Projection(
            equation, output_shape=output_shape, bias_axes=bias_axes if self.use_bias else None,
            activation=activation,
            kernel_initializer=self.kernel_initializer, bias_initializer=self.bias_initializer,
            kernel_regularizer=self.kernel_regularizer, bias_regularizer=self.bias_regularizer,
            kernel_constraint=self.kernel_constraint, bias_constraint=self.bias_constraint,
            activity_regularizer=self._projection_activity_regularizer,
            dtype=self.dtype_policy, trainable=self.trainable, name=name,
            weight_salt=self.name)
        return layer

    def build(self, query_shape, value_shape=None, key_shape=None):
        query_shape = tuple(query_shape)
        value_shape = query_shape if value_shape is None else tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(f'Layer "{self.name}": All dimensions of `value` and `key`, except '
                             f"the last one, must be equal. Received: value_shape={value_shape} "
                             f"and key_shape={key_shape}")
        for what, shape in (("query", query_shape), ("value", value_shape), ("key", key_shape)):
            if len(shape) < 3:
                raise ValueError(f'Layer "{self.name}" (MultiHeadAttention) expects {what} of '
                                 "rank >= 3 (batch, <attention axes>, features), received shape "
                                 f"{shape}.")
        heads = self.num_heads
        equation, bias_axes, rank = _build_proj_equation(len(query_shape) - 1, 1, 2)
        self.query_dense = self._projection(
            equation, _get_output_shape(rank - 1, [heads, self.key_dim]), bias_axes, "query")
        self.query_dense.build(query_shape)
        equation, bias_axes, key_rank = _build_proj_equation(len(key_shape) - 1, 1, 2)
        self.key_dense = self._projection(
            equation, _get_output_shape(key_rank - 1, [heads, self.key_dim]), bias_axes, "key")
        self.key_dense.build(key_shape)
        if self.use_gate:
            equation, bias_axes, gate_rank = _build_proj_equation(len(query_shape) - 1, 1, 2)
            self.gate_dense = self._projection(
                equation, _get_output_shape(gate_rank - 1, [heads, self.value_dim]), bias_axes,
                "gate", activation="sigmoid")
            self.gate_dense.build(query_shape)
        equation, bias_axes, value_rank = _build_proj_equation(len(value_shape) - 1, 1, 2)
        self.value_dense = self._projection(
            equation, _get_output_shape(value_rank - 1, [heads, self.value_dim]), bias_axes,
            "value")
        self.value_dense.build(value_shape)
        self._build_attention(rank)
        out_dims = list(self._output_shape) if self._output_shape else [query_shape[-1]]
        equation, bias_axes, out_rank = _build_proj_equation(len(query_shape) - 1, 2,
                                                             len(out_dims))
        self.output_dense = self._projection(
            equation, _get_output_shape(out_rank - 1, out_dims), bias_axes, "attention_output")
        self.output_dense.build(query_shape[:-1] + (heads, self.value_dim))
        for sub in self._tracked_layers():
            sub.built = True
        self.input_spec = InputSpec(ndim=len(query_shape), axes={-1: query_shape[-1]})
        self.built = True

    def _build_attention(self, rank):
        if self.attention_axes is None:
            self.attention_axes = tuple(range(1, rank - 2))
        else:
            self.attention_axes = tuple(a if a >= 0 else (rank - 1) + a
                                        for a in self.attention_axes)
        self._dot_product_equation, self._combine_equation, scores_rank = (
            _build_attention_equation(rank, self.attention_axes))
        self._norm_axes = tuple(range(scores_rank - len(self.attention_axes), scores_rank))

    # ------------------------------------------------------------------ call
    def _compute_causal_mask(self, query, value):
        return jnp.tril(jnp.ones((query.shape[1], value.shape[1]), bool))[None]

    def _compute_attention_mask(self, query, value, query_mask=None, value_mask=None,
                                key_mask=None, attention_mask=None, use_causal_mask=False):
        auto_mask = None
        if query_mask is not None:
            auto_mask = jnp.expand_dims(jnp.asarray(query_mask).astype(bool), -1)
        for extra in (value_mask, key_mask):
            if extra is not None:
                mask = jnp.expand_dims(jnp.asarray(extra).astype(bool), -2)
                auto_mask = mask if auto_mask is None else auto_mask & mask
        if use_causal_mask:
            mask = self._compute_causal_mask(query, value)
            auto_mask = mask if auto_mask is None else auto_mask & mask
        if self.sliding_window is not None:
            rows = jnp.arange(query.shape[1])[None, :, None]
            cols = jnp.arange(value.shape[1])[None, None, :]
            mask = jnp.abs(rows - cols) < self.sliding_window
            auto_mask = mask if auto_mask is None else auto_mask & mask
        if attention_mask is not None:
            attention_mask = jnp.asarray(attention_mask).astype(bool)
        if auto_mask is not None:
            attention_mask = auto_mask if attention_mask is None else attention_mask & auto_mask
        return attention_mask

    def _masked_softmax(self, scores, attention_mask=None):
        logits = scores.astype(jnp.float32)
        if attention_mask is not None:
            axis = -len(self.attention_axes) * 2 - 1
            for _ in range(scores.ndim - attention_mask.ndim):
                attention_mask = jnp.expand_dims(attention_mask, axis)
            logits = jnp.where(attention_mask, logits, -1e9)
        return jax.nn.softmax(logits, axis=self._norm_axes).astype(scores.dtype)

    def _compute_attention(self, query, key, value, attention_mask=None, training=None,
                           return_attention_scores=False, use_causal_mask=False):
        """``(output, scores)`` of attention over projected ``query``, ``key``, ``value``
        (Keras's method, which subclasses call; ``use_causal_mask`` adds the causal band
        to ``attention_mask``)."""
        if use_causal_mask:
            causal = self._compute_causal_mask(query, value)
            attention_mask = causal if attention_mask is None else (
                jnp.asarray(attention_mask).astype(bool) & causal)
        query = query * jnp.asarray(self._inverse_sqrt_key_dim, query.dtype)
        scores = jnp.einsum(self._dot_product_equation, query, key)
        scores = self._masked_softmax(scores, attention_mask)
        dropped = scores
        if training and self.dropout > 0:
            keep = jax.random.bernoulli(self.seed_generator.next(), 1.0 - self.dropout,
                                        scores.shape)
            dropped = jnp.where(keep, scores / (1.0 - self.dropout),
                                jnp.zeros((), scores.dtype))
        return jnp.einsum(self._combine_equation, dropped, value), scores

    def _project_key_value(self, key, value):
        return self.key_dense(key), self.value_dense(value)

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, return_attention_scores=False, training=None,
             use_causal_mask=False):
        if self.flash_attention and return_attention_scores:
            raise ValueError(f'Layer "{self.name}": Returning attention scores is not '
                             "supported when flash attention is enabled. Please disable "
                             "flash attention to access attention scores.")
        if key is None:
            key = value
        attention_mask = self._compute_attention_mask(
            query, value, query_mask=query_mask, value_mask=value_mask, key_mask=key_mask,
            attention_mask=attention_mask, use_causal_mask=use_causal_mask)
        gate = self.gate_dense(query) if self.use_gate else None
        key, value = self._project_key_value(key, value)
        output, scores = self._compute_attention(self.query_dense(query), key, value,
                                                 attention_mask, training)
        if gate is not None:
            output = output * gate
        output = self.output_dense(output)
        self._returned_scores = bool(return_attention_scores)
        if return_attention_scores:
            return output, scores
        return output

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        return (mask, None) if self._returned_scores else mask

    def compute_output_spec(self, query, value=None, key=None, **kwargs):
        if kwargs.get("return_attention_scores"):
            args = (query, value) if key is None else (query, value, key)
            return shape_inference.infer_output_spec(self, args, kwargs,
                                                     self._output_spec_cache)
        last = self._output_shape or (query.shape[-1],)
        return KerasTensor(tuple(query.shape[:-1]) + tuple(last), self.compute_dtype)

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        value_shape = tuple(query_shape if value_shape is None else value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(f'Layer "{self.name}": All dimensions of `value` and `key`, except '
                             f"the last one, must be equal. Received: value_shape={value_shape} "
                             f"and key_shape={key_shape}")
        last = self._output_shape or (query_shape[-1],)
        return tuple(query_shape[:-1]) + tuple(last)

    def get_config(self):
        return {**super().get_config(), "num_heads": self.num_heads, "key_dim": self.key_dim,
                "value_dim": self.value_dim, "dropout": self.dropout, "use_bias": self.use_bias,
                "use_gate": self.use_gate,
                "output_shape": None if self._output_shape is None else list(self._output_shape),
                "attention_axes": (None if self.attention_axes is None
                                   else list(self.attention_axes)),
                "sliding_window": self.sliding_window,
                **wa.weight_config(self, "kernel", "bias", strict=False),
                "activity_regularizer": regularizers.serialize(
                    self._projection_activity_regularizer),
                "seed": self.seed}


def _keras_name(public):
    def read(self):
        return getattr(self, public)

    def write(self, value):
        setattr(self, public, value)

    return property(read, write, doc=f"Keras's private name of ``{public}``.")


# Keras's private attribute names, which subclasses written for Keras read and set (KerasHub's
# attention layers build their own ``_query_dense``, ...): the same attributes as here.
for _public in ("query_dense", "key_dense", "value_dense", "output_dense", "gate_dense",
                "num_heads", "key_dim", "value_dim", "dropout", "use_bias", "use_gate",
                "attention_axes", "sliding_window", "flash_attention", "kernel_initializer",
                "bias_initializer", "kernel_regularizer", "bias_regularizer",
                "kernel_constraint", "bias_constraint"):
    setattr(MultiHeadAttention, f"_{_public}", _keras_name(_public))
