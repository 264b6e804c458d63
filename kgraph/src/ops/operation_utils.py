"""``keras.src.ops.operation_utils``: Keras's shape helpers of its ops (the output shapes of
reductions, pooling, convolutions, reshapes, ...) and ``get_source_inputs``.

Shapes are tuples whose unknown dimensions are None.

>>> reduce_shape((1, 4, 4, 1), axis=[1, 2])
(1, 1)
>>> compute_pooling_output_shape((None, 4, 4, 1), (2, 2), (2, 2))
(None, 2, 2, 1)
>>> compute_reshape_output_shape((2, 10), (-1, 5), "newshape")
(4, 5)
"""

from __future__ import annotations

import math

import numpy as np

from kgraph.graph.keras_tensor import KerasTensor
from kgraph.ops.shape_rules import (compute_matmul_output_shape,
                                    compute_take_along_axis_output_shape,
                                    compute_transpose_output_shape, validate_reshape_shape)
from kgraph.src.ops.numpy import broadcast_shapes

__all__ = [
    "broadcast_shapes", "compute_conv_output_shape", "compute_expand_dims_output_shape",
    "compute_matmul_output_shape", "compute_pooling_output_shape",
    "compute_reshape_output_shape", "compute_take_along_axis_output_shape",
    "compute_transpose_output_shape", "get_source_inputs", "reduce_shape",
    "validate_reshape_shape"
]


def _axis(axis, ndim):
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for an array with dimension {ndim}.")
    return axis % ndim


def _axes(axis):
    return tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)


def compute_expand_dims_output_shape(input_shape, axis):
    """``input_shape`` with a 1 inserted at each of ``axis`` (None: at the end)."""
    input_shape = list(input_shape)
    axes = _axes(len(input_shape) if axis is None else axis)
    ndim = len(axes) + len(input_shape)
    new = {_axis(a, ndim) for a in axes}
    rest = iter(input_shape)
    return tuple(1 if i in new else next(rest) for i in range(ndim))


def _spatial_output(input_shape, spatial, windows, strides, padding, dilation, what):
    """The output lengths of sliding windows over the spatial axes (None stays None)."""
    out = []
    for length, window, stride, rate in zip(spatial, windows, strides, dilation):
        if length is None:
            out.append(None)
        elif padding == "valid":
            size = (length - rate * (window - 1) - 1) // stride + 1
            if size <= 0:
                raise ValueError(f"Computed output size would be zero or negative. Received: "
                                 f"`inputs.shape={tuple(input_shape)}`, `{what}="
                                 f"{tuple(windows)}`, `strides={tuple(strides)}`, "
                                 f"`padding={padding}`.")
            out.append(size)
        else:
            out.append((length - 1) // stride + 1)
    return tuple(out)


def _spatial(input_shape, data_format):
    return tuple(input_shape[1:-1] if data_format == "channels_last" else input_shape[2:])


def compute_pooling_output_shape(input_shape, pool_size, strides, padding="valid",
                                 data_format="channels_last"):
    """The output shape of a pooling of ``input_shape`` (batch and channels kept;
    ``strides`` None means ``pool_size``)."""
    if padding not in ("valid", "same"):
        raise ValueError("Argument `padding` must be either 'valid' or 'same'. Received: "
                         f"padding={padding}")
    strides = pool_size if strides is None else strides
    spatial = _spatial(input_shape, data_format)
    ones = (1,) * len(spatial)
    out = _spatial_output(input_shape, spatial, tuple(pool_size), tuple(strides), padding,
                          ones, "pool_size")
    if data_format == "channels_last":
        return (input_shape[0], *out, input_shape[-1])
    return (input_shape[0], input_shape[1], *out)


def compute_conv_output_shape(input_shape, filters, kernel_size, strides=1, padding="valid",
                              data_format="channels_last", dilation_rate=1):
    """The output shape of a convolution of ``input_shape`` with ``filters`` kernels of
    ``kernel_size`` (a tuple, one size per spatial axis)."""
    input_shape = tuple(input_shape)
    spatial = _spatial(input_shape, data_format)
    channels = input_shape[-1] if data_format == "channels_last" else input_shape[1]
    kernel_shape = tuple(kernel_size) + (channels, filters)
    if len(kernel_shape) != len(input_shape):
        raise ValueError("Kernel shape must have the same length as input, but received "
                         f"kernel of shape {kernel_shape} and input of shape {input_shape}.")
    n = len(spatial)
    dilation_rate = (dilation_rate,) * n if isinstance(dilation_rate, int) else dilation_rate
    strides = (strides,) * n if isinstance(strides, int) else strides
    if len(dilation_rate) != n:
        raise ValueError("Dilation must be None, scalar or tuple/list of length of inputs' "
                         f"spatial shape, but received `dilation_rate={dilation_rate}` and "
                         f"input of shape {input_shape}.")
    if padding not in ("valid", "same", "causal"):
        raise ValueError(f"`padding` must be either `'valid'` or `'same'`. Received {padding}.")
    out = _spatial_output(input_shape, spatial, kernel_shape[:-2], tuple(strides),
                          "valid" if padding == "valid" else "same", tuple(dilation_rate),
                          "kernel_size")
    if data_format == "channels_last":
        return (input_shape[0], *out, filters)
    return (input_shape[0], filters, *out)


def compute_reshape_output_shape(input_shape, newshape, newshape_arg_name):
    """``newshape`` with its -1 resolved (None when the input or a size is unknown); a
    tensor ``newshape`` gives unknown sizes, one per entry."""
    validate_reshape_shape(newshape, newshape_arg_name)
    if isinstance(newshape, KerasTensor) or hasattr(newshape, "dtype"):  # a tensor
        shape = tuple(newshape.shape)
        return (None,) * shape[0] if len(shape) == 1 and shape[0] is not None else (None,)
    newshape = tuple(int(d) if isinstance(d, (int, np.integer)) else None for d in newshape)
    if None in tuple(input_shape) or None in newshape:
        return tuple(None if d == -1 else d for d in newshape)
    size = math.prod(input_shape)
    if -1 not in newshape:
        if size != math.prod(newshape):
            raise ValueError("The total size of the tensor must be unchanged. Received: "
                             f"input_shape={input_shape}, {newshape_arg_name}={newshape}")
        return newshape
    known = math.prod(d for d in newshape if d != -1)
    if known == 0 or size % known:
        raise ValueError("The total size of the tensor must be unchanged, however, the input "
                         "size cannot by divided by the specified dimensions in "
                         f"{newshape_arg_name}. Received: input_shape={input_shape}, "
                         f"{newshape_arg_name}={newshape}")
    return tuple(size // known if d == -1 else d for d in newshape)


def reduce_shape(shape, axis=None, keepdims=False):
    """The shape of a reduction over ``axis`` (None: all axes)."""
    shape = list(shape)
    if axis is None:
        return tuple(1 for _ in shape) if keepdims else ()
    axes = {_axis(a, len(shape)) for a in _axes(axis)}
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def get_source_inputs(tensor):
    """The tensors ``tensor`` was computed from: the inputs of its graph (or the tensor
    itself, if made by no op), without repeats, in the order the graph reaches them."""
    history = getattr(tensor, "_keras_history", None)
    if history is None:
        return [tensor] if isinstance(tensor, KerasTensor) else tensor
    layer = history.layer
    if not layer or not layer._inbound_nodes:
        return [tensor]
    node = layer._inbound_nodes[history.node_index]
    if node.is_input:
        return list(node.outputs)
    sources = []
    for parent in node._keras_inputs:
        for found in get_source_inputs(parent):
            if all(found is not known for known in sources):
                sources.append(found)
    return sources
