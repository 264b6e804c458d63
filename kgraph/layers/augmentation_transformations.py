"""Keras's contract of image preprocessing layers: ``get_random_transformation`` draws one
call's parameters as a dict with Keras's keys (``{"flips": ..., "input_shape": ...}``,
``{"mix_weight": ..., "permutation_order": ...}``, ...), and ``transform_images``,
``transform_labels``, ``transform_bounding_boxes`` and ``transform_segmentation_masks``
apply given parameters, a dict drawn by the layer or written by hand, as Keras's do.

A layer joins the contract by defining ``_draw_transformation(key, shape)`` (the dict for a
channels-last batch of ``shape``, drawn from ``key``) and ``_images_from(x, t)`` (a
channels-last float batch transformed by ``t``); ``_labels_from``, ``_masks_from`` and
``_boxes_from`` default to leaving their values unchanged. Its call draws the same dict
from its key and applies it with the same functions, so what a call does and what the
contract gives are one computation. Entries shaped as the images (``_IMAGE_SHAPED``,
e.g. CutMix's ``batch_masks``) are in the layer's ``data_format``, as Keras's.

>>> import numpy as np
>>> import kgraph as kg
>>> layer = kg.layers.MixUp()
>>> images = np.stack([np.zeros((2, 2, 1)), np.ones((2, 2, 1))]).astype("float32")
>>> out = layer.transform_images(images, {"mix_weight": np.array([0.25, 1.0]),
...                                       "permutation_order": np.array([1, 0])})
>>> out[:, 0, 0, 0].tolist()
[0.75, 1.0]
>>> sorted(layer.get_random_transformation(images))
['mix_weight', 'permutation_order']
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph import random as kg_random

__all__ = ["KerasTransformations"]


class KerasTransformations:
    """``get_random_transformation`` and the ``transform_*`` methods of Keras's image
    preprocessing layers (see the module docstring)."""

    #: transformation entries shaped as the images, in the layer's data format
    _IMAGE_SHAPED: tuple = ()
    #: Keras's formulas broadcast one image (rank 3) to a batch of one
    _SINGLE_IMAGE_BATCHED = False
    #: likewise for the boxes of one image given to ``transform_bounding_boxes``
    _SINGLE_BOXES_BATCHED = False
    #: ``transform_bounding_boxes`` reads the boxes' first axis as the batch's, whatever
    #: their rank (Keras's ``MixUp``)
    _BOXES_FIRST_AXIS_IS_BATCH = False

    def _draw_transformation(self, key, shape):
        raise NotImplementedError(
            f"{self._owner}: {type(self).__name__} does not offer Keras's "
            "get_random_transformation / transform_* methods; call the layer instead.")

    def _images_from(self, x, transformation):
        raise NotImplementedError(
            f"{self._owner}: {type(self).__name__} does not offer Keras's transform_images; "
            "call the layer instead.")

    def _labels_from(self, labels, transformation):
        return labels

    def _masks_from(self, masks, transformation):
        return masks

    def _boxes_from(self, bounding_boxes, transformation, images_shape):
        """Batched boxes of channels-last images of ``images_shape`` (batched)."""
        return self._keep_boxes(bounding_boxes, images_shape, None)

    # --- the call's path: the same dict, drawn from the call's key

    def _augment_by_transformation(self, x, key):
        return self._images_from(x, self._draw_transformation(key, x.shape))

    def _augment_masks_by_transformation(self, masks, key):
        return self._masks_from(masks, self._draw_transformation(key, masks.shape))

    def _augment_labels_by_transformation(self, labels, images_shape, key):
        return self._labels_from(labels, self._draw_transformation(key, images_shape))

    def _augment_boxes_by_transformation(self, bounding_boxes, images_shape, key):
        transformation = self._draw_transformation(key, images_shape)
        return self._boxes_from(bounding_boxes, transformation, images_shape)

    # --- Keras's public methods

    def get_random_transformation(self, data, training=True, seed=None):
        """The parameters of one call on ``data`` (images, one image, or Keras's dict
        form), with Keras's keys; None in inference. ``seed``: a seed or key for the
        draws (default: the layer's own, as a call draws them)."""
        if not training:
            return None
        images = self._batched_images(data["images"] if isinstance(data, dict) else data)
        key = self._key() if seed is None else kg_random.draw_key(seed)
        transformation = self._draw_transformation(key, self._channels_last_shape(
            images.shape))
        return self._in_layout(transformation, to_layer=True)

    def transform_images(self, images, transformation=None, training=True):
        """``images`` (a batch or one image, in the layer's data format) transformed by
        ``transformation`` in training; cast to the compute dtype, as Keras."""
        x = self._batched_images(images).astype(self.compute_dtype)
        if not training or transformation is None:
            return x
        t = self._in_layout(self._arrays(transformation), to_layer=False)
        out = self._apply_to_images(x, lambda batch, _: self._images_from(batch, t), None)
        return out[None] if x.ndim == 3 and self._SINGLE_IMAGE_BATCHED else out

    def transform_labels(self, labels, transformation=None, training=True):
        """``labels`` as the images' transformation changes them (mixing layers)."""
        if not training or transformation is None:
            return labels
        return self._labels_from(jnp.asarray(labels), self._arrays(transformation))

    def transform_segmentation_masks(self, segmentation_masks, transformation=None,
                                     training=True):
        """Segmentation masks moved as the images are (nearest interpolation)."""
        if not training or transformation is None:
            return segmentation_masks
        t = self._in_layout(self._arrays(transformation), to_layer=False)
        return self._apply_to_images(segmentation_masks,
                                     lambda batch, _: self._masks_from(batch, t), None)

    def transform_bounding_boxes(self, bounding_boxes, transformation=None, training=True):
        """Boxes (``{"boxes", "labels"}`` in ``bounding_box_format``, of a batch or of one
        image) moved as the images are; the images' shape is the transformation's
        ``input_shape`` where the layer needs it, as Keras's."""
        if not training or transformation is None:
            return bounding_boxes
        boxes = self._dense_boxes(bounding_boxes)
        single = jnp.ndim(boxes["boxes"]) == 2 and not self._BOXES_FIRST_AXIS_IS_BATCH
        if single:
            boxes = {**boxes, "boxes": boxes["boxes"][None],
                     "labels": jnp.asarray(boxes["labels"])[None]}
        t = self._arrays(transformation)
        shape = transformation.get("input_shape") if isinstance(transformation, dict) else None
        shape = None if shape is None else self._channels_last_shape(tuple(shape))
        out = self._boxes_from(boxes, t, shape)
        if single and not self._SINGLE_BOXES_BATCHED:
            out = {**out, "boxes": out["boxes"][0], "labels": out["labels"][0]}
        return out

    # --- helpers

    def _channels_last_shape(self, shape):
        """A channels-last batch shape for images of ``shape`` in the layer's layout."""
        shape = tuple(int(d) for d in shape)
        shape = (1, *shape) if len(shape) == 3 else shape
        if self.data_format == "channels_first":
            shape = (shape[0], *shape[2:], shape[1])
        return shape

    def _layer_shape(self, shape):
        """Keras's ``input_shape`` entry: the channels-last batch ``shape`` in the layer's
        layout."""
        shape = tuple(shape)
        if self.data_format == "channels_first":
            shape = (shape[0], shape[-1], *shape[1:-1])
        return shape

    @staticmethod
    def _arrays(transformation):
        """The transformation's numbers as arrays (Python ints stay as they are)."""
        return {name: value if name == "input_shape" or isinstance(value, int)
                else jnp.asarray(value) for name, value in transformation.items()}

    def _in_layout(self, transformation, to_layer):
        """Image-shaped entries moved between channels last and the layer's layout."""
        if transformation is None or self.data_format != "channels_first":
            return transformation
        moved = dict(transformation)
        for name in self._IMAGE_SHAPED:
            value = jnp.asarray(moved[name])
            if value.ndim == 4:
                moved[name] = (jnp.moveaxis(value, -1, 1) if to_layer
                               else jnp.moveaxis(value, 1, -1))
        return moved

