"""Image augmentation layers (Keras 3's names, arguments and configs): ``RandomFlip``,
``RandomRotation``, ``RandomZoom``, ``RandomTranslation``, ``RandomContrast``,
``RandomBrightness``, ``RandomCrop``.

They transform only in training (``training=True``, as in ``fit``; a direct call defaults to
training, as Keras) and are identities in inference. Each image of a batch gets its own transform, drawn from the layer's key (the
program's key under ``apply``/``fit``); the geometry is Keras's affine warp
(``kgraph.ops.image.affine_transform``). Keras's dict form (``images``, ``labels``,
``segmentation_masks``, ``bounding_boxes`` in the layer's ``bounding_box_format``) moves
them all with the same draws (``kgraph.layers.augmentation_boxes``).

>>> import jax.numpy as jnp
>>> images = jnp.ones((2, 8, 8, 3))
>>> RandomRotation(0.1)(images, training=False) is images
True
>>> RandomFlip("horizontal")(images).shape
(2, 8, 8, 3)
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from kgraph.base.layer import Layer
from kgraph.layers.augmentation_boxes import _BoxesMixin, crop_boxes, flip_boxes, transform_boxes
from kgraph.layers.augmentation_transformations import KerasTransformations
from kgraph.ops import conv_utils as cu
from kgraph.ops import image as image_ops
from kgraph.random import SeedGenerator

__all__ = [
    "RandomBrightness", "RandomContrast", "RandomCrop", "RandomFlip", "RandomRotation",
    "RandomTranslation", "RandomZoom", "rotation_transforms"
]


def _factor_range(name, factor, owner, bound=None):
    """Keras's factor: a number ``f`` means ``(-f, f)``; a pair is ``(lower, upper)``,
    sorted as Keras sorts it; within ``[-bound, bound]`` if ``bound``."""
    within = "" if bound is None else f" in the range [-{bound}, {bound}]"
    message = (f"{owner}: The `{name}` argument should be a number (or a list of two "
               f"numbers){within}. Received: {name}={factor!r}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or not all(_is_number(f) for f in factor):
            raise ValueError(message)
        lower, upper = sorted(factor)
    elif _is_number(factor):
        lower, upper = -abs(factor), abs(factor)
    else:
        raise ValueError(message)
    if bound is not None and (lower < -bound or upper > bound):
        raise ValueError(message)
    return lower, upper


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _unit_factor(owner, factor, name="factor", bounds=(0, 1)):
    """Keras's factor of the newer image layers: a number ``f`` is ``(0, f)`` (clipped to
    ``bounds``), a pair is sorted; both within ``bounds``. The numbers keep their types
    (``1`` stays an int), as in Keras's configs."""
    message = (f"{owner}: the `{name}` argument should be a number (or a list of two numbers) "
               f"in the range [{bounds[0]}, {bounds[1]}]. Received: {name}={factor}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > bounds[1] or factor[1] < bounds[0]:
            raise ValueError(message)
        return tuple(sorted(factor))
    if not _is_number(factor) or not bounds[0] <= factor <= bounds[1]:
        raise ValueError(message)
    return max(-abs(factor), bounds[0]), abs(factor)


class _Augmentation(KerasTransformations, _BoxesMixin, Layer):
    """Base: batching, channels-last layout, the training switch, the per-call key and
    Keras's ``get_random_transformation`` / ``transform_*`` contract."""

    def __init__(self, seed=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self.data_format = cu.standardize_data_format(data_format)
        # a seed gives the layer its own stream of eager draws (Keras's ``generator``)
        self.generator = None if seed is None else SeedGenerator(seed)

    @property
    def _owner(self):
        return f'Layer "{self.name}" ({type(self).__name__})'

    def _key(self):
        """This call's key: from the run's key by the layer's path (``random_key``); an
        eager call without one draws from the layer's seed's own stream when it has a
        seed (so its draws follow from its seed and its calls, as Keras's), else from
        the eager stream. The seed is folded in."""
        if self.generator is None:
            return self.random_key()
        return jax.random.fold_in(self.generator.next(), self.seed)

    def call(self, inputs, training=True):
        if isinstance(inputs, dict):
            return self._call_on_dict(inputs, training)
        self._batched_images(inputs)  # (its rank checked)
        if not training:
            return self._inference(inputs)
        return self._apply_to_images(inputs, self._augment, self._key())

    def _batched_images(self, images):
        x = jnp.asarray(images)
        if x.ndim not in (3, 4):
            raise ValueError(f"{self._owner}: Expected the input image to be rank 3 or 4. "
                             f"Received: inputs.shape={tuple(x.shape)}")
        return x

    def _apply_to_images(self, images, transform, key):
        """``transform(x, key)`` on channels-last float batches, in the input's layout."""
        x = jnp.asarray(images)
        single = x.ndim == 3
        x = x[None] if single else x
        first = self.data_format == "channels_first"
        x = jnp.moveaxis(x, 1, -1) if first else x
        if not jnp.issubdtype(x.dtype, jnp.floating):
            x = x.astype(self.compute_dtype)
        out = transform(x, key)
        out = jnp.moveaxis(out, -1, 1) if first else out
        return out[0] if single else out

    def _call_on_dict(self, data, training):
        """Keras's dict form: ``images`` transformed, ``labels``, ``segmentation_masks``
        and ``bounding_boxes`` (in ``bounding_box_format``) transformed with the same
        draws; other entries pass through."""
        if "images" not in data:
            raise ValueError(f"{self._owner}: a dict input needs an 'images' entry, received "
                             f"keys {sorted(data)}.")
        boxes = self._dense_boxes(data["bounding_boxes"]) if "bounding_boxes" in data else None
        images = self._batched_images(data["images"])
        out = dict(data)
        if not training:
            out["images"] = self._inference(data["images"])
            if boxes is not None:
                out["bounding_boxes"] = boxes
            return out
        key = self._key()
        out["images"] = self._apply_to_images(images, self._augment, key)
        if boxes is not None:
            out["bounding_boxes"] = self._apply_to_boxes(boxes, images.shape, key)
        if "labels" in data:
            labels = jnp.asarray(data["labels"])
            single = images.ndim == 3
            shape = (1, *images.shape) if single else images.shape
            if self.data_format == "channels_first":
                shape = (shape[0], *shape[2:], shape[1])
            mixed = self._augment_labels(labels[None] if single else labels, shape, key)
            out["labels"] = mixed[0] if single else mixed
        if "segmentation_masks" in data:
            out["segmentation_masks"] = self._apply_to_images(
                data["segmentation_masks"], self._augment_masks, key)
        return out

    def _augment_labels(self, labels, images_shape, key):
        """Labels with the images' draws (``key``; ``images_shape`` channels-last and
        batched): unchanged unless the layer mixes images."""
        return labels

    def _augment_masks(self, masks, key):
        """Segmentation masks with the images' draws: unchanged unless the layer moves
        pixels (then moved as the images are, with nearest interpolation)."""
        return masks

    #: Keras's layer casts the images to the compute dtype in inference too.
    _casts_in_inference = False

    def _inference(self, inputs):
        """The images unchanged (in the compute dtype where Keras's layer casts them)."""
        if not self._casts_in_inference or jnp.result_type(inputs) == self.compute_dtype:
            return inputs
        return jnp.asarray(inputs).astype(self.compute_dtype)

    def compute_output_shape(self, input_shape):
        return input_shape

    def compute_output_dtype(self, input_dtype):
        """The compute dtype, whatever the input's (Keras's image layers cast to it)."""
        return self.compute_dtype

    def get_config(self):
        return {**super().get_config(), "seed": self.seed, "data_format": self.data_format}


class RandomFlip(_Augmentation):
    """Flip each image left-right ("horizontal") or up-down ("vertical") with probability
    1/2; "horizontal_and_vertical" (the default) flips it both ways or not at all (one
    draw per image, as Keras)."""

    _casts_in_inference = True

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        if mode not in ("horizontal", "vertical", "horizontal_and_vertical"):
            raise ValueError(f"{self._owner}: RandomFlip layer {self.name} received an unknown "
                             f"mode argument {mode}")
        self.mode = mode

    def _flips(self, key, batch):
        """One draw per image, ``(batch, 1, 1, 1)`` booleans."""
        return jax.random.bernoulli(key, 0.5, (batch, 1, 1, 1))

    def _draw_transformation(self, key, shape):
        return {"flips": self._flips(key, shape[0]), "input_shape": self._layer_shape(shape)}

    def _images_from(self, x, transformation):
        flip = jnp.asarray(transformation["flips"]).reshape(-1, 1, 1, 1)
        if "horizontal" in self.mode:
            x = jnp.where(flip, x[:, :, ::-1, :], x)
        if "vertical" in self.mode:
            x = jnp.where(flip, x[:, ::-1, :, :], x)
        return x

    _masks_from = _images_from
    _augment = KerasTransformations._augment_by_transformation
    _augment_masks = KerasTransformations._augment_masks_by_transformation
    _augment_boxes = KerasTransformations._augment_boxes_by_transformation

    def _boxes_from(self, bounding_boxes, transformation, images_shape):
        flip = jnp.asarray(transformation["flips"]).reshape(-1)
        kept = jnp.zeros_like(flip)
        return flip_boxes(bounding_boxes, flip if "horizontal" in self.mode else kept,
                          flip if "vertical" in self.mode else kept,
                          self.bounding_box_format, images_shape[1], images_shape[2])

    def get_config(self):
        return {**super().get_config(), "mode": self.mode}


class _AffineAugmentation(_Augmentation):
    _casts_in_inference = True

    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        if fill_mode not in ("reflect", "wrap", "constant", "nearest"):
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one "
                                      "{'reflect', 'wrap', 'constant', 'nearest'}.")
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of "
                                      "one {'nearest', 'bilinear'}.")
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value

    def _transforms(self, key, batch, height, width):
        """The ``affine_transform`` parameters ``(batch, 8)`` drawn from ``key``."""
        return self._matrices(self._draw_transformation(key, (batch, height, width, 1)),
                              height, width)

    def _images_from(self, x, transformation, interpolation=None):
        transforms = self._matrices(transformation, x.shape[1], x.shape[2])
        return image_ops.affine_transform(x, transforms,
                                          interpolation=interpolation or self.interpolation,
                                          fill_mode=self.fill_mode, fill_value=self.fill_value,
                                          data_format="channels_last")

    def _masks_from(self, masks, transformation):
        return self._images_from(masks, transformation, interpolation="nearest")

    def _boxes_from(self, bounding_boxes, transformation, images_shape):
        height, width = images_shape[1:3]
        return transform_boxes(bounding_boxes, self._matrices(transformation, height, width),
                               self.bounding_box_format, height, width)

    _augment = KerasTransformations._augment_by_transformation
    _augment_masks = KerasTransformations._augment_masks_by_transformation
    _augment_boxes = KerasTransformations._augment_boxes_by_transformation

    def get_config(self):
        return {**super().get_config(), "fill_mode": self.fill_mode,
                "interpolation": self.interpolation, "fill_value": self.fill_value}


def rotation_transforms(angles, height, width):
    """Keras's affine transforms rotating images of ``height x width`` by ``angles`` (radians)
    about their centres."""
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    w, h = width - 1.0, height - 1.0
    x_offset = (w - (cos * w - sin * h)) / 2.0
    y_offset = (h - (sin * w + cos * h)) / 2.0
    zeros = jnp.zeros_like(angles)
    return jnp.stack([cos, -sin, x_offset, sin, cos, y_offset, zeros, zeros], axis=1)


class RandomRotation(_AffineAugmentation):
    """Rotate each image by a random angle in ``factor * 2 pi`` (a number ``f`` is
    ``(-f, f)``)."""

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.factor = factor
        self._range = _factor_range("factor", factor, self._owner)

    def _draw_transformation(self, key, shape):
        lower, upper = self._range
        angles = jax.random.uniform(key, (shape[0],), minval=lower * 2 * math.pi,
                                    maxval=upper * 2 * math.pi)
        batch, height, width = shape[:3]
        return {"angle": angles * (180.0 / math.pi),
                "rotation_matrix": rotation_transforms(angles, height, width),
                "image_height": height, "image_width": width, "batch_size": batch}

    def _matrices(self, transformation, height, width):
        return jnp.asarray(transformation["rotation_matrix"], jnp.float32).reshape(-1, 8)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


class RandomZoom(_AffineAugmentation):
    """Zoom each image by ``1 + u`` with ``u`` from ``height_factor`` (and
    ``width_factor``; None keeps the aspect ratio): negative factors zoom in."""

    # Keras's zoom broadcasts one image's boxes against its (batch, 1) zooms
    _SINGLE_BOXES_BATCHED = True

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._height = _factor_range("height_factor", height_factor, self._owner)
        self._width = None if width_factor is None else _factor_range(
            "width_factor", width_factor, self._owner)
        if self._height[0] < -1.0 or (self._width is not None and self._width[0] < -1.0):
            raise ValueError(f"{self._owner}: factors must be above -1.0.")

    def _draw_transformation(self, key, shape):
        kh, kw = jax.random.split(key)
        batch = shape[0]
        zoom_h = 1.0 + jax.random.uniform(kh, (batch, 1), minval=self._height[0],
                                          maxval=self._height[1])
        zoom_w = zoom_h if self._width is None else 1.0 + jax.random.uniform(
            kw, (batch, 1), minval=self._width[0], maxval=self._width[1])
        return {"height_zoom": zoom_h, "width_zoom": zoom_w,
                "input_shape": self._layer_shape(shape)}

    def _matrices(self, transformation, height, width):
        zoom_h = jnp.asarray(transformation["height_zoom"], jnp.float32).reshape(-1)
        zoom_w = jnp.asarray(transformation["width_zoom"], jnp.float32).reshape(-1)
        x_offset = (width - 1.0) / 2.0 * (1.0 - zoom_w)
        y_offset = (height - 1.0) / 2.0 * (1.0 - zoom_h)
        zeros = jnp.zeros_like(zoom_h)
        return jnp.stack([zoom_w, zeros, x_offset, zeros, zoom_h, y_offset, zeros, zeros], 1)

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor}


class RandomTranslation(_AffineAugmentation):
    """Shift each image by fractions of its height and width."""

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._height = _factor_range("height_factor", height_factor, self._owner, 1.0)
        self._width = _factor_range("width_factor", width_factor, self._owner, 1.0)

    def _draw_transformation(self, key, shape):
        kh, kw = jax.random.split(key)
        batch, height, width = shape[:3]
        dy = jax.random.uniform(kh, (batch,), minval=self._height[0],
                                maxval=self._height[1]) * height
        dx = jax.random.uniform(kw, (batch,), minval=self._width[0],
                                maxval=self._width[1]) * width
        return {"translations": jnp.stack([dx, dy], axis=1),
                "input_shape": self._layer_shape(shape)}

    def _matrices(self, transformation, height, width):
        translations = jnp.asarray(transformation["translations"], jnp.float32).reshape(-1, 2)
        dx, dy = translations[:, 0], translations[:, 1]
        ones, zeros = jnp.ones_like(dx), jnp.zeros_like(dx)
        return jnp.stack([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], axis=1)

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor}


class RandomContrast(_Augmentation):
    """Scale each image's deviation from its per-channel mean by a factor in
    ``[1 - lower, 1 + upper]``, then clip to ``value_range``. As Keras 3: a number ``f``
    is ``(lower, upper) = (0, f)``, so it only raises contrast; a pair is
    ``(lower, upper)``, both within [0, 1]."""

    def __init__(self, factor, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.factor = factor
        lower, upper = _unit_factor(self._owner, factor)
        self._range = (1.0 - lower, 1.0 + upper)
        self.value_range = tuple(value_range)

    def _draw_transformation(self, key, shape):
        return {"contrast_factor": self._draw(key, shape[0]).reshape(-1, 1, 1, 1)}

    def _images_from(self, x, transformation):
        return self._contrast(x, jnp.asarray(transformation["contrast_factor"]))

    _augment = KerasTransformations._augment_by_transformation
    _augment_boxes = _Augmentation._keep_boxes

    def _draw(self, key, batch):
        """One contrast factor per image, ``(batch,)``."""
        return jax.random.uniform(key, (batch,), minval=self._range[0], maxval=self._range[1])

    def _contrast(self, x, factors):
        """``x`` (channels last) with its contrast scaled by ``factors`` (one per image)."""
        factors = factors.reshape(-1, 1, 1, 1).astype(x.dtype)
        mean = jnp.mean(x, axis=(1, 2), keepdims=True)
        return jnp.clip((x - mean) * factors + mean, *self.value_range)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor,
                "value_range": list(self.value_range)}


class RandomBrightness(_Augmentation):
    """Add ``u * (value_range[1] - value_range[0])`` to each image, ``u`` from ``factor``,
    then clip to ``value_range``."""

    def __init__(self, factor, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self._set_factor(factor)
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError(f"{self._owner}: The `value_range` argument should be a list of "
                             f"two numbers. Received: value_range={value_range!r}")
        self.value_range = tuple(sorted(value_range))

    def _set_factor(self, factor):
        """Keras's ``factor`` read into ``(lower, upper)`` (a number ``f``: ``(-f, f)``),
        both within [-1, 1]; Keras's configs keep that pair."""
        self.factor = self._range = _factor_range("factor", factor, self._owner, 1.0)

    def _draw_transformation(self, key, shape):
        return {"rgb_delta": self._draw(key, shape[0]).reshape(-1, 1, 1, 1)}

    def _images_from(self, x, transformation):
        return self._brighten(x, jnp.asarray(transformation["rgb_delta"]))

    _augment = KerasTransformations._augment_by_transformation
    _augment_boxes = _Augmentation._keep_boxes

    def _draw(self, key, batch):
        """One brightness shift per image, ``(batch,)``, in pixel values."""
        low, high = self.value_range
        return jax.random.uniform(key, (batch,), minval=self._range[0],
                                  maxval=self._range[1]) * (high - low)

    def _brighten(self, x, deltas):
        """``x`` (channels last) plus ``deltas`` (one per image), clipped to the range."""
        return jnp.clip(x + deltas.reshape(-1, 1, 1, 1).astype(x.dtype), *self.value_range)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor,
                "value_range": list(self.value_range)}


class RandomCrop(_Augmentation):
    """A random ``height x width`` crop in training, at one position for the whole batch
    (Keras's); the input unchanged in inference (as Keras 3). An image not larger than
    that on both sides: Keras's window at the centred crop of that aspect ratio, resized
    to ``height x width``."""

    _one_draw_per_batch = True

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        super().__init__(seed, data_format, name=name, **kwargs)
        self.height, self.width = int(height), int(width)

    def _window(self, key, h, w):
        """The window ``(top, left, height, width)`` cut from ``h x w`` images."""
        if h > self.height and w > self.width:
            kh, kw = jax.random.split(key)
            top = jax.random.randint(kh, (), 0, h - self.height + 1)
            left = jax.random.randint(kw, (), 0, w - self.width + 1)
            return top, left, self.height, self.width
        crop_h = max(min(h, int(float(w * self.height) / self.width)), 1)
        crop_w = max(min(w, int(float(h * self.width) / self.height)), 1)
        top, left = int(float(h - crop_h) / 2), int(float(w - crop_w) / 2)
        return top, left, min(self.height, h - top), min(self.width, w - left)

    def _augment(self, x, key):
        batch, h, w, channels = x.shape
        top, left, window_h, window_w = self._window(key, h, w)
        window = jax.lax.dynamic_slice(x, (0, top, left, 0), (batch, window_h, window_w,
                                                              channels))
        if (window_h, window_w) == (self.height, self.width):
            return window
        return image_ops.resize(window, (self.height, self.width),
                                data_format="channels_last").astype(x.dtype)

    _augment_masks = _augment

    def _augment_boxes(self, bounding_boxes, images_shape, key):
        """Boxes shifted into the window, scaled where it is resized, and clipped."""
        height, width = images_shape[1:3]
        top, left, window_h, window_w = self._window(key, height, width)
        return crop_boxes(bounding_boxes, top, left, window_h, window_w,
                          self.bounding_box_format, height, width, self.height, self.width)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        axes = (-3, -2) if self.data_format == "channels_last" else (-2, -1)
        shape[axes[0]], shape[axes[1]] = self.height, self.width
        return tuple(shape)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width}
