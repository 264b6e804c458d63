"""How a quantized ``EinsumDense`` lays out its scales (Keras's ``_analyze_quantization_info``).

An einsum's inputs and kernel are quantized along the axes the equation contracts (absent
from the output); their scales are then moved to broadcast against the output: transposed
into the output's axis order, with size-1 axes inserted where the output has axes the
operand lacks and squeezed where the operand had more reduced axes than that. The layout
(and the equation of the inputs' gradient) is Keras's, so that a quantized layer's
``kernel_scale`` has Keras's shape and values.

>>> info = quantization_info("ab,bc->ac", 2)
>>> info.input_reduced_axes, info.kernel_reduced_axes, info.gradient_equation
([1], [0], 'ac,bc->ab')
>>> kernel_scale_shape(info, (3, 5))
[1, 5]
"""

from __future__ import annotations

import re
import string
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

__all__ = ["QuantizationInfo", "adjust_scale_for_dequant", "adjust_scale_for_quant",
           "kernel_scale_shape", "quantization_info"]


class QuantizationInfo(NamedTuple):
    input_reduced_axes: list
    kernel_reduced_axes: list
    input_transpose_axes: list
    kernel_transpose_axes: list
    input_expand_axes: list
    kernel_expand_axes: list
    input_squeeze_axes: list
    kernel_squeeze_axes: list
    gradient_equation: str
    kernel_reverse_transpose_axes: list


def _specs(equation, ndim):
    """The input, kernel and output letters, an ellipsis spelled out with free letters."""
    dotted = re.sub(r"\.\.\.", "0", equation)
    forms = (("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", None),
             ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", "left"),
             ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", "right"))
    for pattern, side in forms:
        match = re.match(pattern, dotted)
        if match is None:
            continue
        inputs, kernel, outputs = match.group(1), match.group(2), match.group(3)
        if side is not None:
            free = sorted(set(string.ascii_letters) - set(inputs) - set(kernel) - set(outputs))
            for i in range(ndim - len(inputs)):
                if side == "left":
                    inputs, outputs = free[i] + inputs, free[i] + outputs
                else:
                    inputs, outputs = inputs + free[i], outputs + free[i]
        return inputs, kernel, outputs
    raise ValueError(f"Invalid einsum equation '{equation}'. Equations must be in the form "
                     "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....")


def quantization_info(equation, ndim) -> QuantizationInfo:
    """The quantization layout of ``equation`` for inputs of rank ``ndim``."""
    inputs, kernel, outputs = _specs(equation, ndim)
    input_reduced = [i for i, c in enumerate(inputs) if c not in outputs]
    kernel_reduced = [i for i, c in enumerate(kernel) if c not in outputs]
    input_expand = [i for i, c in enumerate(outputs) if c not in inputs]
    kernel_expand = [i for i, c in enumerate(outputs) if c not in kernel]
    input_transpose = [inputs.find(c) for c in outputs if c in inputs]
    kernel_transpose = [kernel.find(c) for c in outputs if c in kernel]
    # Each reduced axis takes the place of an expanded one; with none left it is squeezed.
    # Keras inserts a squeezed axis at the position of the previous insertion (initially
    # where the kernel's last letter sits in the output), which is kept for the same
    # layouts.
    position = outputs.find(kernel[-1])
    input_squeeze, kernel_squeeze = [], []
    for reduced, expand, squeeze, transpose in (
            (input_reduced, input_expand, input_squeeze, input_transpose),
            (kernel_reduced, kernel_expand, kernel_squeeze, kernel_transpose)):
        for axis in reduced:
            if expand:
                position = expand.pop(0)
            else:
                squeeze.append(axis)
            transpose.insert(position, axis)
    reverse = [i for _, i in sorted((v, i) for i, v in enumerate(kernel_transpose))]
    return QuantizationInfo(input_reduced, kernel_reduced, input_transpose, kernel_transpose,
                            input_expand, kernel_expand, input_squeeze, kernel_squeeze,
                            f"{outputs},{kernel}->{inputs}", reverse)


def kernel_scale_shape(info: QuantizationInfo, kernel_shape) -> list:
    """The per-channel ``kernel_scale`` shape of a kernel of ``kernel_shape``."""
    shape = np.array(kernel_shape)
    shape[info.kernel_reduced_axes] = 1
    shape = shape[info.kernel_transpose_axes].tolist()
    for axis in sorted(info.kernel_expand_axes):
        shape.insert(axis, 1)
    for axis in sorted(info.kernel_squeeze_axes, reverse=True):
        shape.pop(axis)
    return shape


def adjust_scale_for_quant(info: QuantizationInfo, scale, operand="kernel"):
    """A scale computed with kept dims on the operand, laid out against the output."""
    if operand == "kernel":
        transpose, expand, squeeze = (info.kernel_transpose_axes, info.kernel_expand_axes,
                                      info.kernel_squeeze_axes)
    else:
        transpose, expand, squeeze = (info.input_transpose_axes, info.input_expand_axes,
                                      info.input_squeeze_axes)
    if transpose:
        scale = jnp.transpose(scale, transpose)
    if expand:
        scale = jnp.expand_dims(scale, tuple(expand))
    if squeeze:
        scale = jnp.squeeze(scale, tuple(squeeze))
    return scale


def adjust_scale_for_dequant(info: QuantizationInfo, scale):
    """``kernel_scale`` laid out back against the kernel (to divide it)."""
    if info.kernel_squeeze_axes:
        scale = jnp.expand_dims(scale, tuple(info.kernel_squeeze_axes))
    if info.kernel_expand_axes:
        scale = jnp.squeeze(scale, tuple(info.kernel_expand_axes))
    if info.kernel_transpose_axes:
        reverse = sorted(range(len(info.kernel_transpose_axes)),
                         key=info.kernel_transpose_axes.__getitem__)
        scale = jnp.transpose(scale, reverse)
    return scale
