"""The quantized variables and calls of ``Dense``, ``EinsumDense`` and ``Embedding`` (see
``kgraph.layers.quantized``): what ``quantize`` computes and creates, what ``build``
creates for a layer whose policy is already quantized (a loaded config), and the forward
pass of each mode, with Keras's variables, numbers and custom gradients.

>>> import kgraph as kg, numpy as np
>>> layer = kg.layers.Embedding(10, 4)
>>> _ = layer(np.arange(3))
>>> layer.quantize("int4", config=kg.quantizers.Int4QuantizationConfig(block_size=2))
>>> [(w.name, w.shape) for w in layer.weights]  # doctest: +NORMALIZE_WHITESPACE
[('embeddings', (10, 2)), ('embeddings_scale', (10, 2)), ('embeddings_zero', (10, 2)),
 ('g_idx', (4,))]
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from kgraph import dtype_policy
from kgraph.interpreter import checks
from kgraph.layers import quantized_calibrated as qc
from kgraph.layers import quantized_einsum as qe
from kgraph.layers import quantized_float8
from kgraph.layers import weight_args as wa
from kgraph.quantizers.configs import QuantizationConfig, block_size_for_layer
from kgraph.quantizers.int4 import pack_int4, unpack_int4
from kgraph.quantizers.quantizers import (AbsMaxQuantizer, abs_max_quantize,
                                          abs_max_quantize_grouped_with_zero_point,
                                          dequantize_with_sz_map)

__all__ = ["build", "build_quantized", "calibration_not_offered", "call", "contract",
           "file_order", "frozen", "kernel_view", "quantize"]

# Keras's ``variable_serialization_spec``: a quantized layer's weights in file order
_KERNEL_SPEC = {"int8": ["kernel", "bias", "kernel_scale"],
                "int4": ["kernel", "bias", "kernel_scale", "kernel_zero", "g_idx"],
                "float8": ["kernel", "bias", "inputs_scale", "inputs_amax_history",
                           "kernel_scale", "kernel_amax_history", "outputs_grad_scale",
                           "outputs_grad_amax_history"]}
_EMBEDDING_SPEC = {"int8": ["embeddings", "embeddings_scale"],
                   "int4": ["embeddings", "embeddings_scale", "embeddings_zero", "g_idx"]}


def _kind(layer) -> str:
    return type(layer)._quantized_kind


def _mode_error(layer, mode):
    modes = ("int8", "int4") if _kind(layer) == "embedding" else (
        "int8", "float8", "int4", "gptq", "awq")
    return NotImplementedError(f"Invalid quantization mode. Expected one of {modes}. "
                               f"Received: quantization_mode={mode}")


def calibration_not_offered(layer, mode):
    """The error of calibrating ``layer`` (a model) by GPTQ or AWQ (``mode``), which kgraph
    does not run."""
    return NotImplementedError(f'Layer "{layer.name}": {mode.upper()} calibration is not '
                               f"offered by kgraph (a layer's `quantize('{mode}')` creates the "
                               "quantized variables, which load a file Keras calibrated); use "
                               "'int8', 'int4' or 'float8', or quantize the model with Keras "
                               "and load its file.")


def _check_mode(layer, mode):
    if mode not in (("int8", "int4") if _kind(layer) == "embedding" else
                    ("int8", "int4", "float8", "gptq", "awq")):
        raise _mode_error(layer, mode)


def file_order(layer, mode) -> list:
    """The layer's own weights in Keras's file order for ``mode``."""
    if mode in qc.SPEC and _kind(layer) != "embedding":
        return qc.file_order(layer, mode)
    spec = (_EMBEDDING_SPEC if _kind(layer) == "embedding" else _KERNEL_SPEC).get(mode)
    if spec is None:
        raise _mode_error(layer, mode)
    spec = spec + layer._quantized_companion_names(mode)
    by_name = {v.name: v for v in layer._own_variables}
    return [by_name[name] for name in spec if name in by_name]


def _info(layer):
    """An ``EinsumDense``'s quantization layout (computed once)."""
    info = layer.__dict__.get("_quantization_info")
    if info is None:
        info = qe.quantization_info(layer.equation, layer.input_spec.ndim)
        layer._quantization_info = info
    return info


def _group_indices(count, block_size):
    def initializer(shape, dtype=None):
        return jnp.floor_divide(jnp.arange(count, dtype=dtype), block_size)

    return initializer


def frozen(layer, name, shape, dtype=None, initializer="zeros"):
    """A non-trainable weight of ``layer`` (dtype: the layer's variable dtype)."""
    return layer.add_weight(tuple(shape), initializer, dtype=dtype, trainable=False, name=name)


# ----------------------------------------------------------------------------- build
def _build_int8(layer, shape, config):
    kind = _kind(layer)
    if kind == "embedding":
        layer._embeddings = frozen(layer, "embeddings", shape, "int8")
        layer.embeddings_scale = frozen(layer, "embeddings_scale", (layer.input_dim,),
                                        initializer="ones")
        return
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
        config, AbsMaxQuantizer())
    if kind == "einsum":
        info = _info(layer)
        layer.quantization_axis = tuple(info.input_reduced_axes)
        scale_shape = qe.kernel_scale_shape(info, shape)
    else:
        scale_shape = (layer.units,)
    layer._kernel = frozen(layer, "kernel", shape, "int8")
    layer.kernel_scale = frozen(layer, "kernel_scale", scale_shape, initializer="ones")


def _build_int4(layer, shape, config):
    kind = _kind(layer)
    block_size = block_size_for_layer(layer, config)
    grouped = block_size is not None and block_size > 0
    if kind == "embedding":
        rows, columns = shape
        layer._int4_block_size = block_size
        layer._embeddings = frozen(layer, "embeddings", (rows, (columns + 1) // 2), "int8")
        scale_shape = (rows, math.ceil(columns / block_size)) if grouped else (rows,)
        layer.embeddings_scale = frozen(layer, "embeddings_scale", scale_shape,
                                        initializer="ones")
        if grouped:
            layer.embeddings_zero = frozen(layer, "embeddings_zero", scale_shape, "int8")
            layer.g_idx = frozen(layer, "g_idx", (columns,), "float32",
                                 _group_indices(columns, block_size))
        layer._orig_output_dim = columns
        return
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(config, None)
    if kind == "einsum":
        info = _info(layer)
        layer.quantization_axis = tuple(info.input_reduced_axes)
        layer.original_kernel_shape = tuple(shape)
        rows = math.prod(d for i, d in enumerate(shape) if i in info.kernel_reduced_axes)
        columns = math.prod(d for i, d in enumerate(shape) if i not in info.kernel_reduced_axes)
        grouped = block_size is not None and block_size != -1
        layer._int4_block_size = block_size if grouped else None
        layer._int4_unpacked_column_size, layer._int4_rows = columns, rows
    else:
        rows, columns = shape
        layer._int4_block_size = block_size
        layer._orig_input_dim, layer._orig_output_dim = rows, columns
    layer._kernel = frozen(layer, "kernel", (rows, (columns + 1) // 2), "int8")
    scale_shape = (math.ceil(rows / block_size), columns) if grouped else (columns,)
    layer.kernel_scale = frozen(layer, "kernel_scale", scale_shape, initializer="ones")
    if grouped:
        layer.kernel_zero = frozen(layer, "kernel_zero", scale_shape, "int8")
        layer.g_idx = frozen(layer, "g_idx", (rows,), "float32",
                             _group_indices(rows, block_size))


def build_quantized(layer, mode, shape, config):
    """The quantized variables of ``mode`` on ``layer`` for a float kernel of ``shape``."""
    _check_mode(layer, mode)
    if mode == "int8":
        _build_int8(layer, shape, config)
    elif mode == "int4":
        _build_int4(layer, shape, config)
    elif mode == "float8":
        quantized_float8.build(layer)
    else:
        qc.build(layer, mode, shape, config)
    layer._build_quantized_companions(mode, config)
    layer._is_quantized = True


def build(layer, shape, bias_shape=None, kernel_initializer=None, bias_initializer=None):
    """Build ``layer`` (whose policy is quantized) with Keras's variables for a float
    kernel of ``shape``: those of the mode, and the float ones it keeps, so that
    ``layer.weights`` lists them in Keras's order."""
    mode = layer.quantization_mode
    _check_mode(layer, mode)
    if mode == "float8":
        build_quantized(layer, mode, shape, layer.quantization_config)
        layer.kernel = wa.add_weight(layer, "kernel", tuple(shape), kernel_initializer)
    if bias_shape is not None:
        layer.bias = wa.add_weight(layer, "bias", tuple(bias_shape), bias_initializer)
    if mode != "float8":
        build_quantized(layer, mode, shape, layer.quantization_config)


# -------------------------------------------------------------------------- quantize
def _quantized_values(layer, mode, config, kernel):
    """``(values, scale, zero)`` of the float ``kernel`` for ``mode`` (zero: None unless
    sub-channel int4), as Keras's ``quantize`` computes them (on the host)."""
    kind = _kind(layer)
    if mode == "int8":
        if kind == "embedding":
            axis = -1
        elif kind == "einsum":
            axis = _info(layer).kernel_reduced_axes
        else:
            axis = 0
        quantizer = QuantizationConfig.weight_quantizer_or_default(config,
                                                                   AbsMaxQuantizer(axis=axis))
        values, scale = quantizer(kernel, to_numpy=True)
        if kind == "einsum":
            return values, qe.adjust_scale_for_quant(_info(layer), scale, "kernel"), None
        return values, jnp.squeeze(scale, axis=axis), None
    block_size = getattr(config, "block_size", None)
    if block_size is not None and block_size != -1:  # sub-channel: asymmetric
        if kind == "embedding":
            values, scale, zero = abs_max_quantize_grouped_with_zero_point(
                jnp.transpose(kernel), block_size=block_size, value_range=(-8, 7),
                dtype="int8", to_numpy=True)
            values, scale, zero = (jnp.transpose(values), jnp.transpose(scale),
                                   jnp.transpose(zero))
        else:
            if kind == "einsum":
                kernel = jnp.reshape(kernel, (layer._int4_rows, layer._int4_unpacked_column_size))
            values, scale, zero = abs_max_quantize_grouped_with_zero_point(
                kernel, block_size=block_size, to_numpy=True)
        return pack_int4(values, axis=-1)[0], scale, zero
    if kind == "einsum":  # Keras's EinsumDense ignores the config's weight quantizer here
        values, scale = abs_max_quantize(
            jnp.reshape(kernel, (layer._int4_rows, layer._int4_unpacked_column_size)), axis=0,
            value_range=(-8, 7), dtype="int8", to_numpy=True)
        axis = 0
    else:
        axis = -1 if kind == "embedding" else 0
        quantizer = QuantizationConfig.weight_quantizer_or_default(
            config, AbsMaxQuantizer(axis=axis, value_range=(-8, 7), output_dtype="int8"))
        values, scale = quantizer(kernel, to_numpy=True)
    return pack_int4(values, axis=-1)[0], jnp.squeeze(scale, axis=axis), None


def _einsum_int4_shape(layer, shape):
    info = _info(layer)
    layer._int4_rows = math.prod(d for i, d in enumerate(shape) if i in info.kernel_reduced_axes)
    layer._int4_unpacked_column_size = math.prod(
        d for i, d in enumerate(shape) if i not in info.kernel_reduced_axes)


def quantize(layer, mode, config):
    """Quantize the built float ``layer`` in place (``layer.quantize``'s work)."""
    _check_mode(layer, mode)
    layer.quantization_config = config
    weight = type(layer)._quantized_weight
    # the stored float value (under LoRA, the frozen one: the factors stay as they are)
    stored = f"_{weight}" if getattr(layer, "lora_enabled", False) else weight
    if mode in ("int8", "int4"):
        kernel = getattr(layer, stored)
        shape = tuple(kernel.shape)
        if _kind(layer) == "einsum":
            _info(layer)
            if mode == "int4":
                _einsum_int4_shape(layer, shape)
        values, scale, zero = _quantized_values(layer, mode, config, kernel)
        companions = layer._quantize_companions(mode, config)
        delattr(layer, stored)
        build_quantized(layer, mode, shape, config)
        variables = layer.__dict__["_var_attrs"]
        variables[f"_{weight}"].assign(values)
        variables[f"{weight}_scale"].assign(scale)
        if zero is not None:
            variables[f"{weight}_zero"].assign(zero)
        for name, value in companions.items():
            variables[name].assign(value)
    elif mode == "float8":
        build_quantized(layer, mode, None, config)
    else:  # GPTQ / AWQ: the float kernel stays (as ``_kernel``) until calibrated
        variable = layer.__dict__["_var_attrs"][stored]
        shape = tuple(variable.shape)
        if stored == weight:
            layer._kernel = variable
            delattr(layer, weight)
        build_quantized(layer, mode, shape, config)
    if layer.dtype_policy.quantization_mode is None:
        name = mode
        if mode in qc.SPEC:
            name = config.dtype_policy_string()
        elif mode == "int4":
            block_size = block_size_for_layer(layer, config)
            name = f"int4/{-1 if block_size is None else block_size}"
        source = getattr(layer.dtype_policy, "default_policy", layer.dtype_policy).name
        layer.dtype_policy = dtype_policy.get(f"{name}_from_{source}")


# ---------------------------------------------------------------------------- reading
def kernel_view(layer):
    """``layer.kernel`` (``embeddings``) of a quantized layer, as Keras's property: the
    int8 values, int4 ones unpacked (an ``EinsumDense``'s in the kernel's shape)."""
    if layer.quantization_mode in qc.SPEC:
        return qc.kernel_view(layer)
    weight = type(layer)._quantized_weight
    packed = getattr(layer, f"_{weight}")
    if layer.quantization_mode != "int4":
        return packed
    if _kind(layer) == "einsum":
        unpacked = unpack_int4(packed, layer._int4_unpacked_column_size, axis=-1)
        return jnp.reshape(unpacked, layer.original_kernel_shape)
    return unpack_int4(packed, layer._orig_output_dim, axis=-1)


# ------------------------------------------------------------------------------- calls
def contract(layer, a, b):
    """Keras's JAX matmul / einsum: int8 operands accumulate in int32."""
    preferred = "int32" if (a.dtype == jnp.int8 and b.dtype == jnp.int8) else None
    if _kind(layer) == "einsum":
        return jnp.einsum(layer.equation, a, b, preferred_element_type=preferred)
    return jnp.matmul(a, b, preferred_element_type=preferred)


def _input_gradient(layer, upstream, float_kernel):
    if _kind(layer) == "einsum":
        return jnp.einsum(_info(layer).gradient_equation, upstream, float_kernel)
    return jnp.matmul(upstream, jnp.transpose(float_kernel))


def _int8_output(layer, inputs):
    compute = layer.compute_dtype
    quantizer = layer.inputs_quantizer
    einsum = _kind(layer) == "einsum"
    info = _info(layer) if einsum else None

    @jax.custom_gradient
    def run(inputs, kernel, kernel_scale):
        def grad(upstream):
            float_kernel = _dequantized_int8(layer, kernel, kernel_scale, compute)
            return _input_gradient(layer, upstream, float_kernel), None, None

        output_scale = kernel_scale
        if quantizer:
            axis = layer.quantization_axis if einsum else -1
            inputs, inputs_scale = quantizer(inputs, axis=axis)
            if einsum:
                inputs_scale = qe.adjust_scale_for_quant(info, inputs_scale, "input")
                output_scale = jnp.multiply(inputs_scale, kernel_scale)
            else:
                output_scale = jnp.multiply(output_scale, inputs_scale)
        x = contract(layer, inputs, kernel)
        return jnp.divide(x.astype(compute), output_scale), grad

    return run(inputs, layer._kernel, layer.kernel_scale)


def _int4_output(layer, inputs):
    compute = layer.compute_dtype
    einsum = _kind(layer) == "einsum"
    block_size = layer._int4_block_size
    columns = layer._int4_unpacked_column_size if einsum else layer._orig_output_dim

    def shaped(float_kernel):
        return jnp.reshape(float_kernel, layer.original_kernel_shape) if einsum else float_kernel

    if block_size is None or block_size == -1:
        quantizer = layer.inputs_quantizer

        @jax.custom_gradient
        def per_channel(inputs, kernel, kernel_scale):
            unpacked = unpack_int4(kernel, columns, axis=-1)

            def dequantized():
                return shaped(jnp.divide(unpacked.astype(compute), kernel_scale))

            def grad(upstream):
                return _input_gradient(layer, upstream, dequantized()), None, None

            if einsum:
                if quantizer:
                    quantized, inputs_scale = quantizer(inputs, axis=layer.quantization_axis)
                    inputs_scale = qe.adjust_scale_for_quant(_info(layer), inputs_scale,
                                                             "input")
                    x = contract(layer, quantized, dequantized()).astype(compute)
                    return jnp.divide(x, inputs_scale), grad
                return contract(layer, inputs, dequantized()), grad
            output_scale = kernel_scale
            if quantizer:
                inputs, inputs_scale = quantizer(inputs, axis=-1)
                output_scale = jnp.multiply(output_scale, inputs_scale)
            x = contract(layer, inputs, unpacked)
            return jnp.divide(x.astype(compute), output_scale), grad

        return per_channel(inputs, layer._kernel, layer.kernel_scale)

    @jax.custom_gradient
    def sub_channel(inputs, kernel, kernel_scale, kernel_zero, g_idx):
        unpacked = unpack_int4(kernel, columns, axis=-1)
        float_kernel = shaped(dequantize_with_sz_map(unpacked, kernel_scale, kernel_zero, g_idx,
                                                     group_axis=0).astype(compute))

        def grad(upstream):
            return _input_gradient(layer, upstream, float_kernel), None, None, None, None

        return contract(layer, inputs, float_kernel), grad

    return sub_channel(inputs, layer._kernel, layer.kernel_scale, layer.kernel_zero,
                       layer.g_idx)


def _embedding_output(layer, inputs):
    if inputs.dtype not in (jnp.int32, jnp.int64):
        inputs = inputs.astype(jnp.int32)
    checks.check_index_range(layer, inputs, layer.input_dim)
    compute = layer.compute_dtype
    scale = jnp.take(layer.embeddings_scale, inputs, axis=0)
    if layer.quantization_mode == "int8":
        outputs = jnp.take(layer._embeddings, inputs, axis=0)
        return jnp.divide(outputs.astype(compute), jnp.expand_dims(scale, -1))
    unpacked = unpack_int4(layer._embeddings, layer._orig_output_dim, axis=-1)
    outputs = jnp.take(unpacked, inputs, axis=0)
    block_size = layer._int4_block_size
    if block_size is None or block_size == -1:
        return jnp.divide(outputs.astype(compute), jnp.expand_dims(scale, -1))
    zero = jnp.take(layer.embeddings_zero, inputs, axis=0)
    return dequantize_with_sz_map(outputs.astype(compute), scale, zero, layer.g_idx,
                                  group_axis=-1)


def call(layer, inputs):
    """The forward pass of the quantized ``layer`` (bias and activation included), with
    its LoRA update (int8, as Keras's QLoRA) added before the bias."""
    mode = layer.quantization_mode
    _check_mode(layer, mode)
    if _kind(layer) == "embedding":
        outputs = _embedding_output(layer, inputs)
        if getattr(layer, "lora_enabled", False):
            outputs = (outputs + _lora_update(layer, inputs)).astype(layer.compute_dtype)
        return outputs
    if mode == "float8":
        return quantized_float8.call(layer, inputs)
    if mode in qc.SPEC:
        return qc.call(layer, inputs)
    x = _int8_output(layer, inputs) if mode == "int8" else _int4_output(layer, inputs)
    if getattr(layer, "lora_enabled", False):
        x = x + _lora_update(layer, inputs)
    if _has_bias(layer):
        x = jnp.add(x, layer.bias)
    return layer.activation(x)


def _lora_update(layer, inputs):
    """``alpha / rank`` times the inputs through the two LoRA factors (Keras's order: the
    first factor contracted as the kernel is, then the second)."""
    factor_a, factor_b = map(layer._read_weight, layer._lora_factors())
    kind = _kind(layer)
    if kind == "embedding":
        low = jnp.take(factor_a, inputs.astype(jnp.int32), axis=0)
    elif kind == "einsum":
        low = jnp.einsum(layer.equation, inputs, factor_a)
    else:
        low = jnp.matmul(inputs, factor_a)
    return (layer.lora_alpha / layer.lora_rank) * jnp.matmul(low, factor_b)


def _dequantized_int8(layer, values, scale, dtype):
    """int8 ``values`` over their ``scale`` (per output channel; per row of embeddings)."""
    kind = _kind(layer)
    if kind == "embedding":
        return values.astype(dtype) / jnp.expand_dims(scale, -1)
    if kind == "einsum":
        scale = qe.adjust_scale_for_dequant(_info(layer), scale)
    return values.astype(dtype) / scale


def _has_bias(layer) -> bool:
    return layer.use_bias if _kind(layer) == "dense" else layer._has_bias
