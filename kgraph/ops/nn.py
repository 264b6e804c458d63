"""Neural-network ops (``keras.ops.nn`` names and arguments): activations, convolution,
moments, normalization and cross-entropies. Re-exported by ``kgraph.ops``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph import config
from kgraph.ops import shape_rules
from kgraph.ops.registry import register_op, static_axis as _axis


# ---------------------------------------------------------------------- convolution
def _spatial(value, n, name):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) != n:
        raise ValueError(f"ops.conv: `{name}` must be an int or a tuple of {n} ints, "
                         f"received {value}.")
    return value


def _conv_setup(inputs, strides, padding, data_format, dilation_rate):
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"`data_format` must be 'channels_last' or 'channels_first', "
                         f"received {data_format!r}.")
    if str(padding).lower() not in ("valid", "same"):
        raise ValueError(f"`padding` must be 'valid' or 'same', received {padding!r}.")
    n = inputs.ndim - 2
    if n < 1:
        raise ValueError(f"Convolution inputs need rank >= 3 (batch, spatial..., channels), "
                         f"received shape {inputs.shape}.")
    spatial = tuple(range(1, n + 1)) if data_format == "channels_last" else tuple(range(2, n + 2))
    lhs = (0, n + 1) + spatial if data_format == "channels_last" else (0, 1) + spatial
    numbers = jax.lax.ConvDimensionNumbers(lhs_spec=lhs, rhs_spec=(n + 1, n) + tuple(range(n)),
                                           out_spec=lhs)
    channels = inputs.shape[-1] if data_format == "channels_last" else inputs.shape[1]
    return (numbers, _spatial(strides, n, "strides"), _spatial(dilation_rate, n, "dilation_rate"),
            str(padding).upper(), channels)


@register_op("conv", tensors=2, spec=shape_rules.conv_channels_spec("conv", -2, grouped=True))
def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """N-D convolution as ``keras.ops.conv``: kernel ``(*spatial, in_channels / groups,
    out_channels)``; ``jax.lax.conv_general_dilated`` underneath."""
    numbers, strides, dilation, padding, channels = _conv_setup(
        inputs, strides, padding, data_format, dilation_rate)
    kernel_in = kernel.shape[-2]
    if channels % kernel_in:
        raise ValueError("The number of input channels must match the kernel's input channels "
                         f"(or be a multiple of them). Received: input channels={channels}, "
                         f"kernel input channels={kernel_in}.")
    return jax.lax.conv_general_dilated(inputs, kernel.astype(inputs.dtype), strides, padding,
                                        rhs_dilation=dilation, dimension_numbers=numbers,
                                        feature_group_count=channels // kernel_in)


@register_op("depthwise_conv", tensors=2,
             spec=shape_rules.conv_channels_spec("depthwise_conv", -2))
def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    """Depthwise convolution: kernel ``(*spatial, in_channels, depth_multiplier)``."""
    numbers, strides, dilation, padding, channels = _conv_setup(
        inputs, strides, padding, data_format, dilation_rate)
    kernel = jnp.reshape(kernel, kernel.shape[:-2] + (1, kernel.shape[-2] * kernel.shape[-1]))
    return jax.lax.conv_general_dilated(inputs, kernel.astype(inputs.dtype), strides, padding,
                                        rhs_dilation=dilation, dimension_numbers=numbers,
                                        feature_group_count=channels)


# ---------------------------------------------------------------------- statistics
@register_op("moments")
def moments(x, axes, keepdims=False, synchronized=False):
    """``(mean, variance)`` over ``axes``; half precision is computed in float32 (Keras)."""
    if synchronized:
        raise NotImplementedError("ops.moments: synchronized=True is not supported.")
    x = jnp.asarray(x)
    axes = _axis(axes)
    half = x.dtype in (jnp.float16, jnp.bfloat16)
    xf = x.astype(jnp.float32) if half else x
    mean = jnp.mean(xf, axis=axes, keepdims=keepdims)
    variance = jnp.var(xf, axis=axes, keepdims=keepdims)
    if half:
        limit = float(jnp.finfo(jnp.float16).max)
        mean = jnp.clip(mean, -limit, limit).astype(x.dtype)
        variance = jnp.clip(variance, -limit, limit).astype(x.dtype)
    return mean, variance


@register_op("normalize")
def normalize(x, axis=-1, order=2, epsilon=None):
    """``x / max(norm(x), epsilon)`` along ``axis`` (Keras's formula, epsilon 1e-7)."""
    if not isinstance(order, int) or order < 1:
        raise ValueError(f"Argument `order` must be an int >= 1. Received: order={order}")
    x = jnp.asarray(x)
    if x.ndim == 0:
        x = jnp.expand_dims(x, 0)
    epsilon = config.epsilon() if epsilon is None else epsilon
    axis = _axis(axis)
    if order == 2:
        inv = jax.lax.rsqrt(jnp.sum(jnp.square(x), axis=axis, keepdims=True))
        return x * jnp.minimum(inv, 1.0 / epsilon)
    norm = jnp.linalg.norm(x, ord=order, axis=axis, keepdims=True)
    return x / jnp.maximum(norm, epsilon)


# ---------------------------------------------------------------------- losses
# The crossentropy arithmetic lives here once; runtime's losses add Keras's loss options
# (label smoothing, ignore_class, rank alignment) around these functions.
def _log_probabilities(output, from_logits=False, axis=-1):
    """Log class probabilities along ``axis``: ``log_softmax`` of logits, or (Keras's
    formula) probabilities renormalised to sum to 1 and clipped to ``[eps, 1 - eps]``."""
    if from_logits:
        return jax.nn.log_softmax(output, axis=axis)
    output = output / jnp.sum(output, axis, keepdims=True)
    return jnp.log(jnp.clip(output, config.epsilon(), 1.0 - config.epsilon()))


def _label_crossentropy(labels, output, from_logits=False, axis=-1):
    """``-log p[label]`` along ``axis`` for integer ``labels`` of ``output``'s shape without
    ``axis`` (no shape checks; the value of Keras's one-hot sum, without its 0 * inf).

    The label's entry is selected by comparing with the class index, not gathered: the
    gradient is then a select that fuses with the softmax's, where a gather's would be a
    scatter into a zeroed buffer of the logits' size. A label outside ``[-classes, classes)``
    gives NaN (a negative one counts from the end, as indexing does)."""
    log_prob = _log_probabilities(output, from_logits, axis)
    classes = log_prob.shape[axis]
    labels = jnp.expand_dims(labels, axis)
    chosen = jnp.where(labels < 0, labels + classes, labels) == jax.lax.broadcasted_iota(
        labels.dtype, log_prob.shape, axis)
    picked = jnp.sum(jnp.where(chosen, log_prob, 0.0), axis=axis)
    outside = jnp.squeeze((labels < -classes) | (labels >= classes), axis)
    return -jnp.where(outside, jnp.nan, picked)


@register_op("sparse_categorical_crossentropy", tensors=2)
def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Per-sample cross-entropy of integer ``target`` and probabilities/logits ``output``
    whose classes lie along ``axis`` (anywhere, as Keras's symbolic op and Keras on PyTorch;
    Keras on JAX takes the last only)."""
    target = jnp.asarray(target).astype(jnp.int32)
    output = jnp.asarray(output)
    if output.ndim < 1:
        raise ValueError(f"Argument `output` must be at least rank 1. Received: "
                         f"output.shape={output.shape}")
    if not -output.ndim <= axis < output.ndim:
        raise ValueError(f"ops.sparse_categorical_crossentropy: `axis` must be in "
                         f"[-{output.ndim}, {output.ndim}) for `output` of shape "
                         f"{output.shape}; received axis={axis}.")
    axis %= output.ndim
    if target.ndim == output.ndim and target.shape[-1] == 1:
        target = jnp.squeeze(target, axis=-1)
    if target.shape != output.shape[:axis] + output.shape[axis + 1:]:
        raise ValueError("Arguments `target` and `output` must have the same shape up until "
                         f"the last dimension: target.shape={target.shape}, "
                         f"output.shape={output.shape}")
    return _label_crossentropy(target, output, from_logits, axis)


@register_op("categorical_crossentropy", tensors=2)
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Per-sample cross-entropy of one-hot (or soft) ``target`` along ``axis``."""
    return -jnp.sum(target * _log_probabilities(jnp.asarray(output), from_logits, axis),
                    axis=axis)


@register_op("binary_crossentropy", tensors=2, elementwise=True)
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise cross-entropy of 0/1 ``target`` and probabilities (or logits)."""
    if from_logits:
        return (-target * jax.nn.log_sigmoid(output)
                - (1.0 - target) * jax.nn.log_sigmoid(-output))
    output = jnp.clip(output, config.epsilon(), 1.0 - config.epsilon())
    return -(target * jnp.log(output) + (1.0 - target) * jnp.log(1.0 - output))


@register_op("separable_conv", tensors=3,
             spec=shape_rules.conv_channels_spec("separable_conv", -2))
def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid",
                   data_format=None, dilation_rate=1):
    """A depthwise convolution followed by a 1x1 convolution."""
    depthwise = depthwise_conv(inputs, depthwise_kernel, strides, padding, data_format,
                               dilation_rate)
    return conv(depthwise, pointwise_kernel, 1, "valid", data_format, 1)


__all__ = sorted([
    "conv", "depthwise_conv",
    "separable_conv",
    "moments", "normalize", "sparse_categorical_crossentropy", "categorical_crossentropy",
    "binary_crossentropy"])


from kgraph.ops import nn_activations as _activations  # noqa: E402
from kgraph.ops import nn_attention as _attention, nn_ctc as _ctc  # noqa: E402
from kgraph.ops import nn_extra as _extra, nn_windows as _windows  # noqa: E402
from kgraph.ops.nn_activations import *  # noqa: E402,F401,F403 - the activation ops
from kgraph.ops.nn_attention import *  # noqa: E402,F401,F403 - dot_product_attention
from kgraph.ops.nn_ctc import *  # noqa: E402,F401,F403 - ctc_loss, ctc_decode
from kgraph.ops.nn_extra import *  # noqa: E402,F401,F403 - the rest of keras.ops.nn
from kgraph.ops.nn_windows import *  # noqa: E402,F401,F403 - conv_transpose, fold, ...
from kgraph.ops.numpy import one_hot  # noqa: E402,F401 - keras.ops.nn.one_hot too

__all__ = [*__all__, *_activations.__all__, *_attention.__all__, *_ctc.__all__, *_extra.__all__,
           *_windows.__all__, "one_hot"]
