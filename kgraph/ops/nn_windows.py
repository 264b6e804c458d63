"""``keras.ops.nn``'s window ops: transposed convolution, adaptive pooling and the sliding
blocks of ``unfold`` / ``fold``. Star-imported by ``kgraph.ops.nn``.

>>> import jax.numpy as jnp
>>> x = jnp.arange(16.0).reshape(1, 1, 4, 4)
>>> unfold(x, 2, stride=2).shape  # (batch, channels * 2 * 2, 4 blocks)
(1, 4, 4)
>>> bool((fold(unfold(x, 2, stride=2), (4, 4), 2, stride=2) == x).all())
True
>>> adaptive_average_pool(jnp.arange(6.0).reshape(1, 6, 1), 2)[0, :, 0].tolist()
[1.0, 4.0]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.ops import conv_utils as cu
from kgraph.ops import shape_rules
from kgraph.ops.registry import register_op

__all__ = ["adaptive_average_pool", "adaptive_max_pool", "conv_transpose", "fold", "unfold"]


@register_op("conv_transpose", tensors=2,
             spec=shape_rules.conv_channels_spec("conv_transpose", -1, default_format=None))
def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None,
                   data_format=None, dilation_rate=1):
    """Transposed convolution as ``keras.ops.conv_transpose``: kernel ``(*spatial,
    out_channels, in_channels)`` (a ``Conv*Transpose`` layer's), Keras's output lengths."""
    rank = inputs.ndim - 2
    if rank < 1:
        raise ValueError(f"conv_transpose: inputs need rank >= 3 (batch, spatial..., "
                         f"channels), received shape {inputs.shape}.")
    data_format = cu.standardize_data_format(data_format)
    padding = str(padding).lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"`padding` must be 'valid' or 'same', received {padding!r}.")
    channels = inputs.shape[-1] if data_format == "channels_last" else inputs.shape[1]
    if kernel.shape[-1] != channels:
        raise ValueError("conv_transpose: the number of input channels must match the "
                         f"kernel's input channels (its last axis): input channels={channels}, "
                         f"kernel shape={kernel.shape}; kernels are (*spatial, out_channels, "
                         "in_channels).")
    strides = cu.standardize_tuple(strides, rank, "strides")
    dilation = cu.standardize_tuple(dilation_rate, rank, "dilation_rate")
    extra = (None,) * rank if output_padding is None else cu.standardize_tuple(
        output_padding, rank, "output_padding", allow_zero=True)
    pads = [cu.conv_transpose_padding(k, s, padding, op, d) for k, s, op, d in zip(
        kernel.shape[:rank], strides, extra, dilation)]
    dtype = jnp.result_type(inputs.dtype, kernel.dtype)  # int images with float kernels
    return jax.lax.conv_transpose(inputs.astype(dtype), kernel.astype(dtype), strides, pads,
                                  rhs_dilation=dilation,
                                  dimension_numbers=cu.conv_dimension_numbers(rank, data_format),
                                  transpose_kernel=True)


def _windows(length, size):
    """``(index (size, width), valid (size, width))``: the input positions of each output,
    from ``floor(i * length / size)`` to ``ceil((i + 1) * length / size)``."""
    starts = np.floor(np.arange(size) * length / size).astype(int)
    ends = np.ceil(np.arange(1, size + 1) * length / size).astype(int)
    width = int((ends - starts).max())
    index = starts[:, None] + np.arange(width)[None, :]
    valid = index < ends[:, None]
    return np.minimum(index, length - 1), valid


def _adaptive_pool(x, output_size, data_format, reduce, owner="adaptive pooling"):
    """Mean (``reduce="mean"``) or max pooling of ``x`` to ``output_size`` on its spatial
    axes, each output over its own window (the windows of PyTorch's and Keras's)."""
    rank = x.ndim - 2
    data_format = cu.standardize_data_format(data_format)
    output_size = cu.standardize_tuple(output_size, rank, "output_size")
    for axis, size in zip(cu.spatial_axes(rank, data_format), output_size):
        if x.shape[axis] is None:
            raise ValueError(f"{owner} needs a known size on axis {axis}.")
        index, valid = _windows(x.shape[axis], size)
        gathered = jnp.take(x, jnp.asarray(index), axis=axis)  # axis -> (size, width)
        mask = jnp.asarray(valid).reshape(valid.shape + (1,) * (x.ndim - axis - 1))
        if reduce == "max":
            low = jnp.asarray(-jnp.inf, x.dtype) if jnp.issubdtype(
                x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min
            x = jnp.max(jnp.where(mask, gathered, low), axis=axis + 1)
        else:
            counts = mask.sum(axis=1, keepdims=True).astype(x.dtype)
            x = jnp.sum(jnp.where(mask, gathered, 0), axis=axis + 1) / jnp.squeeze(counts, 1)
    return x


@register_op("adaptive_average_pool")
def adaptive_average_pool(inputs, output_size, data_format=None):
    """Average pooling to ``output_size`` whatever the input's size."""
    return _adaptive_pool(inputs, output_size, data_format, "mean")


@register_op("adaptive_max_pool")
def adaptive_max_pool(inputs, output_size, data_format=None):
    """Max pooling to ``output_size`` whatever the input's size."""
    return _adaptive_pool(inputs, output_size, data_format, "max")


def _pair(value, name):
    return cu.standardize_tuple(value, 2, name, allow_zero=name == "padding")


@register_op("unfold")
def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of ``x`` ``(N, C, H, W)`` as columns: ``(N, C * kH * kW, L)``
    (PyTorch's and Keras's ``unfold``, channels first)."""
    if x.ndim != 4:
        raise ValueError(f"unfold expects (N, C, H, W) inputs, received shape {x.shape}.")
    kernel, dilation = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    pad, stride = _pair(padding, "padding"), _pair(stride, "stride")
    x = jnp.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    patches = jax.lax.conv_general_dilated_patches(
        x, filter_shape=kernel, window_strides=stride, padding="VALID", rhs_dilation=dilation,
        dimension_numbers=("NCHW", "OIHW", "NCHW"))
    return patches.reshape(patches.shape[0], patches.shape[1], -1)


@register_op("fold")
def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """``unfold``'s adjoint: columns ``(N, C * kH * kW, L)`` summed back into an
    ``(N, C, *output_size)`` image (overlapping blocks add up)."""
    if x.ndim != 3:
        raise ValueError(f"fold: Input must be a 3D tensor (N, C * kH * kW, L). Received: "
                         f"input.shape={x.shape}")
    kernel = _pair(kernel_size, "kernel_size")
    channels, rest = divmod(x.shape[1], kernel[0] * kernel[1])
    if rest:
        raise ValueError(f"fold: axis 1 ({x.shape[1]}) must be channels * kernel area "
                         f"({kernel[0]} * {kernel[1]}).")
    image = jax.ShapeDtypeStruct((x.shape[0], channels, *_pair(output_size, "output_size")),
                                 x.dtype)
    blocks = lambda image: unfold(image, kernel, dilation, padding, stride)  # noqa: E731
    expected = jax.eval_shape(blocks, image).shape
    if tuple(x.shape) != tuple(expected):
        raise ValueError(f"fold: inputs of shape {tuple(x.shape)} do not make an image of "
                         f"size {tuple(image.shape[2:])} (its blocks are {tuple(expected)}).")
    (out,) = jax.linear_transpose(blocks, image)(x)
    return out
