"""Regularization layers: ``SpatialDropout1D/2D/3D``, ``GaussianNoise``, ``GaussianDropout``,
``AlphaDropout``, ``ActivityRegularization`` (Keras 3 semantics).

The random layers are random only in training; each holds a ``SeedGenerator`` (when its
rate or stddev is above 0, as Keras's), which gives its keys: the run's key by layer path
inside a run that has one, else its own ``[seed, count]`` state (see
``kgraph.base.seed_generator``).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from kgraph import regularizers
from kgraph.base.input_spec import InputSpec
from kgraph.base.seed_generator import SeedGenerator
from kgraph.base.layer import Layer
from kgraph.layers import arg_checks
from kgraph.ops import conv_utils as cu
from kgraph.layers.core import Dropout

__all__ = [
    "ActivityRegularization", "AlphaDropout", "GaussianDropout", "GaussianNoise",
    "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D"
]


def _check_rate(rate, name="rate"):
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
        raise ValueError(f"Invalid value received for argument `{name}`. Expected a float "
                         f"value between 0 and 1. Received: {name}={rate}")


class _SpatialDropout(Dropout):
    """Drops whole feature maps: the noise is shared along the spatial axes."""

    _ndim = 3

    def __init__(self, rate, data_format=None, seed=None, **kwargs):
        super().__init__(rate, seed=seed, **kwargs)
        self.data_format = cu.standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=self._ndim)

    def _noise_shape(self, shape):
        if self.data_format == "channels_first":
            return (shape[0], shape[1]) + (1,) * (len(shape) - 2)
        return (shape[0],) + (1,) * (len(shape) - 2) + (shape[-1],)

    def get_config(self):
        config = super().get_config()
        for key in ("noise_shape", "trainable"):  # Keras's SpatialDropout config has neither
            config.pop(key, None)
        return {**config, "data_format": self.data_format}


class SpatialDropout1D(_SpatialDropout):
    """Dropout of whole channels of (batch, steps, channels) inputs.

    >>> import kgraph as kg
    >>> kg.layers.SpatialDropout1D(0.5)(kg.Input(shape=(4, 3))).shape
    (None, 4, 3)
    """

    _ndim = 3

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(rate, data_format="channels_last", seed=seed, **kwargs)

    def get_config(self):
        config = super().get_config()
        config.pop("data_format")
        return config


class SpatialDropout2D(_SpatialDropout):
    """Dropout of whole feature maps of 4-D inputs (``data_format`` says where channels are)."""

    _ndim = 4


class SpatialDropout3D(_SpatialDropout):
    """Dropout of whole feature volumes of 5-D inputs."""

    _ndim = 5


class _NoiseLayer(Layer):
    """A weightless layer that is random in training (keys from its ``seed_generator``)."""

    supports_masking = True
    _builds_at_init = True

    def _hold_seed_generator(self, amount, seed):
        """Keras's: a seed generator only when the layer draws at all (``amount > 0``)."""
        self.seed = seed
        if amount > 0:
            self.seed_generator = SeedGenerator(seed)

    def _key(self):
        return self.seed_generator.next()

    def compute_output_shape(self, input_shape):
        return input_shape


class GaussianNoise(_NoiseLayer):
    """Add N(0, stddev**2) noise in training (a regularizer); identity in inference.

    >>> import kgraph as kg
    >>> kg.layers.GaussianNoise(0.1)(kg.Input(shape=(3,))).shape
    (None, 3)
    """

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(stddev, bool) or not isinstance(stddev, (int, float)) or not (
                0 <= stddev <= 1):
            raise ValueError("Invalid value received for argument `stddev`. Expected a float "
                             f"value between 0 and 1. Received: stddev={stddev}")
        self.stddev = stddev
        self._hold_seed_generator(stddev, seed)

    def call(self, inputs, training=False):
        if training and self.stddev > 0:
            noise = jax.random.normal(self._key(), inputs.shape, inputs.dtype)
            return inputs + noise * jnp.asarray(self.stddev, inputs.dtype)
        return inputs

    def get_config(self):
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}


class GaussianDropout(_NoiseLayer):
    """Multiply by N(1, rate / (1 - rate)) noise in training; identity in inference."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_rate(rate)
        self.rate = rate
        self._hold_seed_generator(rate, seed)

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            stddev = math.sqrt(self.rate / (1.0 - self.rate))
            noise = jax.random.normal(self._key(), inputs.shape, inputs.dtype)
            return inputs * (1.0 + noise * jnp.asarray(stddev, inputs.dtype))
        return inputs

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


class AlphaDropout(_NoiseLayer):
    """Dropout that keeps the mean and variance of (SELU) inputs: dropped units are set to
    SELU's negative saturation value, then an affine correction is applied."""

    _ALPHA = 1.6732632423543772848170429916717
    _SCALE = 1.0507009873554804934193349852946

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_rate(rate)
        self.rate = rate
        self.noise_shape = list(noise_shape) if noise_shape is not None else None
        self._hold_seed_generator(rate, seed)

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        shape = inputs.shape
        if self.noise_shape is not None:
            shape = tuple(s if n is None else n for s, n in zip(inputs.shape, self.noise_shape))
        alpha_p = -self._ALPHA * self._SCALE
        kept = (jax.random.uniform(self._key(), shape) >= self.rate).astype(inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = inputs * kept + alpha_p * (1 - kept)
        return (a * x + b).astype(inputs.dtype)

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed,
                "noise_shape": self.noise_shape}


class ActivityRegularization(Layer):
    """Identity that adds ``(l1 * sum(|x|) + l2 * sum(x**2)) / batch_size`` of its input to
    the loss (Keras 3 normalizes activity penalties by the batch size; padding rows of the
    call context's ``sample_mask`` count for nothing)."""

    supports_masking = True
    _builds_at_init = True

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(**kwargs)
        arg_checks.number(f'Layer "{self.name}" (ActivityRegularization)', "l1", l1, low=0)
        arg_checks.number(f'Layer "{self.name}" (ActivityRegularization)', "l2", l2, low=0)
        self.l1 = l1
        self.l2 = l2
        self._penalty = regularizers.L1L2(l1=l1, l2=l2)

    def call(self, inputs):
        self._record_loss(regularizers.activity_penalty(self._penalty, inputs),
                          batch_wide=False)  # (activity_penalty leaves padding rows out)
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "l1": self.l1, "l2": self.l2}
