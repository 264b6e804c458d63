"""Float8 ``Dense`` and ``EinsumDense`` (Keras's ``quantize("float8")``): delayed scaling.

The float kernel stays and trains. At each call the inputs and the kernel are quantized to
``float8_e4m3fn`` with their scales and dequantized again (the gradient passes straight
through), the contraction runs on those values, and its output's gradient is quantized to
``float8_e5m2`` with ``outputs_grad_scale`` on the way back. Training follows Keras's
delayed scaling: each scale becomes ``dtype_max / max(amax history)`` (kept where the
history is all zero) and each history rolls in this step's ``max|x|``, read before the
update, so a step computes with the scales of the previous ones.

The scales and histories are trainable weights marked ``overwrite_with_gradient``, as
Keras's (``state`` in compiled programs, whose optimizer never updates them): a training
step overwrites them with their gradient, as Keras's optimizer does: in a training call the gradient of each is its new
value (the inputs' and the kernel's computed in the forward pass, the output gradient's in
the backward pass), and the step writes it (``runtime.gradient_writes``; under
``gradient_accumulation_steps``, the largest of the batches' values, at update steps only).

>>> import kgraph as kg, numpy as np
>>> layer = kg.layers.Dense(2)
>>> _ = layer(np.ones((1, 3), "float32"))
>>> layer.quantize("float8")
>>> [w.name for w in layer.weights][2:4], layer.dtype_policy.amax_history_length
(['inputs_scale', 'inputs_amax_history'], 1024)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_dtypes

from kgraph.dtype_policies_quantized import QuantizedFloat8DTypePolicy
from kgraph.interpreter import context
from kgraph.quantizers.quantizers import (compute_float8_amax_history, compute_float8_scale,
                                          quantize_and_dequantize)

__all__ = ["build", "call"]

E4M3 = "float8_e4m3fn"
E5M2 = "float8_e5m2"
_E4M3_MAX = float(ml_dtypes.finfo(E4M3).max)
_E5M2_MAX = float(ml_dtypes.finfo(E5M2).max)
_PREFIXES = ("inputs", "kernel", "outputs_grad")


def build(layer):
    """The scales (float32 scalars, 1) and amax histories (float32, zeros; the policy's
    ``amax_history_length``) of the inputs, the kernel and the output gradient."""
    length = getattr(layer.dtype_policy, "amax_history_length",
                     QuantizedFloat8DTypePolicy.default_amax_history_length)
    for prefix in _PREFIXES:
        scale = layer.add_weight((), "ones", dtype="float32", autocast=False,
                                 overwrite_with_gradient=True, name=f"{prefix}_scale")
        history = layer.add_weight((length,), "zeros", dtype="float32", autocast=False,
                                   overwrite_with_gradient=True, name=f"{prefix}_amax_history")
        setattr(layer, f"{prefix}_scale", scale)
        setattr(layer, f"{prefix}_amax_history", history)


def _real_rows(x, rows):
    """``x`` with the rows that only pad a partial batch (``rows``: the context's sample
    mask, or None) zeroed: they count for no amax."""
    return x if rows is None else jnp.where(context.row_mask(rows, x), x, jnp.zeros_like(x))


def _training() -> bool:
    ctx = context.current()
    return bool(ctx is not None and ctx.options.training)


def _qdq_operand(x, scale, history, compute, rows=None):
    """``quantize_and_dequantize(x)`` to e4m3, whose gradient is the upstream one; in
    training the gradients of ``scale`` and ``history`` are their next values (the
    history with ``max|x|`` rolled in, over the rows ``rows`` marks real, if given), else
    their values."""
    training = _training()

    @jax.custom_gradient
    def run(x, scale, history):
        if training:
            new_scale = compute_float8_scale(jnp.max(history, axis=0), scale,
                                             jnp.float32(_E4M3_MAX))
            new_history = compute_float8_amax_history(_real_rows(x, rows), history)
        else:
            new_scale, new_history = scale, history
        return (quantize_and_dequantize(x, scale, E4M3, compute),
                lambda upstream: (upstream, new_scale, new_history))

    return run(x, scale, history)


def _qdq_gradient(x, scale, history, compute):
    """``x``, whose gradient is quantized to e5m2 with ``scale`` and dequantized; the
    gradients of ``scale`` and ``history`` are their next values (the history with the
    output gradient's ``max|x|`` over the batch's real rows rolled in)."""
    rows = context.sample_mask_for(x)

    @jax.custom_gradient
    def run(x, scale, history):
        def backward(upstream):
            return (quantize_and_dequantize(upstream, scale, E5M2, compute),
                    compute_float8_scale(jnp.max(history, axis=0), scale,
                                         jnp.float32(_E5M2_MAX)),
                    compute_float8_amax_history(_real_rows(upstream, rows), history))

        return x, backward

    return run(x, scale, history)


def call(layer, inputs):
    """The float8 forward pass (bias and activation included)."""
    if getattr(layer, "lora_enabled", False):
        raise NotImplementedError(f'Layer "{layer.name}" is quantized to float8 and has LoRA '
                                  "enabled: the float8 call does not support LoRA (as "
                                  "Keras's); quantize it to int8 or int4 instead.")
    compute = layer.compute_dtype
    scales = {p: getattr(layer, f"{p}_scale") for p in _PREFIXES}
    histories = {p: getattr(layer, f"{p}_amax_history") for p in _PREFIXES}
    x = _qdq_operand(inputs, scales["inputs"], histories["inputs"], compute,
                     context.sample_mask_for(inputs))
    k = _qdq_operand(layer.kernel, scales["kernel"], histories["kernel"], compute)
    if type(layer)._quantized_kind == "einsum":
        x = jnp.einsum(layer.equation, x, k)
    else:
        x = jnp.matmul(x, k)
    x = _qdq_gradient(x, scales["outputs_grad"], histories["outputs_grad"], compute)
    if layer.use_bias if type(layer)._quantized_kind == "dense" else layer._has_bias:
        bias = layer.bias
        if layer.dtype_policy.compute_dtype == jnp.float32:  # as Keras: through bfloat16
            bias = bias.astype(jnp.bfloat16).astype(bias.dtype)
        x = jnp.add(x, bias)
    return layer.activation(x)
