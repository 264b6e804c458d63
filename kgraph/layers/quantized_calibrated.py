"""GPTQ and AWQ ``Dense`` / ``EinsumDense``: Keras's variables, kernel view and call.

``layer.quantize("gptq", config=GPTQConfig(...))`` (``"awq"``, ``AWQConfig``) creates
Keras's variables for the calibrated weights, as Keras's layer does before its
calibration runs: ``quantized_kernel`` (uint8, transposed to ``(columns, rows)``; at 4
bits two values a byte along the columns), ``kernel_scale`` and ``kernel_zero``
``(columns, groups)``, AWQ's ``awq_scales`` ``(rows,)`` and ``g_idx`` ``(rows,)``, where
rows are the kernel's input features and columns its outputs (an ``EinsumDense``'s 3-D
kernel split at its largest axis, as Keras). Until calibrated values are set
(``is_gptq_calibrated`` / ``is_awq_calibrated``, which loading a file sets) the layer
keeps computing with its float kernel; afterwards with the dequantized one,
``(q - zero) * scale`` per group of rows (AWQ: divided by ``awq_scales``). kgraph does
not run the calibration itself (``model.quantize("gptq")``); a layer quantized this way
loads a file that Keras calibrated.

>>> import kgraph as kg
>>> layer = kg.layers.Dense(6)
>>> layer.build((None, 4))
>>> layer.quantize("gptq", config=kg.quantizers.GPTQConfig(None, None, group_size=2))
>>> [(w.name, w.shape) for w in layer.weights][2:]  # doctest: +NORMALIZE_WHITESPACE
[('quantized_kernel', (3, 4)), ('kernel_scale', (6, 2)), ('kernel_zero', (6, 2)),
 ('g_idx', (4,))]
"""

from __future__ import annotations

import math

import jax.numpy as jnp

from kgraph.layers import quantized_einsum as qe
from kgraph.quantizers.configs import AWQConfig, GPTQConfig
from kgraph.quantizers.int4 import unpack_int4
from kgraph.quantizers.quantizers import dequantize_with_sz_map

__all__ = ["SPEC", "build", "call", "file_order", "group_size", "kernel_view", "weight_bits"]

# Keras's ``variable_serialization_spec`` of the two modes (attribute names)
SPEC = {"gptq": ["bias", "quantized_kernel", "kernel_scale", "kernel_zero", "g_idx"],
        "awq": ["bias", "quantized_kernel", "kernel_scale", "kernel_zero", "awq_scales",
                "g_idx"]}
_CONFIGS = {"gptq": GPTQConfig, "awq": AWQConfig}


def _setting(layer, config, name):
    mode = layer.quantization_mode if config is None else config.mode
    if isinstance(config, _CONFIGS.get(mode, ())):
        return getattr(config, name)
    policy = layer.dtype_policy
    if getattr(policy, "quantization_mode", None) in _CONFIGS:
        return getattr(policy, name)
    raise ValueError(f'Layer "{layer.name}": the {name} of {str(mode).upper()} quantization '
                     f"comes from a GPTQConfig / AWQConfig or a 'gptq/...' / 'awq/...' dtype "
                     f"policy; received config={config!r} and policy "
                     f"{getattr(policy, 'name', policy)!r}.")


def weight_bits(layer, config=None) -> int:
    """The bits of each weight: the config's, else the layer's policy's."""
    return _setting(layer, config, "weight_bits")


def group_size(layer, config=None) -> int:
    """The rows sharing a scale and zero (-1: all): the config's, else the policy's."""
    return _setting(layer, config, "group_size")


def _rows_columns(layer, shape):
    """Keras's split of the kernel into input rows and output columns."""
    if len(shape) == 2:
        return shape
    if len(shape) == 3:
        if shape.index(max(shape)) == 0:  # (in_features, heads, head_dim)
            return shape[0], shape[1] * shape[2]
        return shape[0] * shape[1], shape[2]  # (heads, head_dim, out_features)
    raise ValueError(f'Layer "{layer.name}": GPTQ and AWQ quantize 2-D or 3-D kernels, '
                     f"received a kernel of shape {tuple(shape)}.")


def build(layer, mode, shape, config):
    """Create the ``mode`` (``"gptq"`` or ``"awq"``) variables for a float kernel of
    ``shape`` (not calibrated yet)."""
    shape = tuple(shape)
    rows, columns = _rows_columns(layer, shape)
    bits = 4 if mode == "awq" else weight_bits(layer, config)
    size = group_size(layer, config)
    groups = 1 if size == -1 else math.ceil(rows / size)
    setattr(layer, f"is_{mode}_calibrated", False)
    einsum = type(layer)._quantized_kind == "einsum"
    if einsum:
        layer.original_kernel_shape = shape
        setattr(layer, f"{mode}_unpacked_column_size", columns)
        info = layer.__dict__.get("_quantization_info")
        if info is None:
            layer._quantization_info = qe.quantization_info(layer.equation,
                                                            layer.input_spec.ndim)
    else:
        layer.kernel_shape = shape
    # Keras names it "kernel"; while the float kernel (that name) is kept, it is
    # "quantized_kernel" (a layer's weight names are its params' keys)
    var_attrs = layer.__dict__.get("_var_attrs", {})
    floating = "kernel" in var_attrs or "_kernel" in var_attrs
    packed = (columns + 1) // 2 if bits == 4 else columns
    layer.quantized_kernel = layer.add_weight(
        (packed, rows), "zeros", dtype="uint8", trainable=False,
        name="quantized_kernel" if floating else "kernel")
    layer.kernel_scale = layer.add_weight((columns, groups), "ones", trainable=False,
                                          name="kernel_scale")
    layer.kernel_zero = layer.add_weight((columns, groups), "zeros", dtype="uint8",
                                         trainable=False,
                                         name="zero_point" if einsum else "kernel_zero")
    if mode == "awq":
        layer.awq_scales = layer.add_weight((rows,), "ones", trainable=False,
                                            name="awq_scales")
    layer.g_idx = layer.add_weight((rows,), "zeros", dtype="float32", trainable=False,
                                   name="g_idx")


def _columns(layer) -> int:
    if type(layer)._quantized_kind == "einsum":
        return getattr(layer, f"{layer.quantization_mode}_unpacked_column_size")
    return layer.units


def _calibrated(layer) -> bool:
    return bool(getattr(layer, f"is_{layer.quantization_mode}_calibrated", False))


def kernel_view(layer):
    """``layer.kernel`` as Keras's property: calibrated, the quantized values (unpacked,
    ``(columns, rows)``); else the float kernel (None if the layer has none)."""
    if not _calibrated(layer):
        return layer._kernel if "_kernel" in layer.__dict__["_var_attrs"] else None
    values = layer.quantized_kernel
    if layer.quantization_mode == "awq" or weight_bits(layer) == 4:
        return unpack_int4(values, _columns(layer), axis=0, dtype="uint8")
    return values


def _float_kernel(layer):
    """The kernel the calibrated values stand for, in the float kernel's shape."""
    values = kernel_view(layer)
    kernel = jnp.transpose(dequantize_with_sz_map(values, layer.kernel_scale,
                                                  layer.kernel_zero, layer.g_idx))
    if layer.quantization_mode == "awq":
        kernel = jnp.divide(kernel, jnp.expand_dims(layer.awq_scales, -1))
    if type(layer)._quantized_kind == "einsum":
        kernel = jnp.reshape(kernel, layer.original_kernel_shape)
    return kernel.astype(layer.compute_dtype)


def call(layer, inputs):
    """The forward pass (bias and activation included): with the float kernel until the
    layer is calibrated."""
    if _calibrated(layer):
        kernel = _float_kernel(layer)
    elif "_kernel" in layer.__dict__["_var_attrs"]:
        kernel = layer._kernel
    else:
        mode = layer.quantization_mode
        raise ValueError(f'Layer "{layer.name}" is {mode.upper()}-quantized but holds no '
                         f"calibrated values (is_{mode}_calibrated is False) and no float "
                         "kernel: load its weights from a file Keras calibrated.")
    if type(layer)._quantized_kind == "einsum":
        x = jnp.einsum(layer.equation, inputs, kernel)
        has_bias = layer._has_bias
    else:
        x = jnp.matmul(inputs, kernel)
        has_bias = layer.use_bias
    if has_bias:
        x = jnp.add(x, layer.bias)
    return x if layer.activation is None else layer.activation(x)


def file_order(layer, mode) -> list:
    """The layer's weights in Keras's file order for ``mode`` (the float kernel is not
    saved)."""
    var_attrs = layer.__dict__["_var_attrs"]
    return [var_attrs[name] for name in SPEC[mode] if name in var_attrs]
