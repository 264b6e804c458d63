"""``SpectralNormalization``: a wrapper dividing its layer's kernel (or embeddings) by its
largest singular value, estimated by power iteration (Keras's layer, for GAN critics).

In training, each call runs one (``power_iterations``) power-iteration step from the
non-trainable ``vector_u``, stores the new ``vector_u`` and runs the wrapped layer on
``kernel / sigma``; the gradient flows through that division (``u`` and ``v`` held
constant), and the trainable kernel itself keeps its value, as in Keras's ``fit`` on JAX.
In inference the wrapped layer runs on its kernel as stored.

>>> import jax.numpy as jnp
>>> import kgraph as kg
>>> layer = SpectralNormalization(kg.layers.Dense(4))
>>> layer(jnp.ones((2, 3)), training=True).shape, [w.name for w in layer.weights]
((2, 4), ['kernel', 'vector_u', 'bias'])
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph import initializers
from kgraph.interpreter import context
from kgraph.layers.wrappers import Wrapper
from kgraph.ops.nn import normalize

__all__ = ["SpectralNormalization"]


class SpectralNormalization(Wrapper):
    """Spectral normalization of ``layer``'s ``kernel`` (``Dense``, ``Conv*``, ...) or
    ``embeddings`` (``Embedding``)."""

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError("`power_iterations` should be greater than zero. Received: "
                             f"`power_iterations={power_iterations}`")
        self.power_iterations = power_iterations

    def build(self, input_shape):
        super().build(input_shape)
        kernel = self._kernel_variable()
        if kernel is None:
            raise ValueError(f'Layer "{self.name}" (SpectralNormalization): '
                             f"{type(self.layer).__name__} object has no attribute 'kernel' "
                             "nor 'embeddings'")
        self.vector_u = self.add_weight(
            shape=(1, kernel.shape[-1]), initializer=initializers.TruncatedNormal(stddev=0.02),
            trainable=False, name="vector_u", dtype=kernel.dtype)

    def _kernel_variable(self):
        """The wrapped layer's ``kernel`` (or ``embeddings``) weight, or None."""
        weights = getattr(self.layer, "_var_attrs", None) or {}
        return weights.get("kernel", weights.get("embeddings"))

    def _listed_variables(self):  # Keras tracks the kernel as the wrapper's own too
        kernel = self._kernel_variable() if self.built else None
        return self._own_variables if kernel is None else [kernel, *self._own_variables]

    def _keras_ordered_variables(self):
        return self._listed_variables()

    @property
    def kernel(self):
        return self._kernel_variable().value

    def normalized_weights(self, kernel, vector_u):
        """``(new vector_u, kernel / sigma)`` after the power-iteration steps."""
        weights = jnp.reshape(kernel, (-1, kernel.shape[-1]))
        for _ in range(self.power_iterations):
            vector_v = normalize(vector_u @ weights.T, axis=None)
            vector_u = normalize(vector_v @ weights, axis=None)
        vector_u = jax.lax.stop_gradient(vector_u)
        vector_v = jax.lax.stop_gradient(vector_v)
        sigma = (vector_v @ weights) @ vector_u.T
        return vector_u.astype(self.vector_u.dtype), (kernel / sigma).astype(kernel.dtype)

    def call(self, inputs, training=False):
        if not training:
            return jnp.asarray(self.layer(inputs)).astype(jnp.result_type(inputs))
        variable = self._kernel_variable()
        kernel, vector_u = variable.value, self.vector_u
        new_u, new_kernel = jax.lax.cond(
            jnp.all(kernel == 0), lambda: (vector_u, kernel),
            lambda: self.normalized_weights(kernel, vector_u))
        self.vector_u = new_u
        output = context.with_weights({variable: new_kernel}, self.layer, inputs)
        return jnp.asarray(output).astype(jnp.result_type(inputs))

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self):
        return {**super().get_config(), "power_iterations": self.power_iterations}
