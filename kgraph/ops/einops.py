"""``ops.rearrange``: einops-style rearrangement of axes (Keras 3's ``keras.ops.rearrange``),
written as a reshape, a transpose and a reshape, so on KerasTensors it is those graph nodes.

A pattern names the input's axes and the output's: ``"b h w c -> b (h w) c"`` merges two
axes, ``"b (h1 h) w c -> (b h1) h w c"`` splits one (the lengths of all but one part of a
split axis are given as keyword arguments: ``h1=2``).

>>> import numpy as np
>>> images = np.zeros((32, 30, 40, 3))
>>> rearrange(images, "b h w c -> b c h w").shape
(32, 3, 30, 40)
>>> rearrange(images, "b (h1 h) (w1 w) c -> (b h1 w1) h w c", h1=2, w1=2).shape
(128, 15, 20, 3)
"""

from __future__ import annotations

import math
import re

from kgraph.ops import numpy as np_ops

__all__ = ["rearrange"]

_AXIS = re.compile(r"\w+|\([\w\s]*\)")


def _groups(side: str) -> list:
    """A side of a pattern as groups of axis names (a bare axis is a group of one)."""
    if not re.fullmatch(r"\s*(?:(?:\w+|\([\w\s]*\))\s*)*", side):
        raise ValueError(f"ops.rearrange: cannot read the pattern side {side!r}; use axis names "
                         "and parenthesized groups, as 'b (h w) c'.")
    return [token[1:-1].split() if token.startswith("(") else [token]
            for token in _AXIS.findall(side)]


def rearrange(tensor, pattern, **axes_lengths):
    """``tensor`` with its axes rearranged as ``pattern`` says (see the module docstring)."""
    try:
        left, right = re.split(r"\s*->\s*", pattern.strip())
    except ValueError:
        raise ValueError(f"ops.rearrange: the pattern needs one '->', received {pattern!r}.") \
            from None
    inputs, outputs = _groups(left), _groups(right)
    shape = tuple(tensor.shape)
    if len(inputs) != len(shape):
        raise ValueError(f"ops.rearrange: the pattern {left!r} names {len(inputs)} axes, the "
                         f"tensor has {len(shape)} (shape {shape}).")
    sizes = dict(axes_lengths)
    for group, dim in zip(inputs, shape):
        unknown = [axis for axis in group if axis not in sizes]
        if len(group) == 1 and unknown:
            sizes[group[0]] = dim
        elif len(unknown) > 1:
            raise ValueError(f"ops.rearrange: axes {unknown} of group {group} need lengths "
                             "(keyword arguments); at most one may be inferred.")
        elif unknown:
            known = math.prod(sizes[axis] for axis in group if axis != unknown[0])
            sizes[unknown[0]] = None if dim is None else dim // known
    flat_in = [axis for group in inputs for axis in group]
    flat_out = [axis for group in outputs for axis in group]
    if sorted(flat_in) != sorted(flat_out) or len(set(flat_in)) != len(flat_in):
        raise ValueError(f"ops.rearrange: both sides of {pattern!r} must name the same axes, "
                         "each once.")

    def target(groups):
        dims = []
        for group in groups:
            parts = [sizes[axis] for axis in group]
            dims.append(None if None in parts else math.prod(parts))
        if dims.count(None) > 1:
            raise ValueError(f"ops.rearrange: {pattern!r} needs the length of more than one "
                             f"unknown axis (tensor shape {shape}).")
        return tuple(-1 if d is None else d for d in dims)

    split = [[axis] for axis in flat_in]
    if any(len(group) > 1 for group in inputs):
        tensor = np_ops.reshape(tensor, target(split))
    order = [flat_in.index(axis) for axis in flat_out]
    if order != list(range(len(order))):
        tensor = np_ops.transpose(tensor, order)
    if any(len(group) != 1 for group in outputs):
        tensor = np_ops.reshape(tensor, target(outputs))
    return tensor
