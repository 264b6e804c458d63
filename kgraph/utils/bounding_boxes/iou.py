"""Overlaps of bounding boxes (``keras.utils.bounding_boxes.compute_iou`` and
``compute_ciou``), Keras's formulas in ``jax.numpy``.

>>> import numpy as np
>>> boxes = [[0.0, 0, 10, 10], [5, 5, 15, 15]]
>>> np.asarray(compute_iou(boxes, boxes, "xyxy"), float).round(4).tolist()
[[1.0, 0.1429], [0.1429, 1.0]]
"""

from __future__ import annotations

import math

import jax.numpy as jnp

from kgraph import config
from kgraph.utils.bounding_boxes.converters import convert_format

__all__ = ["compute_ciou", "compute_iou"]


def _check_rank(name, boxes):
    if boxes.ndim not in (2, 3):
        raise ValueError(f"compute_iou() expects {name} to be batched, or to be unbatched: "
                         f"expected len({name}.shape) of 2 or 3, received {boxes.ndim} "
                         f"(shape {tuple(boxes.shape)}).")


def _image_size(image_shape):
    if image_shape is None:
        return None, None
    height, width, _ = image_shape
    return height, width


def _in_pixels(name, boxes1, boxes2, source, target, image_shape):
    """Both sets of boxes in the absolute ``target`` format (relative formats need
    ``image_shape``)."""
    if "rel" in source and image_shape is None:
        raise ValueError(f"{name}: relative bounding box formats (e.g. `rel_yxyx`) need the "
                         f"`image_shape` argument. Received `image_shape`: {image_shape}")
    height, width = _image_size(image_shape)
    return (convert_format(boxes1, source, target, height, width),
            convert_format(boxes2, source, target, height, width))


def compute_iou(boxes1, boxes2, bounding_box_format, use_masking=False, mask_val=-1,
                image_shape=None):
    """The intersection over union of every box of ``boxes1`` (``(M, 4)`` or ``(batch, M,
    4)``) with every box of ``boxes2`` (``(N, 4)`` or ``(batch, N, 4)``): ``(M, N)`` or
    ``(batch, M, N)``. With ``use_masking``, pairs with a box whose coordinates are all
    negative are ``mask_val``. Relative formats need ``image_shape`` ``(height, width, c)``.

    >>> import numpy as np
    >>> iou = compute_iou([[0.0, 0, 2, 2]], [[1.0, 1, 3, 3], [-1.0, -1, -1, -1]], "xyxy",
    ...                   use_masking=True)
    >>> np.asarray(iou, float).round(4).tolist()
    [[0.1429, -1.0]]
    """
    boxes1, boxes2 = jnp.asarray(boxes1), jnp.asarray(boxes2)
    _check_rank("boxes1", boxes1)
    _check_rank("boxes2", boxes2)
    boxes1, boxes2 = _in_pixels("compute_iou", boxes1, boxes2, bounding_box_format, "yxyx",
                                image_shape)
    y_min1, x_min1, y_max1, x_max1 = jnp.split(boxes1, 4, axis=-1)
    y_min2, x_min2, y_max2, x_max2 = (jnp.swapaxes(v, -1, -2)
                                      for v in jnp.split(boxes2, 4, axis=-1))
    heights = jnp.maximum(0.0, jnp.minimum(y_max1, y_max2) - jnp.maximum(y_min1, y_min2))
    widths = jnp.maximum(0.0, jnp.minimum(x_max1, x_max2) - jnp.maximum(x_min1, x_min2))
    intersection = heights * widths
    area1 = (y_max1 - y_min1) * (x_max1 - x_min1)  # (..., M, 1)
    area2 = (y_max2 - y_min2) * (x_max2 - x_min2)  # (..., 1, N)
    union = area1 + area2 - intersection
    iou = intersection / (union + config.epsilon())
    if not use_masking:
        return iou
    background = jnp.logical_or(jnp.max(boxes1, axis=-1, keepdims=True) < 0.0,
                                jnp.swapaxes(jnp.max(boxes2, axis=-1, keepdims=True) < 0.0,
                                             -1, -2))
    return jnp.where(background, jnp.asarray(mask_val, iou.dtype), iou)


def compute_ciou(boxes1, boxes2, bounding_box_format, image_shape=None):
    """The complete IoU of boxes paired elementwise (shapes ``(..., 4)`` broadcasting):
    the IoU less the squared centre distance over the squared diagonal of the enclosing box
    and an aspect-ratio term, Keras's formula. Relative formats need ``image_shape``.

    >>> float(compute_ciou([0.0, 0, 10, 10], [0.0, 0, 10, 10], "xyxy").round(4))
    1.0
    """
    boxes1, boxes2 = _in_pixels("compute_ciou", boxes1, boxes2, bounding_box_format, "xyxy",
                                image_shape)
    eps = config.epsilon()
    x_min1, y_min1, x_max1, y_max1 = jnp.split(boxes1, 4, axis=-1)
    x_min2, y_min2, x_max2, y_max2 = jnp.split(boxes2, 4, axis=-1)
    width_1, height_1 = x_max1 - x_min1, y_max1 - y_min1 + eps
    width_2, height_2 = x_max2 - x_min2, y_max2 - y_min2 + eps
    intersection = (jnp.maximum(jnp.minimum(x_max1, x_max2) - jnp.maximum(x_min1, x_min2), 0)
                    * jnp.maximum(jnp.minimum(y_max1, y_max2) - jnp.maximum(y_min1, y_min2),
                                  0))
    union = width_1 * height_1 + width_2 * height_2 - intersection + eps
    iou = (intersection / (union + eps))[..., 0]
    convex_width = jnp.maximum(x_max1, x_max2) - jnp.minimum(x_min1, x_min2)
    convex_height = jnp.maximum(y_max1, y_max2) - jnp.minimum(y_min1, y_min2)
    diagonal_squared = (convex_width ** 2 + convex_height ** 2 + eps)[..., 0]
    centres_squared = (((x_min1 + x_max1) / 2 - (x_min2 + x_max2) / 2) ** 2
                       + ((y_min1 + y_max1) / 2 - (y_min2 + y_max2) / 2) ** 2)[..., 0]
    v = ((4 / math.pi ** 2) * (jnp.arctan(width_2 / height_2)
                               - jnp.arctan(width_1 / height_1)) ** 2)[..., 0]
    alpha = v / (v - iou + (1 + eps))
    return iou - (centres_squared / diagonal_squared + v * alpha)
