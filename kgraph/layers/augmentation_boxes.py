"""Bounding boxes through the augmentation layers (Keras's dict form's ``"bounding_boxes"``):
each function is pure in the parameters a layer draws, so the boxes move exactly as the
images do. Boxes are ``{"boxes": (batch, N, 4), "labels": (batch, N, ...)}`` in the
layer's ``bounding_box_format``; as in Keras, they are converted to corners, moved,
clipped to the image (the labels of boxes left without area become -1) and converted back.

Where Keras's boxes do not follow its images, they follow the images here: ``RandomCrop``
shifts by the window's (left, top) (Keras: x by the top, y by the left), scales where the
window is resized and clips to the output; ``RandomRotation`` reads the boxes in their
format (Keras: as xyxy); ``RandomShear`` applies the images' exact shear (Keras: in
relative coordinates, one axis after the other, exact for one axis on square images);
``RandomPerspective`` returns the boxes in their format (Keras: xyxy); ``RandAugment``
moves them by its operations in the order chosen (Keras: in its list's order, once
each); ``MixUp`` joins the labels along the boxes' axis (Keras: the batch's).

>>> import numpy as np
>>> boxes = {"boxes": np.array([[[1.0, 2.0, 3.0, 6.0]]]), "labels": np.array([[4]])}
>>> out = flip_boxes(boxes, np.array([True]), np.array([False]), "xyxy", 8, 10)
>>> out["boxes"].tolist(), out["labels"].tolist()
([[[7.0, 2.0, 9.0, 6.0]]], [[4]])

A layer moves the boxes of its dict input with the draws that move its images:

>>> import kgraph as kg
>>> shift = kg.layers.RandomTranslation(0.0, (0.5, 0.5), bounding_box_format="xywh")
>>> out = shift({"images": np.zeros((1, 8, 10, 3)),
...              "bounding_boxes": {"boxes": [[[1.0, 2.0, 2.0, 2.0]]], "labels": [[0]]}})
>>> out["bounding_boxes"]["boxes"].tolist()  # 5 pixels (half the width) to the right
[[[6.0, 2.0, 2.0, 2.0]]]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph.base import call_args, shape_inference
from kgraph.utils.bounding_boxes.converters import (check_format, clip_to_image_size,
                                                    convert_format)
from kgraph.utils.bounding_boxes.validation import densify_bounding_boxes

__all__ = ["crop_boxes", "flip_boxes", "mix_boxes", "policy_boxes", "resize_boxes",
           "transform_boxes", "warp_corners"]


def _to_xyxy(boxes, bounding_box_format, height, width):
    return convert_format(boxes, bounding_box_format, "xyxy", height=height, width=width)


def _from_xyxy(boxes, bounding_box_format, height, width):
    return convert_format(boxes, "xyxy", bounding_box_format, height=height, width=width)


def flip_boxes(bounding_boxes, horizontal, vertical, bounding_box_format, height, width):
    """Boxes of images flipped left-right where ``horizontal`` and up-down where
    ``vertical`` (booleans per image, ``(batch,)``), as Keras's ``RandomFlip``."""
    rel = convert_format(bounding_boxes, bounding_box_format, "rel_xyxy", height=height,
                         width=width)
    x1, y1, x2, y2 = jnp.split(rel["boxes"], 4, axis=-1)
    horizontal = jnp.asarray(horizontal).reshape(-1, 1, 1)
    vertical = jnp.asarray(vertical).reshape(-1, 1, 1)
    x1, x2 = jnp.where(horizontal, 1 - x2, x1), jnp.where(horizontal, 1 - x1, x2)
    y1, y2 = jnp.where(vertical, 1 - y2, y1), jnp.where(vertical, 1 - y1, y2)
    rel = clip_to_image_size({**rel, "boxes": jnp.concatenate([x1, y1, x2, y2], axis=-1)},
                             height=height, width=width, bounding_box_format="xyxy")
    return convert_format(rel, "rel_xyxy", bounding_box_format, height=height, width=width)


def warp_corners(boxes, transforms):
    """``xyxy`` boxes ``(batch, N, 4)`` moved as images are by ``transforms`` (``(batch,
    8)``, ``affine_transform``'s parameters: output pixel ``(x, y)`` samples the input at
    ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``, ``k = c0 x + c1 y + 1``): each
    box's corners mapped by the inverse, then enclosed."""
    t = jnp.asarray(transforms, jnp.float32).reshape(-1, 8)
    matrices = jnp.concatenate([t, jnp.ones_like(t[:, :1])], axis=1).reshape(-1, 3, 3)
    inverse = jnp.linalg.inv(matrices)
    boxes = jnp.asarray(boxes, jnp.float32)
    x1, y1, x2, y2 = (boxes[..., i] for i in range(4))
    xs, ys = jnp.stack([x1, x2, x2, x1], -1), jnp.stack([y1, y1, y2, y2], -1)  # (b, n, 4)
    points = jnp.stack([xs, ys, jnp.ones_like(xs)], axis=-1)
    moved = jnp.einsum("bij,bnkj->bnki", inverse, points)
    mx, my = moved[..., 0] / moved[..., 2], moved[..., 1] / moved[..., 2]
    return jnp.stack([mx.min(-1), my.min(-1), mx.max(-1), my.max(-1)], axis=-1)


def transform_boxes(bounding_boxes, transforms, bounding_box_format, height, width):
    """Boxes of images moved by ``transforms`` (see ``warp_corners``), clipped to the
    ``height x width`` image: the affine and perspective layers' boxes."""
    xyxy = _to_xyxy(bounding_boxes, bounding_box_format, height, width)
    warped = warp_corners(xyxy["boxes"], transforms)
    # a transform that collapses the image (singular) leaves no box: empty, not NaN
    warped = jnp.where(jnp.isfinite(warped).all(-1, keepdims=True), warped, 0.0)
    moved = {**xyxy, "boxes": warped}
    clipped = clip_to_image_size(moved, height=height, width=width, bounding_box_format="xyxy")
    return _from_xyxy(clipped, bounding_box_format, height, width)


def policy_boxes(bounding_boxes, choices, transforms, moves, bounding_box_format, height,
                 width):
    """Boxes through the operations ``choices`` (indices, in turn) of a policy: operation
    ``i`` moves them by ``transforms[i]`` (``(operations, batch, 8)``, see
    ``warp_corners``) and clips them if ``moves[i]``, else keeps them (``RandAugment``)."""
    xyxy = _to_xyxy(bounding_boxes, bounding_box_format, height, width)
    transforms, moves = jnp.asarray(transforms, jnp.float32), jnp.asarray(moves)

    def step(carry, choice):
        moved = clip_to_image_size({**carry, "boxes": warp_corners(carry["boxes"],
                                                                   transforms[choice])},
                                   height=height, width=width, bounding_box_format="xyxy")
        return jax.tree_util.tree_map(lambda a, b: jnp.where(moves[choice], a, b), moved,
                                      carry), None

    carry = {"boxes": xyxy["boxes"], "labels": jnp.asarray(xyxy["labels"])}
    carry = jax.lax.scan(step, carry, jnp.asarray(choices))[0]
    return _from_xyxy({**xyxy, **carry}, bounding_box_format, height, width)


def crop_boxes(bounding_boxes, tops, lefts, crop_height, crop_width, bounding_box_format,
               height, width, target_height=None, target_width=None):
    """Boxes of ``height x width`` images cropped to the ``crop_height x crop_width`` window
    at ``tops, lefts`` (per image, or one for all) and then resized to ``target_height x
    target_width`` (the crop's size by default): shifted, scaled and clipped."""
    target_height = crop_height if target_height is None else target_height
    target_width = crop_width if target_width is None else target_width
    xyxy = _to_xyxy(bounding_boxes, bounding_box_format, height, width)
    tops = jnp.asarray(tops, jnp.float32).reshape(-1, 1, 1)
    lefts = jnp.asarray(lefts, jnp.float32).reshape(-1, 1, 1)
    x1, y1, x2, y2 = jnp.split(xyxy["boxes"], 4, axis=-1)
    sx, sy = target_width / crop_width, target_height / crop_height
    moved = jnp.concatenate([(x1 - lefts) * sx, (y1 - tops) * sy, (x2 - lefts) * sx,
                             (y2 - tops) * sy], axis=-1)
    clipped = clip_to_image_size({**xyxy, "boxes": moved}, height=target_height,
                                 width=target_width, bounding_box_format="xyxy")
    return _from_xyxy(clipped, bounding_box_format, target_height, target_width)


def resize_boxes(bounding_boxes, scale_y, scale_x, offset_y, offset_x, bounding_box_format,
                 height, width, target_height, target_width):
    """Boxes of ``height x width`` images resized to ``target_height x target_width``:
    ``x * scale_x + offset_x`` (and ``y``), clipped; boxes all -1 or all 0 (padding) stay
    zeros, as Keras's ``Resizing``."""
    xyxy = _to_xyxy(bounding_boxes, bounding_box_format, height, width)
    given = jnp.asarray(bounding_boxes["boxes"])
    padding = jnp.all(given == -1, axis=-1) | jnp.all(given == 0, axis=-1)
    x1, y1, x2, y2 = jnp.split(xyxy["boxes"], 4, axis=-1)
    moved = jnp.concatenate([x1 * scale_x + offset_x, y1 * scale_y + offset_y,
                             x2 * scale_x + offset_x, y2 * scale_y + offset_y], axis=-1)
    clipped = clip_to_image_size({**xyxy, "boxes": moved}, height=target_height,
                                 width=target_width, bounding_box_format="xyxy")
    clipped["boxes"] = jnp.where(padding[..., None], 0.0, clipped["boxes"])
    return _from_xyxy(clipped, bounding_box_format, target_height, target_width)


def mix_boxes(bounding_boxes, permutation):
    """Each image's boxes followed by those of the image ``permutation`` blends into it
    (``MixUp``); the labels are joined alike, along the boxes' axis (their last)."""
    boxes, labels = bounding_boxes["boxes"], jnp.asarray(bounding_boxes["labels"])
    permutation = jnp.asarray(permutation)
    return {**bounding_boxes,
            "boxes": jnp.concatenate([boxes, jnp.take(boxes, permutation, axis=0)], axis=1),
            "labels": jnp.concatenate([labels, jnp.take(labels, permutation, axis=0)], axis=-1)}


class _BoxesMixin:
    """The ``bounding_box_format`` argument (a keyword argument, as Keras's base image
    layer takes it) and the ``"bounding_boxes"`` entry of dict inputs. A layer moves boxes
    in ``_augment_boxes(bounding_boxes, images_shape, key)`` (batched boxes, channels-last
    batched image shape, the images' key); ``_keep_boxes`` keeps them; layers without
    either refuse boxes."""

    def __init__(self, bounding_box_format=None, **kwargs):
        super().__init__(**kwargs)
        if bounding_box_format is not None:
            check_format(self._boxes_owner, bounding_box_format)
        self.bounding_box_format = bounding_box_format

    @property
    def _boxes_owner(self):
        return f'Layer "{self.name}" ({type(self).__name__})'

    def _dense_boxes(self, bounding_boxes):
        """The dict's boxes, checked and dense (float32 boxes, array labels)."""
        if not self.bounding_box_format:
            raise ValueError(f"{self._boxes_owner}: you passed an input with a "
                             "'bounding_boxes' key, but you didn't specify a bounding box "
                             f"format. Pass a `bounding_box_format` argument to your "
                             f"{type(self).__name__} layer, e.g. `bounding_box_format='xyxy'`.")
        self._check_boxes_supported()
        return densify_bounding_boxes(bounding_boxes, self._boxes_owner)

    def _check_boxes_supported(self):
        if type(self)._augment_boxes is _BoxesMixin._augment_boxes:
            raise NotImplementedError(
                f"{self._boxes_owner}: {type(self).__name__} does not support bounding boxes; "
                "its dict input takes 'images', 'labels' and 'segmentation_masks'.")

    def _apply_to_boxes(self, bounding_boxes, images_shape, key):
        """``_augment_boxes`` on the boxes (batched for it) of images of ``images_shape``
        (as given: rank 3 or 4, in the layer's layout)."""
        if type(self)._augment_boxes is _BoxesMixin._keep_boxes:
            return bounding_boxes  # boxes of any shape stay as they are (Keras's)
        single = len(images_shape) == 3
        rank = jnp.ndim(bounding_boxes["boxes"])
        if rank == 2 and not single and self._one_draw_per_batch:
            # one set of boxes for every image: the batch's one draw moves it (Keras's)
            single, images_shape = True, tuple(images_shape)[1:]
        if rank != (2 if single else 3):
            raise ValueError(f"{self._boxes_owner}: {'one image' if single else 'a batch'} of "
                             f"shape {tuple(images_shape)} takes boxes of shape "
                             f"{'(num_boxes, 4)' if single else '(batch, num_boxes, 4)'}, "
                             f"received {tuple(jnp.shape(bounding_boxes['boxes']))}.")
        shape = (1, *images_shape) if single else tuple(images_shape)
        if getattr(self, "data_format", "channels_last") == "channels_first":
            shape = (shape[0], *shape[2:], shape[1])
        batched = {**bounding_boxes}
        if single:
            batched["boxes"] = batched["boxes"][None]
            batched["labels"] = batched["labels"][None]
        out = self._augment_boxes(batched, shape, key)
        if single:
            out = {**out, "boxes": out["boxes"][0], "labels": out["labels"][0]}
        return out

    #: the layer draws once for the whole batch (a set of boxes may serve every image)
    _one_draw_per_batch = False

    def _augment_boxes(self, bounding_boxes, images_shape, key):
        """Boxes moved as the images are with the same draws (``key``)."""
        raise NotImplementedError(f"{self._boxes_owner} does not transform bounding boxes.")

    def _keep_boxes(self, bounding_boxes, images_shape, key):
        """Boxes unchanged (the layer does not move pixels)."""
        return bounding_boxes

    def compute_output_spec(self, *args, **kwargs):
        """A dict input (images with boxes, labels, masks) is traced: each entry keeps its
        own dtype and shape (boxes may be added, images cropped)."""
        if isinstance(call_args.first_argument(type(self), args, kwargs), dict):
            return shape_inference.infer_output_spec(self, args, kwargs,
                                                     self._output_spec_cache)
        return super().compute_output_spec(*args, **kwargs)

    def get_config(self):
        config = super().get_config()
        if self.bounding_box_format is not None:
            config["bounding_box_format"] = self.bounding_box_format
        return config
