"""``Embedding``: integer indices to dense vectors; ``ReversibleEmbedding``: and back to logits."""

from __future__ import annotations

import jax.numpy as jnp

from kgraph.base import shape_inference
from kgraph.base.layer import Layer
from kgraph.interpreter import checks
from kgraph.layers import lora, quantized, quantized_reverse
from kgraph.layers import weight_args as wa

__all__ = ["Embedding", "ReversibleEmbedding", "resolve_initializer"]


# Keras's short aliases that kgraph.initializers.get does not know.
_ALIASES = {"uniform": "random_uniform", "normal": "random_normal"}


def resolve_initializer(identifier):
    """What ``add_weight`` gets: Keras's ``"uniform"``/``"normal"`` become the names
    ``kgraph.initializers`` knows; anything else passes through."""
    if isinstance(identifier, str):
        return _ALIASES.get(identifier.lower(), identifier)
    return identifier


def _positive_int(value, name):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"`{name}` must be a positive integer. Received: {name}={value!r} "
                         f"(of type {type(value).__name__}).")


class Embedding(lora.LoRA, quantized.Quantizable, Layer):
    """Look up rows of the ``embeddings`` matrix ``(input_dim, output_dim)``.

    Non-integer inputs are cast to int32 (as Keras). With ``mask_zero=True`` index 0 is
    padding: the output mask is ``inputs != 0`` (``input_dim`` should then count it).

    Ids must be in ``[0, input_dim)``. On concrete arrays (eager calls, an un-jitted
    ``program.apply``) an id outside raises a ValueError naming the layer and the id.
    Under ``jit`` ids are data and are not checked: JAX's gather then wraps an id in
    ``[-input_dim, 0)`` to ``id + input_dim`` (as Python indexing) and gives NaN rows for
    every other out-of-range id. ``program.checked_apply`` (``jax.experimental.checkify``)
    checks them under ``jit`` too and returns an error naming the layer.

    ``quantize("int8")`` (``"int4"``) quantizes the embeddings per row as Keras does (see
    ``kgraph.layers.quantized``).

    >>> import kgraph as kg
    >>> Embedding(10, 4)(kg.Input(shape=(5,), dtype="int32")).shape
    (None, 5, 4)
    """

    autocast = False  # integer inputs; the output is cast to the compute dtype explicitly
    _quantized_kind, _quantized_weight = "embedding", "embeddings"
    _lora_weight = "embeddings"
    _lora_alpha_at_build = False  # as Keras's build: enable_lora(lora_rank), alpha = rank

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False,
                 weights=None, lora_rank=None, lora_alpha=None, quantization_config=None,
                 **kwargs):
        _positive_int(input_dim, "input_dim")
        _positive_int(output_dim, "output_dim")
        super().__init__(**kwargs)
        self._init_lora(lora_rank, lora_alpha)
        self.quantization_config = quantized.config_argument(self.name, quantization_config)
        self.input_dim = input_dim
        self.output_dim = output_dim
        wa.set_weight_args(self, "embeddings", embeddings_initializer, embeddings_regularizer,
                           embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self.supports_masking = self.mask_zero
        if weights is not None:
            self.build(None)
            self.set_weights(weights if isinstance(weights, list) else [weights])

    def build(self, input_shape=None):
        if self.built:
            return
        if self.quantization_mode is not None:  # a quantized layer's config
            quantized.build(self, (self.input_dim, self.output_dim))
        else:
            self.embeddings = wa.add_weight(self, "embeddings",
                                            (self.input_dim, self.output_dim),
                                            resolve_initializer(self.embeddings_initializer))
        self.built = True
        self._build_lora()

    def call(self, inputs):
        if self.quantization_mode is not None:
            return quantized.call(self, inputs)
        if inputs.dtype not in (jnp.int32, jnp.int64):
            inputs = inputs.astype(jnp.int32)
        checks.check_index_range(self, inputs, self.input_dim)
        return jnp.take(self.embeddings, inputs, axis=0).astype(self.compute_dtype)

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return jnp.not_equal(inputs, 0)

    def compute_output_shape(self, input_shape):
        return (*input_shape, self.output_dim)

    def compute_output_dtype(self, input_dtype):
        return self.compute_dtype

    @classmethod
    def from_config(cls, config):
        # as Keras's Operation.from_config: a bad argument is a TypeError naming the class
        try:
            return super().from_config(config)
        except (TypeError, ValueError) as error:
            raise TypeError(f"Error when deserializing class '{cls.__name__}' using "
                            f"config={config}.\n\nException encountered: {error}") from error

    def get_config(self):
        return {**super().get_config(), "input_dim": self.input_dim,
                "output_dim": self.output_dim,
                **wa.weight_config(self, "embeddings", activity=True, strict=False),
                "mask_zero": self.mask_zero,
                "quantization_config": self._quantization_config_entry(),
                **self._lora_config()}


class ReversibleEmbedding(Embedding):
    """An ``Embedding`` that also maps vectors back to logits over the vocabulary:
    ``layer(ids)`` embeds, ``layer(x, reverse=True)`` is ``x @ embeddings.T`` (a language
    model's tied output layer), or ``x @ reverse_embeddings`` with ``tie_weights=False``.
    ``logit_soft_cap`` bounds the logits with ``cap * tanh(logits / cap)``; ``reverse_dtype``
    computes them in another dtype.

    ``quantize("int8")`` (``"int4"``) quantizes the embeddings as ``Embedding``'s and, untied,
    ``reverse_embeddings`` per column; the reversed call then runs on the quantized weights
    as Keras's (see ``kgraph.layers.quantized_reverse``).

    >>> import kgraph as kg
    >>> embed = ReversibleEmbedding(100, 8)
    >>> ids = kg.Input(shape=(5,), dtype="int32")
    >>> embed(embed(ids), reverse=True).shape
    (None, 5, 100)
    """

    _quantized_kind = "embedding"  # quantizable (a subclass is not, unless type_check=False)

    def __init__(self, input_dim, output_dim, tie_weights=True,
                 embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, reverse_dtype=None,
                 logit_soft_cap=None, **kwargs):
        super().__init__(input_dim, output_dim, embeddings_initializer=embeddings_initializer,
                         embeddings_regularizer=embeddings_regularizer,
                         embeddings_constraint=embeddings_constraint, mask_zero=mask_zero,
                         **kwargs)
        self.tie_weights = bool(tie_weights)
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = logit_soft_cap

    def build(self, input_shape=None):
        if self.built:
            return
        super().build(input_shape)
        if not self.tie_weights and self.quantization_mode is None:
            self.reverse_embeddings = self.add_weight(  # as Keras: no regularizer
                (self.output_dim, self.input_dim),
                resolve_initializer(self.embeddings_initializer), name="reverse_embeddings")

    def call(self, inputs, reverse=False):
        if not reverse:
            return super().call(inputs)
        if self.quantization_mode is not None:
            return quantized_reverse.call(self, inputs)
        kernel = self.embeddings.T if self.tie_weights else self.reverse_embeddings
        if self.reverse_dtype is not None:
            inputs, kernel = inputs.astype(self.reverse_dtype), kernel.astype(self.reverse_dtype)
        # as Keras (no autocast): half-precision vectors times the float32 kernel give
        # float32 logits
        logits = jnp.matmul(inputs, kernel)
        if self.logit_soft_cap is not None:
            logits = jnp.tanh(logits / self.logit_soft_cap) * self.logit_soft_cap
        return logits

    def compute_mask(self, inputs, mask=None):
        # Embedding ids give their mask (``mask_zero``); logits (float vectors in) none
        if jnp.issubdtype(inputs.dtype, jnp.floating):
            return None
        return super().compute_mask(inputs, mask)

    def compute_output_shape(self, input_shape, reverse=False):
        if reverse:
            return (*input_shape[:-1], self.input_dim)
        return super().compute_output_shape(input_shape)

    def compute_output_spec(self, inputs, reverse=False):
        if not reverse:
            dtype = self.compute_dtype
        elif self.quantization_mode is not None:
            dtype = quantized_reverse.output_dtype(self, inputs.dtype)
        else:
            dtype = self.reverse_dtype or jnp.result_type(inputs.dtype, self.dtype)
        return shape_inference.specs_from_shapes(
            self.compute_output_shape(tuple(inputs.shape), reverse), jnp.dtype(dtype), self)

    def _quantized_companion_names(self, mode):
        return quantized_reverse.file_names(self, mode)

    def _quantize_companions(self, mode, config):
        return quantized_reverse.quantized_values(self, mode, config)

    def _build_quantized_companions(self, mode, config):
        quantized_reverse.build(self, mode, config)

    def get_config(self):
        return {**super().get_config(), "tie_weights": self.tie_weights,
                "reverse_dtype": self.reverse_dtype, "logit_soft_cap": self.logit_soft_cap}
