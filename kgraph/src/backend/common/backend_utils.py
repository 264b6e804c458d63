"""``keras.src.backend.common.backend_utils``: a transposed convolution's output shape and
JAX padding, from kgraph's convolution arithmetic (``kgraph.ops.conv_utils``).

>>> compute_conv_transpose_output_shape((1, 4, 4, 3), (3, 3), 8, 2, "same")
[1, 8, 8, 8]
>>> compute_conv_transpose_padding_args_for_jax((1, 4, 4, 3), (3, 3, 8, 3), 2, "same", None, 1)
[(2, 1), (2, 1)]
"""

from __future__ import annotations

from kgraph.ops import conv_utils

__all__ = ["compute_conv_transpose_output_shape", "compute_conv_transpose_padding_args_for_jax"]


def _per_axis(value, n):
    return (value,) * n if value is None or isinstance(value, int) else tuple(value)


def _check_padding(padding):
    if padding.lower() not in {"valid", "same"}:
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. "
                         f"Received: padding={padding}")
    return padding.lower()


def compute_conv_transpose_output_shape(input_shape, kernel_size, filters, strides, padding,
                                        output_padding=None, data_format="channels_last",
                                        dilation_rate=1) -> list:
    """The output shape of a transposed convolution of ``input_shape``, as a list."""
    padding = _check_padding(padding)
    n = len(input_shape) - 2
    spatial = input_shape[1:-1] if data_format == "channels_last" else input_shape[2:]
    lengths = [conv_utils.conv_transpose_output_length(length, k, s, padding, p, d)
               for length, k, s, p, d in zip(spatial, kernel_size, _per_axis(strides, n),
                                             _per_axis(output_padding, n),
                                             _per_axis(dilation_rate, n))]
    if data_format == "channels_last":
        return [input_shape[0], *lengths, filters]
    return [input_shape[0], filters, *lengths]


def compute_conv_transpose_padding_args_for_jax(input_shape, kernel_shape, strides, padding,
                                                output_padding, dilation_rate) -> list:
    """``[(left, right), ...]`` per spatial axis for ``lax.conv_transpose``."""
    padding = _check_padding(padding)
    n = len(input_shape) - 2
    return [conv_utils.conv_transpose_padding(k, s, padding, p, d)
            for k, s, p, d in zip(kernel_shape[:-2], _per_axis(strides, n),
                                  _per_axis(output_padding, n), _per_axis(dilation_rate, n))]
