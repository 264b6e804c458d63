"""Colour augmentation layers (Keras 3's names, arguments, configs and formulas):
``RandomGrayscale``, ``RandomInvert``, ``Solarization``, ``AutoContrast``,
``RandomColorDegeneration``, ``RandomSharpness``, ``RandomPosterization``,
``RandomSaturation``, ``RandomHue``, ``RandomGaussianBlur`` and ``RandomColorJitter``.

The random ones transform only in training and draw one decision (or factor) per image
from the layer's key, as the other augmentation layers; ``AutoContrast`` is deterministic
and applies in inference too, as Keras's.

>>> import jax.numpy as jnp
>>> images = jnp.array([[[[10.0, 20.0, 30.0], [200.0, 100.0, 0.0]]]])  # (1, 1, 2, 3)
>>> RandomInvert(factor=(1.0, 1.0))(images)[0, 0, 0].tolist()  # always inverted: 255 - x
[245.0, 235.0, 225.0]
>>> AutoContrast()(images)[0, 0, :, 0].tolist()  # each channel stretched to [0, 255]
[0.0, 255.0]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph.config import epsilon
from kgraph.layers.augmentation import (RandomBrightness, RandomContrast, _Augmentation,
                                        _unit_factor)
from kgraph.layers.augmentation_transformations import KerasTransformations
from kgraph.ops import image as image_ops

__all__ = [
    "AutoContrast", "RandomColorDegeneration", "RandomColorJitter", "RandomGaussianBlur",
    "RandomGrayscale", "RandomHue", "RandomInvert", "RandomPosterization", "RandomSaturation",
    "RandomSharpness", "Solarization"
]


def _rescale(x, source, target):
    """Keras's ``_transform_value_range``: ``x`` from ``source`` to ``target`` range."""
    if tuple(source) == tuple(target):
        return x
    return (x - source[0]) / (source[1] - source[0]) * (target[1] - target[0]) + target[0]


def _coins(key, batch, factor):
    """Keras's per-image choice: a probability drawn from ``factor`` (``[lower, upper]``),
    then a coin with it; ``(batch,)`` booleans."""
    probability_key, coin_key = jax.random.split(key)
    probability = jax.random.uniform(probability_key, (batch,), minval=factor[0],
                                     maxval=factor[1])
    return jax.random.uniform(coin_key, (batch,)) < probability


def _value_range(owner, value_range):
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(f"{owner}: `value_range` must be a list or tuple of two numbers. "
                         f"Received: value_range={value_range}")
    return sorted(float(v) for v in value_range)


class RandomGrayscale(_Augmentation):
    """Turn each image grey (its luminance in every channel) with probability ``factor``."""

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        if not 0 <= factor <= 1:
            raise ValueError(f"`factor` should be between 0 and 1. Received: factor={factor}")
        self.factor = factor

    def _augment(self, x, key):
        apply = jax.random.uniform(key, (x.shape[0], 1, 1, 1)) < self.factor
        grey = image_ops.rgb_to_grayscale(x, data_format="channels_last")
        return jnp.where(apply, grey, x)

    def compute_output_dtype(self, input_dtype):
        """The input's dtype (Keras's ``RandomGrayscale`` gives its input's spec)."""
        return input_dtype

    def get_config(self):
        config = {**super().get_config(), "factor": self.factor}
        del config["seed"]  # as Keras's RandomGrayscale config
        return config


class RandomInvert(_Augmentation):
    """Replace each image by ``value_range[1] - image`` with a probability drawn from
    ``factor`` (Keras's: a probability in ``[lower, upper]``, then a coin with it)."""

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None,
                 **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.factor = _unit_factor(self._owner, factor)
        self.value_range = value_range

    def _augment(self, x, key):
        apply = _coins(key, x.shape[0], self.factor)[:, None, None, None]
        return jnp.where(apply, self.value_range[1] - x, x)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range}


class Solarization(_Augmentation):
    """Add a random ``addition`` to each image (on the 0..255 scale), then invert the
    pixels at or above a random ``threshold`` (``255 - x``), as Keras: the addition is drawn
    from ``[addition_factor[0], addition_factor[1] * 255]`` and the threshold likewise."""

    _casts_in_inference = True

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255),
                 seed=None, data_format=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.addition_factor = self._factor(addition_factor, "addition_factor")
        self.threshold_factor = self._factor(threshold_factor, "threshold_factor")
        self.value_range = _value_range(self._owner, value_range)

    def _factor(self, factor, name):
        if isinstance(factor, (tuple, list)) and len(factor) == 2:
            values = sorted(float(f) for f in factor)
        elif isinstance(factor, (int, float)) and not isinstance(factor, bool):
            values = [0.0, float(factor)]
        else:
            raise ValueError(f"{self._owner}: `{name}` must be a number or a pair, received "
                             f"{name}={factor}.")
        if any(not 0 <= v <= 1 for v in values):
            raise ValueError(f"{self._owner}: `{name}` must be within [0, 1], received "
                             f"{name}={factor}.")
        return tuple(values)

    def _augment(self, x, key):
        addition_key, threshold_key = jax.random.split(key)
        shape = (x.shape[0], 1, 1, 1)
        additions = jax.random.uniform(addition_key, shape, x.dtype, self.addition_factor[0],
                                       self.addition_factor[1] * 255)
        thresholds = jax.random.uniform(threshold_key, shape, x.dtype,
                                        self.threshold_factor[0], self.threshold_factor[1] * 255)
        x = jnp.clip(_rescale(x, self.value_range, (0, 255)) + additions, 0, 255)
        return _rescale(jnp.where(x < thresholds, x, 255 - x), (0, 255), self.value_range)

    def get_config(self):
        return {**super().get_config(), "addition_factor": self.addition_factor,
                "threshold_factor": self.threshold_factor, "value_range": self.value_range}


class AutoContrast(_Augmentation):
    """Stretch each channel of each image to the full ``value_range`` (its minimum to the
    range's low end, its maximum to the high end); constant channels are left as they
    are. Deterministic: applies in inference too."""

    def __init__(self, value_range=(0, 255), data_format=None, **kwargs):
        super().__init__(None, data_format, **kwargs)
        self.value_range = _value_range(self._owner, value_range)

    def _augment(self, x, key=None):
        original = x
        x = _rescale(x, self.value_range, (0, 255))
        low = jnp.min(x, axis=(1, 2), keepdims=True)
        high = jnp.max(x, axis=(1, 2), keepdims=True)
        scale = 255.0 / (high - low)
        x = jnp.clip(x * scale - low * scale, 0.0, 255.0)
        x = _rescale(x, (0, 255), self.value_range)
        return jnp.where(jnp.isnan(x), original, x)

    def _key(self):
        return None  # deterministic: no key needed

    def _inference(self, inputs):
        return self.call(inputs, training=True)

    def get_config(self):
        config = {**super().get_config(), "value_range": self.value_range}
        del config["seed"]  # as Keras's AutoContrast config
        return config


class RandomColorDegeneration(_Augmentation):
    """Blend each image towards its greyscale version by a factor drawn from ``factor``
    (0: unchanged, 1: grey), then clip to ``value_range``."""

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        # Keras's bounds (-1, 1): a number f is (-f, f)
        self.factor = _unit_factor(self._owner, factor, bounds=(-1, 1))
        self.value_range = _value_range(self._owner, value_range)

    def _augment(self, x, key):
        factor = jax.random.uniform(key, (x.shape[0], 1, 1, 1), x.dtype, *self.factor)
        grey = image_ops.rgb_to_grayscale(x, data_format="channels_last")
        return jnp.clip(x + factor * (grey - x), *self.value_range)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range}


class RandomSharpness(_Augmentation):
    """Blend each image with a smoothed copy by ``1 - 2 * f``, ``f`` drawn from
    ``factor`` (0: blurred, 0.5: unchanged, 1: sharpened), then clip to ``value_range``."""

    _casts_in_inference = True

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.factor = _unit_factor(self._owner, factor)
        self.value_range = _value_range(self._owner, value_range)

    def _augment(self, x, key):
        sharpness = 2 * jax.random.uniform(key, (x.shape[0], 1, 1, 1), x.dtype, *self.factor)
        a, b = 1.0 / 13.0, 5.0 / 13.0
        kernel = jnp.array([[a, a, a], [a, b, a], [a, a, a]], x.dtype)
        channels = x.shape[-1]
        kernel = jnp.tile(kernel[:, :, None, None], (1, 1, 1, channels))
        smoothed = jax.lax.conv_general_dilated(
            x, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
            feature_group_count=channels)
        return jnp.clip(x + (1.0 - sharpness) * (smoothed - x), *self.value_range)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range}


class RandomPosterization(_Augmentation):
    """Keep only the top ``bits`` bits of each 8-bit colour value, ``bits`` drawn per image
    from ``factor`` in 1..8 (a number ``f``: 1 to ``f - 1``, as Keras's ``randint``; a pair
    of equal numbers: always that many)."""

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.factor = _unit_factor(self._owner, factor, bounds=(1, 8))
        self.value_range = _value_range(self._owner, value_range)

    def _augment(self, x, key):
        low, high = int(self.factor[0]), int(self.factor[1])
        shape = (x.shape[0], 1, 1, 1)
        bits = (jax.random.randint(key, shape, low, high) if low != high
                else jnp.full(shape, low)).astype(jnp.uint8)
        shift = jnp.uint8(8) - bits
        values = _rescale(x, self.value_range, (0, 255)).astype(jnp.uint8)
        values = jnp.left_shift(jnp.right_shift(values, shift), shift)
        return _rescale(values.astype(x.dtype), (0, 255), self.value_range)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range}


class RandomSaturation(_Augmentation):
    """Scale each image's saturation by ``f / (1 - f)``, ``f`` drawn from ``factor`` (0.5:
    unchanged, 0: grey, 1: fully saturated), as Keras: in HSV, with the saturation
    clipped to ``value_range``."""

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        # Keras's bounds (-1, 1): a number f is (-f, f)
        self.factor = _unit_factor(self._owner, factor, bounds=(-1, 1))
        self.value_range = _value_range(self._owner, value_range)

    def _augment(self, x, key):
        return self._saturate(x, self._draw(key, x.shape[0]).astype(x.dtype))

    def _draw(self, key, batch):
        """One saturation scale per image, ``(batch,)``."""
        factor = jax.random.uniform(key, (batch,), minval=self.factor[0], maxval=self.factor[1])
        return factor / (1 - factor + epsilon())

    def _saturate(self, x, scale):
        """``x`` (channels last) with its saturation times ``scale`` (one per image)."""
        hsv = image_ops.rgb_to_hsv(x, data_format="channels_last")
        saturation = jnp.clip(hsv[..., 1] * scale[:, None, None], *self.value_range)
        return image_ops.hsv_to_rgb(jnp.stack([hsv[..., 0], saturation, hsv[..., 2]], -1),
                                    data_format="channels_last")

    def get_config(self):
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range}


class RandomHue(_Augmentation):
    """Turn each image's hue by ``+-f / 2`` of a full turn, ``f`` drawn from ``factor``
    and the direction by a coin, as Keras (in HSV, on values rescaled to 0..1)."""

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.factor = _unit_factor(self._owner, factor)
        self.value_range = value_range

    def _augment(self, x, key):
        return self._turn(x, self._draw(key, x.shape[0]).astype(x.dtype))

    def _draw(self, key, batch):
        """One hue turn per image, ``(batch,)``, in full turns."""
        sign_key, factor_key = jax.random.split(key)
        sign = jnp.where(jax.random.uniform(sign_key, (batch,)) > 0.5, -1.0, 1.0)
        factor = jax.random.uniform(factor_key, (batch,), minval=self.factor[0],
                                    maxval=self.factor[1])
        return sign * factor * 0.5

    def _turn(self, x, delta):
        """``x`` (channels last) with its hue turned by ``delta`` (one per image)."""
        x = _rescale(x, self.value_range, (0, 1))
        hsv = image_ops.rgb_to_hsv(x, data_format="channels_last")
        hue = hsv[..., 0] + delta[:, None, None]
        hue = jnp.where(hue > 1.0, hue - 1.0, hue)
        hue = jnp.where(hue < 0.0, hue + 1.0, hue)
        rgb = image_ops.hsv_to_rgb(jnp.stack([hue, hsv[..., 1], hsv[..., 2]], -1),
                                   data_format="channels_last")
        return _rescale(jnp.clip(rgb, 0, 1), (0, 1), self.value_range)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range}


class RandomGaussianBlur(_Augmentation):
    """Blur each image with probability drawn from ``factor`` (Keras's: a probability in
    ``[lower, upper]``, then a coin with it), with one Gaussian ``(sigma_y, sigma_x)``
    drawn from ``sigma`` for the batch, then clip to ``value_range``."""

    _casts_in_inference = True

    def __init__(self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255),
                 data_format=None, seed=None, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.factor = _unit_factor(self._owner, factor)
        sizes = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else (
            kernel_size, kernel_size)
        if len(sizes) != 2 or any(not isinstance(k, int) or k % 2 == 0 for k in sizes):
            raise ValueError(f"{self._owner}: kernel_size must be an odd number (or a pair of "
                             f"them). Received: kernel_size={kernel_size}")
        self.kernel_size = sizes
        self.sigma = _unit_factor(self._owner, sigma, "sigma")
        self.value_range = value_range

    _SINGLE_IMAGE_BATCHED = True

    def _draw_transformation(self, key, shape):
        coin_key, sigma_key = jax.random.split(key)
        apply = _coins(coin_key, shape[0], self.factor)
        sigma = jax.random.uniform(sigma_key, (2,), self.compute_dtype, *self.sigma) + 1e-6
        return {"blur_factor": sigma, "should_apply_blur": apply}

    def _images_from(self, x, transformation):
        return self._blur(x, jnp.asarray(transformation["should_apply_blur"]),
                          jnp.asarray(transformation["blur_factor"]).astype(x.dtype))

    _augment = KerasTransformations._augment_by_transformation

    def _blur(self, x, apply, sigma):
        """``x`` (channels last) blurred where ``apply`` (per image) with ``sigma``."""
        blurred = image_ops.gaussian_blur(x, kernel_size=self.kernel_size,
                                          sigma=(sigma[0], sigma[1]),
                                          data_format="channels_last")
        return jnp.clip(jnp.where(apply[:, None, None, None], blurred, x), *self.value_range)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor,
                "kernel_size": self.kernel_size, "sigma": self.sigma,
                "value_range": self.value_range}


class RandomColorJitter(_Augmentation):
    """Change each image's brightness, contrast, saturation and hue in that order, each
    by its own random amount, as Keras's ``RandomColorJitter``: ``RandomBrightness``,
    ``RandomContrast`` (factor in ``[1 - lower, 1 + upper]``), ``RandomSaturation`` and
    ``RandomHue`` with the given factors; a factor left None skips that step."""

    def __init__(self, value_range=(0, 255), brightness_factor=None, contrast_factor=None,
                 saturation_factor=None, hue_factor=None, seed=None, data_format=None,
                 **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.value_range = value_range
        self.brightness_factor, self.contrast_factor = brightness_factor, contrast_factor
        self.saturation_factor, self.hue_factor = saturation_factor, hue_factor
        value_range = _value_range(self._owner, value_range)

        self._steps = []  # (name, the layer giving its draws, its transform)
        # each factor goes to its layer as it is, read by that layer's rule (as Keras)
        for name, factor, cls, transform in (
                ("brightness", brightness_factor, RandomBrightness, "_brighten"),
                ("contrast", contrast_factor, RandomContrast, "_contrast"),
                ("saturation", saturation_factor, RandomSaturation, "_saturate"),
                ("hue", hue_factor, RandomHue, "_turn")):
            if factor is None:
                continue
            try:  # each step seeded with the jitter's seed, as Keras's
                layer = cls(factor, value_range, seed=seed)
            except ValueError as err:
                raise ValueError(f"{self._owner}: `{name}_factor` is refused "
                                 f"({name}_factor={factor!r}): {err}") from None
            self._steps.append((name, layer, getattr(layer, transform)))

    def _draw(self, key, batch):
        """Each step's per-image amounts: brightness shifts (pixel values), contrast
        factors, saturation scales and hue turns, each ``(batch,)``. Seeded, each step
        draws as its layer would on its own (its seed's stream in an eager call, as
        Keras's step layers do); else from its share of ``key``."""
        keys = jax.random.split(key, 4)
        return {name: layer._draw(keys[i] if self.seed is None else layer._key(), batch)
                for i, (name, layer, _) in enumerate(self._steps)}

    def _jitter(self, x, amounts):
        """``x`` (channels last) through each step with the given per-image amounts."""
        for name, _, transform in self._steps:
            x = transform(x, jnp.asarray(amounts[name]).astype(x.dtype))
        return x

    def _augment(self, x, key):
        return self._jitter(x, self._draw(key, x.shape[0]))

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range,
                "brightness_factor": self.brightness_factor,
                "contrast_factor": self.contrast_factor,
                "saturation_factor": self.saturation_factor, "hue_factor": self.hue_factor}


# Colour layers do not move pixels: their dict form keeps bounding boxes as they are (Keras).
for _layer in (RandomGrayscale, RandomInvert, Solarization, AutoContrast,
               RandomColorDegeneration, RandomSharpness, RandomPosterization, RandomSaturation,
               RandomHue, RandomGaussianBlur, RandomColorJitter):
    _layer._augment_boxes = _Augmentation._keep_boxes
del _layer
