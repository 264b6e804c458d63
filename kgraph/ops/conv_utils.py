"""Argument helpers shared by the convolution, pooling and reshaping layers (Keras wording).

>>> standardize_tuple(3, 2, "kernel_size")
(3, 3)
>>> conv_output_length(7, 3, stride=2, padding="same")
4
"""

from __future__ import annotations

import operator

import jax
import jax.numpy as jnp

from kgraph import config

__all__ = [
    "as_int", "channel_axis", "check_rank", "conv_dimension_numbers", "conv_output_length",
    "conv_transpose_output_length", "conv_transpose_padding", "float_input", "input_channels",
    "positive_int", "spatial_axes", "spatial_output_shape", "standardize_data_format",
    "standardize_padding", "standardize_pairs", "standardize_tuple"
]


def as_int(value):
    """``value`` as a Python int (NumPy ints too; not bools), else TypeError."""
    if isinstance(value, bool):
        raise TypeError
    return operator.index(value)


def positive_int(name, value):
    """``value`` as a positive int, else Keras's ValueError."""
    try:
        number = as_int(value)
    except TypeError:
        number = 0
    if number <= 0:
        raise ValueError(f"Invalid value for argument `{name}`. Expected a strictly positive "
                         f"value. Received {name}={value}.")
    return number


def standardize_tuple(value, n, name, allow_zero=False):
    """An int or iterable of ``n`` ints as a tuple of ``n`` ints (> 0, or >= 0)."""
    error = f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value}"
    try:
        values = (as_int(value),) * n
    except TypeError:
        try:
            values = tuple(as_int(v) for v in value)
        except TypeError:
            raise ValueError(error) from None
        if len(values) != n:
            raise ValueError(error)
    bad = {v for v in values if (v < 0 if allow_zero else v <= 0)}
    if bad:
        requirement = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{error}, including values {bad} that do not satisfy "
                         f"`value {requirement}`")
    return values


def standardize_pairs(value, n, name, default_message):
    """``int`` -> ((v, v),) * n; n entries of int or pair -> n pairs (Cropping/ZeroPadding)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"`{name}` cannot be negative. Received: {name}={value}.")
        return ((value, value),) * n
    if not hasattr(value, "__len__"):
        raise ValueError(f"{default_message} Received: {name}={value}.")
    if len(value) != n:
        raise ValueError(f"`{name}` should have {n} elements. Received: {name}={value}.")
    ordinals = ("1st", "2nd", "3rd")
    return tuple(standardize_tuple(v, 2, f"{ordinals[i]} entry of {name}", allow_zero=True)
                 for i, v in enumerate(value))


def standardize_data_format(data_format):
    if data_format is None:
        return config.image_data_format()
    value = str(data_format).lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError("The `data_format` argument must be one of "
                         "{'channels_first', 'channels_last'}. "
                         f"Received: data_format={data_format}")
    return value


def standardize_padding(padding, allow_causal=False):
    allowed = ("valid", "same", "causal") if allow_causal else ("valid", "same")
    value = str(padding).lower()
    if value not in allowed:
        raise ValueError(f"The `padding` argument must be one of {set(allowed)}. "
                         f"Received: padding={padding}")
    return value


def spatial_axes(rank, data_format):
    """Positions of the spatial axes in an input of rank ``rank + 2``."""
    return tuple(range(1, rank + 1)) if data_format == "channels_last" else tuple(
        range(2, rank + 2))


def channel_axis(data_format):
    return -1 if data_format == "channels_last" else 1


def conv_dimension_numbers(rank, data_format):
    """``lax`` dimension numbers for inputs in ``data_format`` and Keras kernels
    ``(*kernel_size, in, out)``."""
    spatial = spatial_axes(rank, data_format)
    lhs = (0, rank + 1, *spatial) if data_format == "channels_last" else (0, 1, *spatial)
    rhs = (rank + 1, rank, *range(rank))
    return jax.lax.ConvDimensionNumbers(lhs_spec=lhs, rhs_spec=rhs, out_spec=lhs)


def conv_output_length(length, kernel, stride=1, padding="valid", dilation=1):
    """Output length of a convolution or pooling window (None stays None), as Keras."""
    if length is None:
        return None
    if padding == "valid":
        return (length - dilation * (kernel - 1) - 1) // stride + 1
    return (length - 1) // stride + 1  # "same" and "causal"


def conv_transpose_output_length(length, kernel, stride, padding, output_padding, dilation):
    """Output length of a transposed convolution, as Keras's ``conv_transpose``."""
    if length is None:
        return None
    kernel = (kernel - 1) * dilation + 1
    if padding == "valid":
        extra = max(kernel, stride) - kernel if output_padding is None else output_padding
        return (length - 1) * stride + kernel + extra
    if output_padding is None:
        return length * stride
    return (length - 1) * stride + kernel % 2 + output_padding


def conv_transpose_padding(kernel, stride, padding, output_padding, dilation):
    """``(left, right)`` padding for ``lax.conv_transpose`` giving Keras's output length."""
    kernel = (kernel - 1) * dilation + 1
    if padding == "valid":
        extra = max(kernel, stride) - kernel if output_padding is None else output_padding
        return kernel - 1, kernel - 1 + extra
    if output_padding is None:
        total = stride + kernel - 2
    else:
        total = kernel + kernel % 2 - 2 + output_padding
    left = min(total // 2 + total % 2, kernel - 1)
    return left, total - left


def spatial_output_shape(layer_name, input_shape, data_format, channels, lengths):
    """Assemble ``(batch, *spatial, channels)`` (or channels first), refusing sizes <= 0."""
    lengths = tuple(lengths)
    if any(n is not None and n <= 0 for n in lengths):
        raise ValueError(f'Layer "{layer_name}": Computed output size would be zero or '
                         f"negative (output spatial shape {lengths}). Received input shape "
                         f"{tuple(input_shape)}.")
    if data_format == "channels_last":
        return (input_shape[0], *lengths, channels)
    return (input_shape[0], channels, *lengths)


def float_input(layer, inputs):
    """Non-float inputs cast to the layer's compute dtype (convolutions, averages)."""
    if not jnp.issubdtype(inputs.dtype, jnp.floating):
        return inputs.astype(layer.compute_dtype)
    return inputs


def check_rank(layer, input_shape, ndim):
    """Refuse (in ``build``, which runs before the InputSpec check) a wrong-rank input."""
    if input_shape is None or len(input_shape) != ndim:
        found = None if input_shape is None else len(input_shape)
        raise ValueError(f'Input 0 of layer "{layer.name}" is incompatible with the layer: '
                         f"expected ndim={ndim}, found ndim={found}. "
                         f"Full shape received: {input_shape}")


def input_channels(layer, input_shape, data_format):
    """The known channel count of ``input_shape``, else a ValueError naming the layer."""
    check_rank(layer, input_shape, layer.rank + 2)
    channels = input_shape[channel_axis(data_format)]
    if channels is None:
        raise ValueError(f'Layer "{layer.name}": the channel dimension of the inputs should '
                         f"be defined, received input shape {tuple(input_shape)}.")
    return channels
