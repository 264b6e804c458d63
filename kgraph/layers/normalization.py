"""``BatchNormalization``."""

from __future__ import annotations

import jax.numpy as jnp

from kgraph.input_spec import InputSpec
from kgraph.layer import Layer


class BatchNormalization(Layer):
    """Normalize with batch statistics in training, moving statistics in inference.

    Weights: ``gamma``, ``beta`` (trainable); ``moving_mean``, ``moving_variance``
    (non-trainable state, updated only when ``training=True``:
    ``moving = moving * momentum + batch_stat * (1 - momentum)``). A layer with
    ``trainable=False`` runs in inference mode, as in Keras.

    >>> import kgraph as kg
    >>> kg.layers.BatchNormalization()(kg.Input(shape=(3,))).shape
    (None, 3)
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones", **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer

    def build(self, input_shape):
        ndim = len(input_shape)
        axis = self.axis % ndim if -ndim <= self.axis < ndim else None
        if axis is None or input_shape[axis] is None:
            raise ValueError(f'Layer "{self.name}": axis {self.axis} of input shape '
                             f"{input_shape} must exist and be known.")
        self._axis = axis
        size = input_shape[axis]
        if self.scale:
            self.gamma = self.add_weight((size,), self.gamma_initializer, name="gamma")
        if self.center:
            self.beta = self.add_weight((size,), self.beta_initializer, name="beta")
        self.moving_mean = self.add_weight((size,), self.moving_mean_initializer,
                                           trainable=False, name="moving_mean")
        self.moving_variance = self.add_weight((size,), self.moving_variance_initializer,
                                               trainable=False, name="moving_variance")
        self.input_spec = InputSpec(ndim=ndim, axes={self.axis: size})
        self.built = True

    def call(self, inputs, training=None):
        reduce = tuple(i for i in range(inputs.ndim) if i != self._axis)
        broadcast = [1] * inputs.ndim
        broadcast[self._axis] = inputs.shape[self._axis]
        x = inputs.astype(jnp.float32) if inputs.dtype in (jnp.float16, jnp.bfloat16) else inputs
        if training and self.trainable:
            mean = jnp.mean(x, axis=reduce)
            variance = jnp.var(x, axis=reduce)
            m = self.momentum
            self.moving_mean = self.moving_mean * m + mean.astype(self.dtype) * (1 - m)
            self.moving_variance = self.moving_variance * m + variance.astype(self.dtype) * (1 - m)
        else:
            mean, variance = self.moving_mean, self.moving_variance
        inv = jnp.reshape(1.0 / jnp.sqrt(variance + self.epsilon), broadcast)
        if self.scale:
            inv = inv * jnp.reshape(self.gamma, broadcast)
        out = (x - jnp.reshape(mean, broadcast)) * inv
        if self.center:
            out = out + jnp.reshape(self.beta, broadcast)
        return out.astype(inputs.dtype)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "momentum": self.momentum,
                "epsilon": self.epsilon, "center": self.center, "scale": self.scale,
                "beta_initializer": self.beta_initializer,
                "gamma_initializer": self.gamma_initializer,
                "moving_mean_initializer": self.moving_mean_initializer,
                "moving_variance_initializer": self.moving_variance_initializer}
