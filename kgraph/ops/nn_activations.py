"""The activation ops of ``keras.ops.nn``, and their math: on arrays they compute, on
KerasTensors they add a graph node. ``kgraph.activations`` (Keras's ``keras.activations``)
is written on these, so an activation applied to a symbolic tensor is a node too.
Star-imported by ``kgraph.ops.nn``.

Two ops have no ``keras.ops`` name: ``relu`` with a slope, a cap or a threshold, and
``mish``; Keras writes them as its ``activations`` module's ``ReLU`` and ``Mish`` ops.

>>> import jax.numpy as jnp
>>> soft_shrink(jnp.array([-1.0, 0.2, 2.0])).tolist()
[-0.5, 0.0, 1.5]
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp

from kgraph.ops.registry import register_array_function, register_op, static_axis as _axis
from kgraph.ops.shape_rules import canonical_axis

_JAX_ACTIVATIONS = {
    "relu": jax.nn.relu, "relu6": jax.nn.relu6, "sigmoid": jax.nn.sigmoid,
    "silu": jax.nn.silu, "swish": jax.nn.silu, "softplus": jax.nn.softplus,
    "softsign": jax.nn.soft_sign, "selu": jax.nn.selu, "log_sigmoid": jax.nn.log_sigmoid,
    "hard_sigmoid": jax.nn.hard_sigmoid, "hard_silu": jax.nn.hard_silu,
    "hard_swish": jax.nn.hard_silu, "hard_tanh": jax.nn.hard_tanh,
    "sparse_plus": jax.nn.sparse_plus, "sparse_sigmoid": jax.nn.sparse_sigmoid,
}
for _name, _fn in _JAX_ACTIVATIONS.items():
    globals()[_name] = register_array_function(_name, _fn, ("x",))

__all__ = sorted([*_JAX_ACTIVATIONS, "celu", "elu", "gelu", "glu", "hard_shrink",
                  "leaky_relu", "log_softmax", "soft_shrink", "softmax", "sparsemax",
                  "squareplus", "tanh_shrink", "threshold"])


@register_op("softmax")
def softmax(x, axis=-1):
    """``jax.nn.softmax``; warns, as Keras, when ``axis`` has size 1 (the result is 1)."""
    shape = jnp.shape(x)
    if isinstance(axis, int) and -len(shape) <= axis < len(shape) and shape[axis] == 1:
        warnings.warn(f"You are using a softmax over axis {axis} of a tensor of shape "
                      f"{tuple(shape)}. This axis has size 1. The softmax operation will "
                      "always return the value 1, which is likely not what you intended. "
                      "Did you mean to use a sigmoid instead?", stacklevel=3)
    return jax.nn.softmax(x, axis=_axis(axis))


@register_op("log_softmax")
def log_softmax(x, axis=-1):
    return jax.nn.log_softmax(x, axis=_axis(axis))


@register_op("gelu", elementwise=True)
def gelu(x, approximate=True):
    return jax.nn.gelu(x, approximate=approximate)


@register_op("leaky_relu", elementwise=True)
def leaky_relu(x, negative_slope=0.2):
    return jax.nn.leaky_relu(x, negative_slope=negative_slope)


@register_op("elu", elementwise=True)
def elu(x, alpha=1.0):
    return jax.nn.elu(x, alpha=alpha)


@register_op("celu", elementwise=True)
def celu(x, alpha=1.0):
    return jax.nn.celu(x, alpha)


@register_op("tanh_shrink", elementwise=True)
def tanh_shrink(x):
    return x - jnp.tanh(x)


@register_op("soft_shrink", elementwise=True)
def soft_shrink(x, threshold=0.5):
    zero = jnp.zeros((), x.dtype)
    return jnp.where(x > threshold, x - threshold, jnp.where(x < -threshold, x + threshold, zero))


@register_op("hard_shrink", elementwise=True)
def hard_shrink(x, threshold=0.5):
    return jnp.where(jnp.abs(x) > threshold, x, jnp.zeros((), x.dtype))


@register_op("squareplus", elementwise=True)
def squareplus(x, b=4):
    return jax.nn.squareplus(x, b)


@register_op("glu")
def glu(x, axis=-1):
    return jax.nn.glu(x, axis=axis)


@register_op("threshold", elementwise=True)
def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    x = jnp.asarray(x)
    return jnp.where(x > threshold, x, jnp.asarray(default_value, x.dtype))


@register_op("sparsemax")
def sparsemax(x, axis=-1):
    """Euclidean projection onto the probability simplex (sparse softmax).

    ``tau = (sum of the k largest entries - 1) / k``; Keras 3.15's backends sum the
    cumulative sums instead, which does not give a distribution (e.g. all zeros for equal
    entries), so this follows the paper (Martins & Astudillo, 2016), not that code."""
    axis = canonical_axis(axis, x.ndim)
    ordered = -jnp.sort(-x, axis=axis)
    cumsum = jnp.cumsum(ordered, axis=axis)
    rank_shape = [1] * x.ndim
    rank_shape[axis] = -1
    ranks = jnp.arange(1, x.shape[axis] + 1, dtype=x.dtype).reshape(rank_shape)
    support = ordered - (cumsum - 1) / ranks > 0
    k = jnp.sum(support, axis=axis, keepdims=True)
    tau = (jnp.take_along_axis(cumsum, k - 1, axis=axis) - 1) / k
    return jnp.maximum(x - tau, 0.0).astype(x.dtype)


def _relu_with(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Keras's relu: ``x`` above ``threshold`` (clipped at ``max_value``), a
    ``negative_slope`` line below it."""
    negative_part = jax.nn.relu(threshold - x) if negative_slope != 0.0 else None
    if threshold != 0.0:
        x = jnp.where(x > threshold, x, jnp.zeros((), x.dtype))
    else:
        x = jax.nn.relu(x)
    if max_value is not None:
        x = jnp.clip(x, 0.0, max_value).astype(x.dtype)
    if negative_part is not None:
        x = x - negative_slope * negative_part
    return x


# Keras's ``activations.ReLU`` and ``activations.Mish`` ops, which ``kgraph.activations``
# calls; not ``keras.ops`` names (so outside ``__all__``).
relu_activation = register_op("relu_activation", elementwise=True)(_relu_with)
mish_activation = register_op("mish", elementwise=True)(jax.nn.mish)
