"""The reversed projection of a quantized ``ReversibleEmbedding``, as Keras 3 computes it.

``quantize("int8")`` / ``quantize("int4")`` quantizes the embeddings as ``Embedding``'s
(``kgraph.layers.quantized_calls``); this module adds what the reversed call
(``layer(x, reverse=True)``) needs:

* tied weights: the logits use the quantized embeddings transposed and their scale
  (int4 sub-channel: dequantized by group with ``embeddings_zero`` and ``g_idx``);
* ``tie_weights=False``: ``reverse_embeddings`` ``(output_dim, input_dim)`` is quantized
  per column (int8; int4 packed two per byte along ``output_dim``) with
  ``reverse_embeddings_scale`` ``(input_dim,)``, or for int4 with a ``block_size`` per
  block of ``output_dim`` rows with a float ``reverse_embeddings_zero``;
* the inputs are quantized per row by the config's activation quantizer (Keras's default
  for a layer built from a quantized policy: ``AbsMaxQuantizer(axis=-1)``); None:
  weight-only. ``logit_soft_cap`` applies; ``reverse_dtype`` does not (as Keras).

>>> import kgraph as kg, numpy as np
>>> layer = kg.layers.ReversibleEmbedding(10, 4, tie_weights=False)
>>> layer.build()
>>> layer.quantize("int8")
>>> [(w.name, w.shape) for w in layer.weights]  # doctest: +NORMALIZE_WHITESPACE
[('embeddings', (10, 4)), ('embeddings_scale', (10,)), ('reverse_embeddings', (4, 10)),
 ('reverse_embeddings_scale', (10,))]
>>> layer(np.ones((2, 4), "float32"), reverse=True).shape
(2, 10)
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from kgraph.layers import quantized_calls as qc
from kgraph.quantizers.configs import QuantizationConfig, block_size_for_layer
from kgraph.quantizers.int4 import pack_int4, unpack_int4
from kgraph.quantizers.quantizers import (AbsMaxQuantizer, abs_max_quantize_grouped_with_zero_point,
                                          dequantize_with_sz_map)

__all__ = ["build", "call", "file_names", "output_dtype", "quantized_values"]


def _grouped(block_size) -> bool:
    return block_size is not None and block_size != -1


def file_names(layer, mode) -> list:
    """The reverse weights' names in Keras's file order (after the embeddings')."""
    if layer.tie_weights:
        return []
    return ["reverse_embeddings", "reverse_embeddings_scale"] + (
        ["reverse_embeddings_zero"] if mode == "int4" else [])


def build(layer, mode, config):
    """The inputs' quantizer and (untied) the quantized reverse weights of ``mode``."""
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
        config, AbsMaxQuantizer(axis=-1))
    if layer.tie_weights:
        return
    rows, columns = layer.output_dim, layer.input_dim
    scale_shape, block_size = (columns,), None
    if mode == "int4":
        rows = (rows + 1) // 2
        block_size = block_size_for_layer(layer, config)
        if _grouped(block_size):
            scale_shape = (math.ceil(layer.output_dim / block_size), columns)
    layer.reverse_embeddings = qc.frozen(layer, "reverse_embeddings", (rows, columns), "int8")
    layer.reverse_embeddings_scale = qc.frozen(layer, "reverse_embeddings_scale", scale_shape,
                                                initializer="ones")
    if _grouped(block_size):
        layer.reverse_embeddings_zero = qc.frozen(layer, "reverse_embeddings_zero",
                                                   scale_shape)


def _per_column(layer, config, reverse, default):
    """``(values, scale)`` of ``reverse`` by the config's weight quantizer (else
    ``default``), one scale per column (vocabulary entry)."""
    quantizer = QuantizationConfig.weight_quantizer_or_default(config, default)
    values, scale = quantizer(reverse, to_numpy=True)
    if scale.shape[0] != 1:
        raise ValueError(f'Layer "{layer.name}" (ReversibleEmbedding, tie_weights=False): '
                         "reverse_embeddings need one scale per column (a weight quantizer "
                         f"along axis 0); the config's weight quantizer gave scales of shape "
                         f"{tuple(scale.shape)} for reverse_embeddings of shape "
                         f"{tuple(reverse.shape)}.")
    return values, jnp.squeeze(scale, axis=0)


def quantized_values(layer, mode, config) -> dict:
    """The quantized values of the float ``reverse_embeddings`` (untied), by weight name;
    the float weight is removed (its quantized form is built next)."""
    if layer.tie_weights:
        return {}
    reverse = layer.reverse_embeddings
    zero = None
    if mode == "int8":
        values, scale = _per_column(layer, config, reverse, AbsMaxQuantizer(axis=0))
    else:
        block_size = getattr(config, "block_size", None)
        if _grouped(block_size):
            values, scale, zero = abs_max_quantize_grouped_with_zero_point(
                reverse, block_size=block_size, value_range=(-8, 7), dtype="int8",
                to_numpy=True)
        else:
            values, scale = _per_column(layer, config, reverse, AbsMaxQuantizer(
                axis=0, value_range=(-8, 7), output_dtype="int8"))
        values = pack_int4(values, axis=0)[0]
    delattr(layer, "reverse_embeddings")
    found = {"reverse_embeddings": values, "reverse_embeddings_scale": scale}
    if zero is not None:
        found["reverse_embeddings_zero"] = zero
    return found


def call(layer, inputs):
    """The logits ``inputs @ embeddings.T`` (or ``@ reverse_embeddings``) of the quantized
    layer, soft-capped by ``logit_soft_cap``."""
    mode = layer.quantization_mode
    compute = layer.compute_dtype
    if layer.tie_weights:
        kernel, scale = jnp.transpose(layer._embeddings), layer.embeddings_scale
        zero = getattr(layer, "embeddings_zero", None)
    else:
        kernel, scale = layer.reverse_embeddings, layer.reverse_embeddings_scale
        zero = getattr(layer, "reverse_embeddings_zero", None)
    if layer.inputs_quantizer:
        inputs, inputs_scale = layer.inputs_quantizer(inputs)
    else:
        inputs_scale = jnp.ones((1,), compute)
    block_size = layer._int4_block_size if mode == "int4" else None
    if mode == "int4":
        kernel = unpack_int4(kernel, layer.output_dim, axis=0)
    if _grouped(block_size):  # dequantized by group first (asymmetric)
        if layer.tie_weights:  # (input_dim, groups) -> (groups, input_dim)
            scale, zero = jnp.transpose(scale), jnp.transpose(zero)
        float_kernel = dequantize_with_sz_map(kernel.astype(compute), scale, zero, layer.g_idx,
                                              group_axis=0)
        logits = jnp.divide(jnp.matmul(inputs, float_kernel), inputs_scale)
    else:
        logits = qc.contract(layer, inputs, kernel).astype(compute)
        logits = jnp.divide(logits, jnp.multiply(inputs_scale, scale))
    if layer.logit_soft_cap is not None:
        logits = jnp.multiply(jnp.tanh(jnp.divide(logits, layer.logit_soft_cap)),
                              layer.logit_soft_cap)
    return logits


def output_dtype(layer, inputs_dtype):
    """The dtype of the logits ``call`` gives for vectors of ``inputs_dtype`` (it follows
    the scales' dtypes, not ``reverse_dtype``)."""
    vectors = jax.ShapeDtypeStruct((1, layer.output_dim), jnp.dtype(inputs_dtype))
    return jax.eval_shape(lambda x: call(layer, x), vectors).dtype
