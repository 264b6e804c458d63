"""The argument checks of ``kgraph.ops.image``, with Keras's messages: the images' rank,
channels and dtype, ``resize``'s size, and the margins of ``crop_images`` /
``pad_images`` (exactly two of a side's start, end and target; none negative).

>>> margins("pad_images", "padding", 10, 1, None, 15, "top", "bottom", "target_height")
(1, 4, 15)
>>> margins("crop_images", "cropping", 10, None, 2, 5, "top", "bottom", "target_height")
(3, 2, 5)
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph import config
from kgraph.graph.keras_tensor import KerasTensor

__all__ = ["check_channels", "check_float", "check_rank", "check_size", "margins",
           "margins_spec"]


def check_rank(name, images):
    """Rank 3 (one image) or 4 (a batch)."""
    if images.ndim not in (3, 4):
        raise ValueError(f"{name}: Invalid images rank: expected rank 3 (single image) or rank "
                         f"4 (batch of images). Received input with shape: "
                         f"images.shape={tuple(images.shape)}")


def check_float(name, images):
    if not jnp.issubdtype(images.dtype, jnp.floating):
        raise ValueError(f"{name}: Invalid images dtype: expected float dtype. Received: "
                         f"images.dtype={images.dtype}")


def check_channels(name, images, data_format, allowed=(3,)):
    """The channel axis (of rank-3 or 4 images in ``data_format``) has a size in
    ``allowed`` (an unknown, symbolic size passes)."""
    channels = images.shape[-1 if data_format == "channels_last" else -3]
    if isinstance(channels, int) and channels not in allowed:
        if allowed == (3,):
            raise ValueError(f"{name}: Input images must have 3 channels, but received images "
                             f"with {channels} channels.")
        raise ValueError(f"{name}: Invalid channel size: expected 3 (RGB) or 1 (Grayscale). "
                         f"Received input with shape: images.shape={tuple(images.shape)}")


def check_size(size):
    """``resize``'s ``size``: two positive integers."""
    if len(size) != 2:
        raise ValueError(f"resize: Expected `size` to be a tuple of 2 integers. Received: "
                         f"size={size}")
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"resize: `size` must have positive height and width. Received: "
                         f"size={size}")


def margins(name, kind, length, start, end, target, start_name, end_name, target_name):
    """One side's ``(start, end, target)`` of an image side of ``length``: exactly two
    given, the third solved (padding: ``target = start + length + end``; cropping:
    ``target = length - start - end``), none negative. ``start_name`` / ``end_name`` are
    ``top`` / ``bottom`` or ``left`` / ``right``."""
    names = (f"{start_name}_{kind}", f"{end_name}_{kind}", target_name)
    values = (start, end, target)
    if values.count(None) != 1:
        raise ValueError(f"{name}: Must specify exactly two of {', '.join(names)}. Received: "
                         + ", ".join(f"{n}={v}" for n, v in zip(names, values)))
    for value, value_name in zip(values, names):
        if value is not None and value < 0:
            raise ValueError(f"{name}: {value_name} must be >= 0. Received: "
                             f"{value_name}={value}")
    grows = 1 if kind == "padding" else -1
    if target is None:
        target = length + grows * (start + end)
    elif start is None:
        start = grows * (target - length) - end
    else:
        end = grows * (target - length) - start
    for value, value_name in zip((start, end, target), names):
        if value < 0:
            raise ValueError(f"{name}: {value_name} must be >= 0. Received: "
                             f"{value_name}={value}")
    return start, end, target


def margins_spec(kind):
    """The output spec of ``pad_images`` / ``crop_images`` (``kind`` "padding" or
    "cropping") on images of unknown height or width: the target size, else the known size
    grown (padding) or shrunk (cropping) by the margins; cropping an unknown size needs
    its target. None when both sizes are known (then traced, with every check)."""
    def spec(images, target_height=None, target_width=None, data_format=None, **given):
        named = {**given, "target_height": target_height, "target_width": target_width}
        for name, value in named.items():
            if value is not None and value < 0:
                raise ValueError(f"{name} must be >= 0. Received: {name}={value}")
        shape = list(images.shape)
        if len(shape) not in (3, 4):
            raise ValueError("Invalid images rank: expected rank 3 (single image) or rank 4 "
                             f"(batch of images). Received: images.shape={tuple(shape)}")
        last = (data_format or config.image_data_format()) == "channels_last"
        axes = (-3, -2) if last else (-2, -1)
        if all(shape[a] is not None for a in axes):
            return None
        sign = 1 if kind == "padding" else -1
        top, bottom, left, right = (given.get(f"{side}_{kind}")
                                    for side in ("top", "bottom", "left", "right"))
        for axis, name, target, before, after in ((axes[0], "height", target_height, top,
                                                   bottom),
                                                  (axes[1], "width", target_width, left, right)):
            size = shape[axis]
            if size is None and target is None and kind == "cropping":
                raise ValueError(f"When the {name} of the images is unknown, `target_{name}` "
                                 f"must be specified. Received images.shape={tuple(shape)} "
                                 f"and target_{name}={target}")
            if target is None and size is not None:
                target = size + sign * ((before or 0) + (after or 0))
            shape[axis] = target
        return KerasTensor(tuple(shape), images.dtype)

    return spec
