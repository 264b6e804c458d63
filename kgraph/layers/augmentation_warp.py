"""Warping augmentation layers (Keras 3's names, arguments, configs and formulas):
``RandomShear``, ``RandomPerspective`` and ``RandomElasticTransform``.

As the other augmentation layers they transform only in training, draw each image's
transform from the layer's key, and move segmentation masks (Keras's dict form) exactly as
the images, with nearest interpolation.

>>> import jax.numpy as jnp
>>> images = jnp.arange(16.0).reshape(1, 4, 4, 1)
>>> RandomShear(x_factor=0.3)(images, training=False) is images
True
>>> RandomPerspective(scale=0.2, seed=1)(images).shape
(1, 4, 4, 1)
>>> bool((RandomElasticTransform(factor=0.0)(images) == images).all())  # never applied
True
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.layers.augmentation import _AffineAugmentation, _Augmentation
from kgraph.layers.augmentation_boxes import transform_boxes
from kgraph.layers.augmentation_color import _coins, _unit_factor
from kgraph.layers.augmentation_transformations import KerasTransformations
from kgraph.ops import image as image_ops

__all__ = ["RandomElasticTransform", "RandomPerspective", "RandomShear", "perspective_boxes",
           "shear_transforms"]

_INTERPOLATIONS = ("nearest", "bilinear")


def _check_interpolation(owner, interpolation):
    if interpolation not in _INTERPOLATIONS:
        raise NotImplementedError(f"{owner}: unknown `interpolation` {interpolation}. Expected "
                                  f"one of {_INTERPOLATIONS}.")


def _check_fill_mode(owner, fill_mode, supported):
    if fill_mode not in supported:
        raise NotImplementedError(f"{owner}: unknown `fill_mode` {fill_mode}. Expected one of "
                                  f"{supported}.")


def _shear_range(owner, factor, name):
    """Keras's shear factor: a number ``f`` in ``[0, 1]`` is ``(-f, f)``; a pair is sorted
    (each in ``[-1, 1]``: Keras's configs store ``(-f, f)``)."""
    message = (f"{owner}: the `{name}` argument should be a number in the range [0, 1.0] (or a "
               f"list of two numbers). Received: {name}={factor}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or any(isinstance(f, bool) or not isinstance(f, (int, float))
                                   or not -1.0 <= f <= 1.0 for f in factor):
            raise ValueError(message)
        return tuple(sorted(float(f) for f in factor))
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) \
            or not 0.0 <= factor <= 1.0:
        raise ValueError(message)
    return -float(factor), float(factor)


def perspective_boxes(bounding_boxes, apply, start_points, end_points, bounding_box_format,
                      height, width):
    """Boxes of images warped from ``start_points`` to ``end_points`` (``(batch, 4, 2)``)
    where ``apply`` (per image): the moved corners enclosed, then clipped."""
    warped = image_ops._homography(jnp.asarray(start_points, jnp.float32),
                                   jnp.asarray(end_points, jnp.float32))
    identity = jnp.array([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    transforms = jnp.where(jnp.asarray(apply).reshape(-1, 1), warped, identity)
    return transform_boxes(bounding_boxes, transforms, bounding_box_format, height, width)


def shear_transforms(x_amounts, y_amounts):
    """Keras's shear transforms (``affine_transform``'s 8 parameters), about the top-left
    corner: output pixel ``(x, y)`` samples the input at ``(x + sx y, sy x + y)``."""
    ones, zeros = jnp.ones_like(x_amounts), jnp.zeros_like(x_amounts)
    return jnp.stack([ones, x_amounts, zeros, y_amounts, ones, zeros, zeros, zeros], axis=1)


class RandomShear(_AffineAugmentation):
    """Shear each image along x and y by amounts drawn from ``x_factor`` and ``y_factor``
    (a number ``f`` is ``(-f, f)``), both negated for a random half of the images, as
    Keras."""

    def __init__(self, x_factor=0.0, y_factor=0.0, interpolation="bilinear",
                 fill_mode="reflect", fill_value=0.0, data_format=None, seed=None, **kwargs):
        # _AffineAugmentation's checks skipped: the ones below name the layer
        _Augmentation.__init__(self, seed, data_format, **kwargs)
        self.x_factor = _shear_range(self._owner, x_factor, "x_factor")
        self.y_factor = _shear_range(self._owner, y_factor, "y_factor")
        _check_fill_mode(self._owner, fill_mode, ("reflect", "wrap", "constant", "nearest"))
        _check_interpolation(self._owner, interpolation)
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value

    def _amounts(self, key, batch):
        sign_key, y_key, x_key = jax.random.split(key, 3)
        sign = jnp.where(jax.random.uniform(sign_key, (batch,)) > 0.5, -1.0, 1.0)
        y_amounts = jax.random.uniform(y_key, (batch,), minval=self.y_factor[0],
                                       maxval=self.y_factor[1])
        x_amounts = jax.random.uniform(x_key, (batch,), minval=self.x_factor[0],
                                       maxval=self.x_factor[1])
        return x_amounts * sign, y_amounts * sign

    def _draw_transformation(self, key, shape):
        x_amounts, y_amounts = self._amounts(key, shape[0])
        return {"shear_factor": jnp.stack([x_amounts, y_amounts], axis=1),
                "input_shape": self._layer_shape(shape)}

    def _matrices(self, transformation, height, width):
        """The images' ``affine_transform`` parameters (what their boxes follow)."""
        amounts = jnp.asarray(transformation["shear_factor"], jnp.float32).reshape(-1, 2)
        return shear_transforms(amounts[:, 0], amounts[:, 1])

    def _shear(self, x, x_amounts, y_amounts, interpolation=None):
        """Channels-last ``x`` sheared by per-image amounts (Keras's ``shear_factor``
        columns)."""
        return image_ops.affine_transform(
            x, shear_transforms(jnp.asarray(x_amounts), jnp.asarray(y_amounts)),
            interpolation=interpolation or self.interpolation, fill_mode=self.fill_mode,
            fill_value=self.fill_value, data_format="channels_last")

    def get_config(self):
        return {**super().get_config(), "x_factor": self.x_factor, "y_factor": self.y_factor}


class RandomPerspective(_Augmentation):
    """Move the corners of an image, with probability drawn from ``factor`` (Keras's: a
    probability in ``[lower, upper]``, then a coin with it), and warp it accordingly: the
    corner ``(x, y)`` goes to ``(x (1 + u), y (1 + v))`` with ``u, v`` uniform in
    ``[-scale / 2, scale / 2]`` (so the top-left corner stays, as Keras); outside:
    ``fill_value``."""

    _casts_in_inference = True

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_value=0.0,
                 seed=None, data_format=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.factor = _unit_factor(self._owner, factor)
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) \
                or not 0.0 <= scale <= 1.0:
            raise ValueError(f"{self._owner}: the `scale` argument should be a number in the "
                             f"range [0, 1]. Received: scale={scale}")
        _check_interpolation(self._owner, interpolation)
        self.scale, self.interpolation, self.fill_value = scale, interpolation, fill_value

    def _draw(self, key, batch, height, width):
        coin_key, corner_key = jax.random.split(key)
        apply = _coins(coin_key, batch, self.factor)
        shifts = jax.random.uniform(corner_key, (batch, 4, 2), minval=-0.5 * self.scale,
                                    maxval=0.5 * self.scale)
        corners = jnp.array([[0.0, 0.0], [width - 1, 0.0], [0.0, height - 1],
                             [width - 1, height - 1]], jnp.float32)
        start = jnp.broadcast_to(corners, (batch, 4, 2))
        return apply, start, start + start * shifts

    def _draw_transformation(self, key, shape):
        apply, start, end = self._draw(key, *shape[:3])
        return {"apply_perspective": apply, "start_points": start, "end_points": end,
                "input_shape": self._layer_shape(shape)}

    def _images_from(self, x, transformation, interpolation=None):
        return self._perspective(x, *self._points(transformation), interpolation=interpolation)

    def _masks_from(self, masks, transformation):
        return self._images_from(masks, transformation, interpolation="nearest")

    def _boxes_from(self, bounding_boxes, transformation, images_shape):
        height, width = images_shape[1:3]
        return perspective_boxes(bounding_boxes, *self._points(transformation),
                                 self.bounding_box_format, height, width)

    @staticmethod
    def _points(transformation):
        """The transformation's ``(apply, start_points, end_points)``, batched."""
        apply = jnp.asarray(transformation["apply_perspective"]).reshape(-1)
        start, end = (jnp.asarray(transformation[name], jnp.float32).reshape(-1, 4, 2)
                      for name in ("start_points", "end_points"))
        return apply, start, end

    _augment = KerasTransformations._augment_by_transformation
    _augment_masks = KerasTransformations._augment_masks_by_transformation
    _augment_boxes = KerasTransformations._augment_boxes_by_transformation

    def _perspective(self, x, apply, start_points, end_points, interpolation=None):
        """Channels-last ``x`` warped from ``start_points`` to ``end_points`` (``(batch, 4,
        2)``) where ``apply`` (per image), as Keras's ``transform_images``."""
        warped = image_ops._perspective_warp(x, start_points, end_points,
                                             interpolation or self.interpolation,
                                             self.fill_value)
        return jnp.where(jnp.asarray(apply)[:, None, None, None], warped, x)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "interpolation": self.interpolation, "fill_value": self.fill_value}


class RandomElasticTransform(_Augmentation):
    """Elastic deformation (``kgraph.ops.image.elastic_transform``) of each image with
    probability drawn from ``factor`` (Keras's: a probability in ``[lower, upper]``, then a
    coin with it), then clip to ``value_range``. One distortion ``d`` drawn from ``scale``
    per batch sets ``alpha = 0.1 d max(h, w)`` and ``sigma = 0.05 d min(h, w)``, as Keras."""

    _casts_in_inference = True

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_mode="reflect",
                 fill_value=0.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.factor = _unit_factor(self._owner, factor)
        self.scale = _unit_factor(self._owner, scale, "scale")
        _check_interpolation(self._owner, interpolation)
        _check_fill_mode(self._owner, fill_mode,
                         ("constant", "nearest", "wrap", "mirror", "reflect"))
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError(f"{self._owner}: `value_range` must be a list or tuple of two "
                             f"numbers. Received: value_range={value_range}")
        self.interpolation, self.fill_mode, self.fill_value = interpolation, fill_mode, fill_value
        self.value_range = value_range

    def _draw(self, key, batch):
        coin_key, scale_key, field_key = jax.random.split(key, 3)
        apply = _coins(coin_key, batch, self.factor)
        distortion = jax.random.uniform(scale_key, (), minval=self.scale[0],
                                        maxval=self.scale[1])
        return apply, distortion, field_key

    def _draw_transformation(self, key, shape):
        apply, distortion, field_key = self._draw(key, shape[0])
        return {"apply_transform": apply, "distortion_factor": distortion, "seed": field_key}

    def _images_from(self, x, transformation, interpolation=None):
        if self.scale[1] == 0 or self.factor[1] == 0:  # as Keras: no transform, no clip
            return x
        seed = transformation["seed"]
        key = jax.random.PRNGKey(seed) if isinstance(seed, int) else jnp.asarray(seed)
        return self._distort(x, jnp.asarray(transformation["apply_transform"]).reshape(-1),
                             transformation["distortion_factor"], key,
                             interpolation=interpolation)

    def _masks_from(self, masks, transformation):
        return self._images_from(masks, transformation, interpolation="nearest")

    _augment = KerasTransformations._augment_by_transformation
    _augment_masks = KerasTransformations._augment_masks_by_transformation

    def _distort(self, x, apply, distortion, key, interpolation=None):
        """Channels-last ``x`` deformed where ``apply`` (per image) with the distortion
        ``distortion`` (at most ``scale[1]``) and the field drawn from ``key``, then
        clipped, as Keras's ``transform_images``."""
        height, width = x.shape[1], x.shape[2]
        distortion = jnp.asarray(distortion, jnp.float32)
        alpha = max(height, width) * (0.1 * distortion)
        sigma = min(height, width) * (0.05 * distortion)
        largest = np.float32(min(height, width)) * (np.float32(0.05)
                                                    * np.float32(self.scale[1]))
        warped = image_ops._elastic_warp(x, alpha, sigma, key,
                                         interpolation or self.interpolation, self.fill_mode,
                                         self.fill_value, image_ops._elastic_size(largest))
        out = jnp.where(jnp.asarray(apply)[:, None, None, None], warped, x)
        return jnp.clip(out, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "interpolation": self.interpolation, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "value_range": self.value_range}
