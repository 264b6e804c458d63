"""Augmentation policies: ``RandAugment`` and ``AugMix`` (Keras 3's names, arguments,
configs and sub-layers), composed from kgraph's augmentation layers.

Both choose their operations afresh at every call from the layer's key (one operation for
the whole batch at each step, each image with its own parameters, as Keras), with
``jax.lax.switch``: inside a compiled program the choice stays random from step to step.
Each sub-layer draws its parameters once per call, so an operation chosen twice in a
call applies the same parameters twice, as in Keras.

>>> import jax.numpy as jnp
>>> images = jnp.full((2, 8, 8, 3), 100.0)
>>> RandAugment(num_ops=2, factor=0.3, seed=1)(images).shape
(2, 8, 8, 3)
>>> AugMix(seed=1)(images, training=False) is images
True
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph.layers.augmentation import (RandomBrightness, RandomContrast, RandomRotation,
                                        RandomTranslation, _Augmentation, _unit_factor)
from kgraph.layers.augmentation_color import (AutoContrast, RandomColorDegeneration,
                                              RandomPosterization, RandomSharpness,
                                              Solarization)
from kgraph.layers.augmentation_histogram import Equalization
from kgraph.layers.augmentation_boxes import policy_boxes
from kgraph.layers.augmentation_warp import RandomShear

__all__ = ["AugMix", "RandAugment"]

_GEOMETRIC_AND_TONAL = ["random_shear", "random_translation", "random_rotation",
                        "random_posterization", "solarization", "auto_contrast",
                        "equalization"]
_GEOMETRIC = _GEOMETRIC_AND_TONAL[:3]  # the operations that move pixels (and boxes)
_COLOUR = ["random_brightness", "random_color_degeneration", "random_contrast",
           "random_sharpness"]


class _Policy(_Augmentation):
    """Base: Keras's sub-layers (as attributes of Keras's names) and the per-batch choice
    among them."""

    _OPERATIONS: list = []

    def __init__(self, value_range, factor, interpolation, seed, data_format, **kwargs):
        super().__init__(seed, data_format, **kwargs)
        self.value_range = tuple(value_range)
        self.factor = _unit_factor(self._owner, factor)
        self.interpolation = interpolation
        f, options = self.factor, {"value_range": self.value_range}
        made = {
            "random_shear": lambda: RandomShear(x_factor=f, y_factor=f,
                                                interpolation=interpolation),
            "random_translation": lambda: RandomTranslation(f, f, interpolation=interpolation),
            "random_rotation": lambda: RandomRotation(f, interpolation=interpolation),
            "random_brightness": lambda: RandomBrightness(f, **options),
            "random_color_degeneration": lambda: RandomColorDegeneration(f, **options),
            "random_contrast": lambda: RandomContrast(f, **options),
            "random_sharpness": lambda: RandomSharpness(f, **options),
            "random_posterization": lambda: RandomPosterization(max(1, int(8 * f[1])),
                                                                **options),
            "solarization": lambda: Solarization(addition_factor=f, threshold_factor=f,
                                                 **options),
            "auto_contrast": lambda: AutoContrast(**options),
            "equalization": lambda: Equalization(**options),
        }
        for name in self._operations():
            setattr(self, name, made[name]())

    def _operations(self) -> list:
        return list(self._OPERATIONS)

    def _branches(self, key, masks=False):
        """One function of the images per operation, each with its own key."""
        names = self._operations()
        keys = jax.random.split(key, len(names))

        def branch(name, op_key):
            layer = getattr(self, name)
            apply = layer._augment_masks if masks else layer._augment
            return lambda x: apply(x, op_key).astype(x.dtype)

        return [branch(name, k) for name, k in zip(names, keys)]

    def get_config(self):
        return {**super().get_config(), "value_range": list(self.value_range),
                "factor": list(self.factor), "interpolation": self.interpolation}


class RandAugment(_Policy):
    """``num_ops`` operations in turn, each chosen uniformly among Keras's eleven (shear,
    translation, rotation, brightness, colour degeneration, contrast, sharpness,
    posterization, solarization, auto-contrast, equalization) with strength ``factor``."""

    _OPERATIONS = _GEOMETRIC_AND_TONAL[:3] + _COLOUR + _GEOMETRIC_AND_TONAL[3:]

    def __init__(self, value_range=(0, 255), num_ops=2, factor=0.5, interpolation="bilinear",
                 seed=None, data_format=None, **kwargs):
        super().__init__(value_range, factor, interpolation, seed, data_format, **kwargs)
        self.num_ops = int(num_ops)

    def _choices(self, key):
        return jax.random.randint(key, (self.num_ops,), 0, len(self._OPERATIONS))

    def _apply(self, x, choices, key, masks=False):
        """``x`` after the operations ``choices`` (indices into ``_OPERATIONS``), as one
        scan over the steps: each operation is compiled once, however many steps."""
        branches = self._branches(key, masks)

        def step(y, choice):
            return jax.lax.switch(choice, branches, y), None

        return jax.lax.scan(step, x, jnp.asarray(choices))[0]

    def _augment(self, x, key):
        choice_key, op_key = jax.random.split(key)
        return self._apply(x, self._choices(choice_key), op_key)

    def _augment_masks(self, masks, key):
        choice_key, op_key = jax.random.split(key)
        return self._apply(masks, self._choices(choice_key), op_key, masks=True)

    def _augment_boxes(self, bounding_boxes, images_shape, key):
        """Boxes moved by the geometric operations chosen, in turn, with their draws."""
        choice_key, op_key = jax.random.split(key)
        batch, height, width = images_shape[:3]
        keys = jax.random.split(op_key, len(self._OPERATIONS))  # as ``_branches``
        kept = jnp.tile(jnp.array([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]), (batch, 1))
        moves = [name in _GEOMETRIC for name in self._OPERATIONS]
        transforms = jnp.stack([
            getattr(self, name)._transforms(k, batch, height, width) if move else kept
            for name, k, move in zip(self._OPERATIONS, keys, moves)])
        return policy_boxes(bounding_boxes, self._choices(choice_key), transforms, moves,
                            self.bounding_box_format, height, width)

    def get_config(self):
        return {**super().get_config(), "num_ops": self.num_ops}


class AugMix(_Policy):
    """``num_chains`` chains of up to ``chain_depth`` operations (each step an operation
    or none, uniformly), mixed with Dirichlet(``alpha``) weights, then blended with the
    image by a Beta(``alpha``, ``alpha``) weight and clipped to ``value_range``.
    ``all_ops=False`` leaves out brightness, colour, contrast and sharpness."""

    def __init__(self, value_range=(0, 255), num_chains=3, chain_depth=3, factor=0.3,
                 alpha=1.0, all_ops=True, interpolation="bilinear", seed=None,
                 data_format=None, **kwargs):
        self.all_ops = bool(all_ops)
        super().__init__(value_range, factor, interpolation, seed, data_format, **kwargs)
        self.num_chains, self.chain_depth, self.alpha = int(num_chains), int(chain_depth), alpha

    def _operations(self):
        return _GEOMETRIC_AND_TONAL + (_COLOUR if self.all_ops else [])

    def _draw(self, key):
        """Each chain's mixing weight, the image's weight, and each step's choice
        (``len(operations)`` for none)."""
        mix_key, weight_key, choice_key = jax.random.split(key, 3)
        gamma = jax.random.gamma(mix_key, self.alpha, (self.num_chains,))
        mixing = gamma / jnp.sum(gamma)
        weight = jax.random.beta(weight_key, self.alpha, self.alpha)
        choices = jax.random.randint(choice_key, (self.num_chains, self.chain_depth), 0,
                                     len(self._operations()) + 1)
        return mixing, weight, choices

    def _mix(self, x, mixing, weight, choices, key, masks=False):
        """The images (or masks) after the chains ``choices`` (``(chains, depth)``
        indices; the last means none), mixed by ``mixing`` and blended by ``weight``.
        Chains and steps are scans: each operation is compiled once."""
        steps = jnp.asarray(choices).reshape(-1)
        step_keys = jax.random.split(key, max(steps.shape[0], 1))[:steps.shape[0]]

        def step(y, choice_and_key):
            choice, step_key = choice_and_key
            return jax.lax.switch(choice, self._branches(step_key, masks) + [lambda z: z],
                                  y), None

        def chain(mixed, chain_inputs):
            chain_choices, chain_keys, share = chain_inputs
            y = jax.lax.scan(step, x, (chain_choices, chain_keys))[0]
            return mixed + y * share.astype(x.dtype), None

        shape = (self.num_chains, self.chain_depth)
        mixed = jax.lax.scan(chain, jnp.zeros_like(x), (
            steps.reshape(shape), step_keys.reshape(*shape, *step_keys.shape[1:]),
            jnp.asarray(mixing)))[0]
        weight = jnp.asarray(weight).astype(x.dtype)
        out = weight * x + (1 - weight) * mixed
        return out if masks else jnp.clip(out, *self.value_range)

    def _augment(self, x, key):
        draw_key, op_key = jax.random.split(key)
        return self._mix(x, *self._draw(draw_key), op_key)

    def _augment_masks(self, masks, key):
        draw_key, op_key = jax.random.split(key)
        return self._mix(masks, *self._draw(draw_key), op_key, masks=True)

    def get_config(self):
        return {**super().get_config(), "num_chains": self.num_chains,
                "chain_depth": self.chain_depth, "alpha": self.alpha, "all_ops": self.all_ops}


# AugMix keeps bounding boxes as they are (Keras).
AugMix._augment_boxes = _Augmentation._keep_boxes
