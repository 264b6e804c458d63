"""Augmentation layers that mix images or cut boxes out of them (Keras 3's names, arguments,
configs and formulas): ``MixUp``, ``CutMix`` and ``RandomErasing``.

They transform only in training and are identities in inference. ``MixUp`` and ``CutMix``
pair each image with another of the batch (a random permutation) and mix the labels of
Keras's dict form (``{"images": ..., "labels": ...}``) with the same weights, as Keras.

>>> import jax.numpy as jnp
>>> images = jnp.stack([jnp.zeros((4, 4, 1)), jnp.ones((4, 4, 1))])
>>> MixUp()._mix(images, jnp.array([0.25, 1.0]), jnp.array([1, 0]))[:, 0, 0, 0].tolist()
[0.75, 1.0]
>>> out = CutMix(seed=0)({"images": images, "labels": jnp.eye(2)})
>>> out["labels"].sum(axis=1).tolist()  # mixed labels still sum to one
[1.0, 1.0]
>>> RandomErasing()(images, training=False) is images
True
"""

from __future__ import annotations

import numbers

import jax
import jax.numpy as jnp

from kgraph.layers.augmentation import _Augmentation
from kgraph.layers.augmentation_boxes import mix_boxes
from kgraph.layers.augmentation_color import _unit_factor
from kgraph.layers.augmentation_transformations import KerasTransformations

__all__ = ["CutMix", "MixUp", "RandomErasing"]


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _crop_bounds(key, batch, length, ratios):
    """Keras's box sides along one axis: ``ratios * length`` long, starting uniformly in
    ``[0, length - side]``; ``(start, end)``, each ``(batch,)``."""
    side = ratios * length
    start = jax.random.uniform(key, (batch,)) * (length - side)
    return start, start + side


def _box_masks(boxes, height, width):
    """``(batch, height, width, 1)`` booleans: the pixels inside each image's box ``(x0,
    x1, y0, y1)`` (pixel ``(y, x)`` is in if ``x0 <= x < x1`` and ``y0 <= y < y1``)."""
    x0, x1, y0, y1 = (jnp.asarray(b).reshape(-1, 1, 1, 1) for b in boxes)
    xs = jnp.arange(width, dtype=x0.dtype)[None, None, :, None]
    ys = jnp.arange(height, dtype=y0.dtype)[None, :, None, None]
    return (xs >= x0) & (xs < x1) & (ys >= y0) & (ys < y1)


def _mix_labels(labels, weights, permutation):
    """``weights * labels + (1 - weights) * labels[permutation]``, one weight per row."""
    labels = jnp.asarray(labels)
    weights = jnp.asarray(weights).reshape((-1,) + (1,) * (labels.ndim - 1))
    return weights * labels + (1.0 - weights) * jnp.take(labels, permutation, axis=0)


class MixUp(_Augmentation):
    """Blend each image with another of the batch: ``w * x + (1 - w) * x[perm]``, ``w``
    drawn per image from ``Beta(alpha, alpha)`` and ``perm`` a random permutation; labels
    and segmentation masks are blended with the same ``w`` and ``perm``."""

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        if not _is_number(alpha) or not alpha > 0:
            raise ValueError(f"{self._owner}: `alpha` must be a positive number. Received: "
                             f"alpha={alpha!r}")
        self.alpha = alpha

    def _draw(self, key, batch):
        """The mix weights ``(batch,)`` and the permutation pairing the images."""
        permutation_key, weight_key = jax.random.split(key)
        permutation = jax.random.permutation(permutation_key, batch)
        weights = jax.random.beta(weight_key, self.alpha, self.alpha, (batch,))
        return weights, permutation

    def _mix(self, x, weights, permutation):
        """``x`` (channels last) blended with ``x[permutation]`` by ``weights``."""
        weights = jnp.asarray(weights).reshape(-1, 1, 1, 1).astype(x.dtype)
        return weights * x + (1.0 - weights) * jnp.take(x, permutation, axis=0)

    # Keras's formula broadcasts one image to a batch of one, and pairs boxes by their
    # first axis
    _SINGLE_IMAGE_BATCHED = True
    _BOXES_FIRST_AXIS_IS_BATCH = True

    def _draw_transformation(self, key, shape):
        weights, permutation = self._draw(key, shape[0])
        return {"mix_weight": weights, "permutation_order": permutation}

    def _images_from(self, x, transformation):
        return self._mix(x, transformation["mix_weight"], transformation["permutation_order"])

    def _labels_from(self, labels, transformation):
        return _mix_labels(labels, transformation["mix_weight"],
                           transformation["permutation_order"])

    def _boxes_from(self, bounding_boxes, transformation, images_shape):
        return mix_boxes(bounding_boxes, transformation["permutation_order"])

    _masks_from = _images_from
    _augment = KerasTransformations._augment_by_transformation
    _augment_masks = KerasTransformations._augment_masks_by_transformation
    _augment_labels = KerasTransformations._augment_labels_by_transformation
    _augment_boxes = KerasTransformations._augment_boxes_by_transformation

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


class CutMix(_Augmentation):
    """Paste a box of another image of the batch into each image, as Keras: a weight ``w``
    from ``Beta(a, a)`` (``a`` drawn once per batch from ``factor``) gives a box of sides
    ``sqrt(1 - w)`` times the image's, placed uniformly; labels are mixed by the box's
    area (``1 - area / image area`` of the image's own) and segmentation masks get the same
    boxes. Single (unbatched) images are returned unchanged."""

    _casts_in_inference = True

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.factor = _unit_factor(self._owner, factor)

    def _draw(self, key, batch, height, width):
        """The boxes ``(x0, x1, y0, y1)`` (each ``(batch,)``, in pixels) and the
        permutation giving each image its donor."""
        alpha_key, weight_key, x_key, y_key, permutation_key = jax.random.split(key, 5)
        alpha = jax.random.uniform(alpha_key, (), minval=self.factor[0],
                                   maxval=self.factor[1]) + 1e-6
        weights = jax.random.beta(weight_key, alpha, alpha, (batch,))
        ratios = jnp.sqrt(1.0 - weights)
        x0, x1 = _crop_bounds(x_key, batch, width, ratios)
        y0, y1 = _crop_bounds(y_key, batch, height, ratios)
        return (x0, x1, y0, y1), jax.random.permutation(permutation_key, batch)

    def _paste(self, x, boxes, permutation):
        """``x`` (channels last) with each image's box taken from ``x[permutation]``."""
        inside = _box_masks(boxes, x.shape[1], x.shape[2])
        return jnp.where(inside, jnp.take(x, permutation, axis=0), x)

    @staticmethod
    def _label_weights(boxes, height, width):
        """Each image's share of its own pixels: one minus its box's area fraction."""
        x0, x1, y0, y1 = boxes
        return 1.0 - (x1 - x0) * (y1 - y0) / (width * height)

    _IMAGE_SHAPED = ("batch_masks",)
    _SINGLE_IMAGE_BATCHED = True

    def _draw_transformation(self, key, shape):
        batch, height, width, channels = shape
        boxes, permutation = self._draw(key, batch, height, width)
        masks = jnp.broadcast_to(_box_masks(boxes, height, width),
                                 (batch, height, width, channels))
        return {"permutation_order": permutation, "batch_masks": masks,
                "mix_weight": self._label_weights(boxes, height, width).reshape(-1, 1, 1, 1)}

    def _images_from(self, x, transformation):
        permutation = jnp.asarray(transformation["permutation_order"])
        return jnp.where(transformation["batch_masks"], jnp.take(x, permutation, axis=0), x)

    def _labels_from(self, labels, transformation):
        return _mix_labels(labels, transformation["mix_weight"],
                           transformation["permutation_order"])

    _masks_from = _images_from
    _augment = KerasTransformations._augment_by_transformation
    _augment_masks = KerasTransformations._augment_masks_by_transformation
    _augment_labels = KerasTransformations._augment_labels_by_transformation

    def get_random_transformation(self, data, training=True, seed=None):
        images = data["images"] if isinstance(data, dict) else data
        if jnp.ndim(images) == 3:  # Keras draws nothing for one image
            return None
        return super().get_random_transformation(data, training, seed)

    def call(self, inputs, training=True):
        images = inputs["images"] if isinstance(inputs, dict) else inputs
        if jnp.ndim(images) == 3:  # Keras leaves a single image (and its labels) as is
            return inputs
        return super().call(inputs, training)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


class RandomErasing(_Augmentation):
    """Erase a random box of each image with probability drawn from ``factor`` (Keras's:
    a probability in ``[lower, upper]``, then a coin with it), as Keras: the box's sides
    are ``sqrt(s_w)`` and ``sqrt(s_h)`` times the image's, ``s_w, s_h`` drawn from
    ``scale``; it is filled with ``fill_value`` (a number, or one per channel) or, if None,
    with Gaussian noise times ``value_range[1]``, clipped to ``value_range``."""

    _casts_in_inference = True

    def __init__(self, factor=1.0, scale=(0.02, 0.33), fill_value=None,
                 value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.factor = _unit_factor(self._owner, factor)
        self.scale = _unit_factor(self._owner, scale, "scale")
        if not (fill_value is None or _is_number(fill_value) or (
                isinstance(fill_value, (tuple, list)) and len(fill_value) == 3
                and all(_is_number(v) for v in fill_value))):
            raise ValueError(f"{self._owner}: the `fill_value` argument should be None, a "
                             f"number or a list of three numbers. Received: "
                             f"fill_value={fill_value!r}")
        if (not isinstance(value_range, (tuple, list)) or len(value_range) != 2
                or not all(_is_number(v) for v in value_range)):
            raise ValueError(f"{self._owner}: `value_range` must be a list or tuple of two "
                             f"numbers. Received: value_range={value_range!r}")
        self.fill_value, self.value_range = fill_value, value_range

    def _draw(self, key, shape):
        """For a channels-last batch of ``shape``: the boxes ``(x0, x1, y0, y1)``, which
        images are erased and the fill (broadcastable to ``shape``)."""
        batch, height, width, channels = shape
        scale_key, x_key, y_key, probability_key, coin_key, fill_key = jax.random.split(key, 6)
        ratios = jnp.sqrt(jax.random.uniform(scale_key, (batch, 2), minval=self.scale[0],
                                             maxval=self.scale[1]))
        x0, x1 = _crop_bounds(x_key, batch, width, ratios[:, 0])
        y0, y1 = _crop_bounds(y_key, batch, height, ratios[:, 1])
        probability = jax.random.uniform(probability_key, (batch,), minval=self.factor[0],
                                         maxval=self.factor[1])
        erase = jax.random.uniform(coin_key, (batch,)) < probability
        if isinstance(self.fill_value, (tuple, list)) and channels != 3:
            raise ValueError(f"{self._owner}: a `fill_value` of three numbers needs images "
                             f"with 3 channels, received {channels} channels.")
        fill = (jax.random.normal(fill_key, shape) * self.value_range[1]
                if self.fill_value is None else jnp.asarray(self.fill_value, jnp.float32))
        fill = jnp.clip(fill, self.value_range[0], self.value_range[1])
        return (x0, x1, y0, y1), erase, fill

    def _erase(self, x, boxes, erase, fill):
        """``x`` (channels last) with the boxes of the images where ``erase`` filled."""
        inside = _box_masks(boxes, x.shape[1], x.shape[2])
        erase = jnp.asarray(erase).reshape(-1, 1, 1, 1)
        return jnp.where(inside & erase, jnp.asarray(fill).astype(x.dtype), x)

    _IMAGE_SHAPED = ("batch_masks", "fill_value")
    _SINGLE_IMAGE_BATCHED = True

    def _draw_transformation(self, key, shape):
        boxes, erase, fill = self._draw(key, shape)
        masks = jnp.broadcast_to(_box_masks(boxes, shape[1], shape[2]), shape)
        return {"apply_erasing": erase, "batch_masks": masks, "fill_value": fill}

    def _images_from(self, x, transformation):
        erase = jnp.asarray(transformation["apply_erasing"]).reshape(-1, 1, 1, 1)
        fill = jnp.asarray(transformation["fill_value"]).astype(x.dtype)
        return jnp.where(transformation["batch_masks"] & erase, fill, x)

    _augment = KerasTransformations._augment_by_transformation

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "fill_value": self.fill_value, "value_range": self.value_range}


# RandomErasing keeps bounding boxes (Keras); CutMix does not support them (nor does Keras's).
RandomErasing._augment_boxes = _Augmentation._keep_boxes
