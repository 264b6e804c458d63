"""LoRA on a quantized ``Dense``, ``EinsumDense`` or ``Embedding``: the float kernel an
int8 or int4 layer's values stand for, and the values of a float kernel requantized as
Keras's ``_get_kernel_with_merged_lora`` does when it saves a LoRA layer (the kernel with
the update merged, quantized again: int8 per output channel, int4 per channel or by
blocks of rows with zero points, packed two per byte).

>>> import kgraph as kg, numpy as np
>>> layer = kg.layers.Dense(4)
>>> _ = layer(np.ones((1, 3), "float32"))
>>> layer.quantize("int4")
>>> values, scale, zero = requantized(layer, dequantized(layer))
>>> values.shape, scale.shape, zero.shape
((3, 2), (1, 4), (1, 4))
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph.layers import quantized_einsum as qe
from kgraph.quantizers.int4 import pack_int4, unpack_int4
from kgraph.quantizers.quantizers import (abs_max_quantize,
                                          abs_max_quantize_grouped_with_zero_point,
                                          dequantize_with_sz_map)

__all__ = ["dequantized", "float_shape", "requantized"]


def _kind(layer) -> str:
    return type(layer)._quantized_kind


def _grouped(layer) -> bool:
    block_size = getattr(layer, "_int4_block_size", None)
    return block_size is not None and block_size != -1


def float_shape(layer) -> tuple:
    """The shape of the float kernel (embeddings) the quantized ``layer`` stands for."""
    kind = _kind(layer)
    if kind == "embedding":
        return (layer.input_dim, layer.output_dim)
    if layer.quantization_mode == "int4":
        if kind == "einsum":
            return tuple(layer.original_kernel_shape)
        return (layer._orig_input_dim, layer._orig_output_dim)
    weight = type(layer)._quantized_weight
    return tuple(layer.__dict__["_var_attrs"][f"_{weight}"].shape)


def dequantized(layer):
    """The float kernel (embeddings) of the int8 or int4 ``layer``, in its compute dtype
    and the float kernel's shape."""
    weight = type(layer)._quantized_weight
    values = getattr(layer, f"_{weight}")
    scale = getattr(layer, f"{weight}_scale")
    compute = layer.compute_dtype
    kind = _kind(layer)
    if layer.quantization_mode == "int8":
        if kind == "embedding":
            return values.astype(compute) / jnp.expand_dims(scale, -1)
        if kind == "einsum":
            scale = qe.adjust_scale_for_dequant(layer._quantization_info, scale)
        return values.astype(compute) / scale
    columns = layer._int4_unpacked_column_size if kind == "einsum" else layer._orig_output_dim
    unpacked = unpack_int4(values, columns, axis=-1)
    if kind == "embedding":
        if _grouped(layer):
            return dequantize_with_sz_map(unpacked.astype(compute), scale,
                                          layer.embeddings_zero, layer.g_idx, group_axis=-1)
        return unpacked.astype(compute) / jnp.expand_dims(scale, -1)
    if _grouped(layer):
        kernel = dequantize_with_sz_map(unpacked, scale, layer.kernel_zero, layer.g_idx,
                                        group_axis=0).astype(compute)
    else:
        kernel = unpacked.astype(compute) / scale
    if kind == "einsum":
        return jnp.reshape(kernel, layer.original_kernel_shape)
    return kernel


def requantized(layer, kernel):
    """``(values, scale, zero)`` of the float ``kernel`` quantized in the layer's mode and
    layout (``zero``: None unless int4 by blocks), as Keras requantizes a merged kernel."""
    kind = _kind(layer)
    if layer.quantization_mode == "int8":
        if kind == "einsum":
            values, scale = abs_max_quantize(kernel, axis=layer._quantization_info
                                             .kernel_reduced_axes, to_numpy=True)
            return values, qe.adjust_scale_for_quant(layer._quantization_info, scale,
                                                     "kernel"), None
        axis = -1 if kind == "embedding" else 0
        values, scale = abs_max_quantize(kernel, axis=axis, to_numpy=True)
        return values, jnp.squeeze(scale, axis=axis), None
    block_size = layer._int4_block_size
    if kind == "einsum":
        kernel = jnp.reshape(kernel, (layer._int4_rows, layer._int4_unpacked_column_size))
    zero = None
    if kind == "embedding" and _grouped(layer):
        values, scale, zero = abs_max_quantize_grouped_with_zero_point(
            jnp.transpose(kernel), block_size=block_size, value_range=(-8, 7), dtype="int8",
            to_numpy=True)
        values, scale, zero = jnp.transpose(values), jnp.transpose(scale), jnp.transpose(zero)
    elif _grouped(layer):
        values, scale, zero = abs_max_quantize_grouped_with_zero_point(
            kernel, block_size=block_size, to_numpy=True)
    else:
        axis = -1 if kind == "embedding" else 0
        values, scale = abs_max_quantize(kernel, axis=axis, value_range=(-8, 7), dtype="int8",
                                         to_numpy=True)
        scale = jnp.squeeze(scale, axis=axis)
    return pack_int4(values, axis=-1)[0], scale, zero
