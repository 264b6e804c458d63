"""Layers with custom gradients (``jax.custom_vjp``), and how to write one.

A layer's ``call`` is plain JAX, so a custom gradient is a ``jax.custom_vjp`` function
called from ``call``. Pass weights and inputs to it as arguments (not through a closure),
so JAX can differentiate with respect to them; it then works under ``apply``, ``jit``,
``grad`` and the Trainer like any layer.

>>> import jax, jax.numpy as jnp
>>> jax.grad(lambda x: ClipGradient(1.0)(x).sum())(jnp.full((1, 4), 3.0)).tolist()
[[0.5, 0.5, 0.5, 0.5]]
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from kgraph.base.layer import Layer

__all__ = ["ClipGradient", "StableNorm", "clip_gradient", "stable_norm"]


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, clip_norm):
    """Identity whose backward pass rescales each sample's gradient to norm <= clip_norm."""
    return x


def _clip_fwd(x, clip_norm):
    return x, None


def _clip_bwd(clip_norm, _, g):
    axes = tuple(range(1, g.ndim))
    norm = jnp.sqrt(jnp.sum(jnp.square(g), axis=axes, keepdims=True))
    return (g * jnp.minimum(1.0, clip_norm / jnp.maximum(norm, 1e-12)),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


class ClipGradient(Layer):
    """Identity forward; clips the per-sample gradient norm flowing back through it."""

    supports_masking = True

    def __init__(self, clip_norm=1.0, **kwargs):
        super().__init__(**kwargs)
        self.clip_norm = float(clip_norm)

    def call(self, inputs):
        return clip_gradient(inputs, self.clip_norm)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "clip_norm": self.clip_norm}


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def stable_norm(x, axis):
    """``||x||`` along ``axis`` whose gradient is finite at 0 (0 there, x/||x|| elsewhere)."""
    return jnp.sqrt(jnp.sum(jnp.square(x), axis=axis, keepdims=True))


def _norm_fwd(x, axis):
    norm = stable_norm(x, axis)
    return norm, (x, norm)


def _norm_bwd(axis, residuals, g):
    x, norm = residuals
    safe = jnp.where(norm > 0, norm, 1.0)
    return (jnp.where(norm > 0, x / safe, 0.0) * g,)


stable_norm.defvjp(_norm_fwd, _norm_bwd)


class StableNorm(Layer):
    """The L2 norm along ``axis`` (kept as a size-1 axis), differentiable at zero."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)

    def call(self, inputs):
        return stable_norm(inputs, self.axis)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        shape[self.axis] = 1
        return tuple(shape)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}
