"""More of ``keras.ops.nn``: pooling, normalization and space/depth moves.
Star-imported by ``kgraph.ops.nn``."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp

from kgraph import config
from kgraph.base.tensor_kinds import dense_only
from kgraph.ops.registry import register_op

__all__ = ["average_pool", "batch_normalization",
           "depth_to_space", "layer_normalization", "max_pool",
           "multi_hot", "polar", "psnr", "rms_normalization", "space_to_depth"]


def _window_args(inputs, pool_size, strides, data_format):
    rank = inputs.ndim - 2
    size = (pool_size,) * rank if isinstance(pool_size, int) else tuple(pool_size)
    strides = size if strides is None else (
        (strides,) * rank if isinstance(strides, int) else tuple(strides))
    if (data_format or config.image_data_format()) == "channels_last":
        return (1, *size, 1), (1, *strides, 1)
    return (1, 1, *size), (1, 1, *strides)


@register_op("max_pool")
def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Max over windows of ``pool_size`` (``strides`` default: ``pool_size``)."""
    window, strides = _window_args(inputs, pool_size, strides, data_format)
    low = -jnp.inf if jnp.issubdtype(inputs.dtype, jnp.floating) else jnp.iinfo(
        inputs.dtype).min
    return jax.lax.reduce_window(inputs, jnp.asarray(low, inputs.dtype), jax.lax.max, window,
                                 strides, padding.upper())


@register_op("average_pool")
def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Mean over windows (with "same" padding, over the real entries only, as Keras)."""
    window, strides = _window_args(inputs, pool_size, strides, data_format)
    zero = jnp.zeros((), inputs.dtype)
    total = jax.lax.reduce_window(inputs, zero, jax.lax.add, window, strides, padding.upper())
    if padding.lower() == "valid":
        return total / jnp.prod(jnp.asarray(window)).astype(inputs.dtype)
    count = jax.lax.reduce_window(jnp.ones(inputs.shape, inputs.dtype), zero, jax.lax.add,
                                  window, strides, "SAME")
    return total / count


@register_op("batch_normalization",
             tensors=("x", "mean", "variance", "offset", "scale"))
def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset`` along ``axis``; each of
    ``mean``, ``variance``, ``offset``, ``scale`` a vector of length ``x.shape[axis]``."""
    for name, vector in (("mean", mean), ("variance", variance), ("offset", offset),
                         ("scale", scale)):
        if vector is not None and tuple(jnp.shape(vector)) != (x.shape[axis],):
            raise ValueError(f"ops.batch_normalization: Arguments `{name}` must be a vector "
                             f"of length `x.shape[axis]`. Expected: `{(x.shape[axis],)}`. "
                             f"Received: `{tuple(jnp.shape(vector))}`.")
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    inv = jax.lax.rsqrt(jnp.reshape(variance, shape) + epsilon)
    if scale is not None:
        inv = inv * jnp.reshape(scale, shape)
    out = (x - jnp.reshape(mean, shape)) * inv
    return out if offset is None else out + jnp.reshape(offset, shape)


def _check_layer_normalization(axis=-1, epsilon=None, rms_scaling=False):
    if rms_scaling:
        warnings.warn("You passed `rms_scaling=True`, which is deprecated. This argument "
                      "incorrectly scales the input by the variance, not the root mean "
                      "square. To correctly use RMS Normalization, please use "
                      "`keras.ops.rms_normalization` / `keras.ops.nn.rms_normalization` "
                      "instead.", stacklevel=4)


@register_op("layer_normalization", tensors=3, check=_check_layer_normalization)
def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, rms_scaling=False):
    """Normalize over ``axis`` to zero mean and unit variance, then scale and shift
    (``rms_scaling``, deprecated as in Keras: divide by the variance's root only).
    ``gamma`` and ``beta`` of lower rank than ``x`` normalized over other than its last
    axis are laid along ``axis`` (Keras's reshape)."""
    epsilon = config.epsilon() if epsilon is None else epsilon
    x = jnp.asarray(x)
    compute = jnp.promote_types(x.dtype, jnp.float32)
    values = x.astype(compute)
    axes = sorted(a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis))
    if axes != [x.ndim - 1]:
        along = tuple(x.shape[d] if d in axes else 1 for d in range(x.ndim))
        gamma, beta = (v if v is None or jnp.ndim(v) == x.ndim else jnp.reshape(v, along)
                       for v in (gamma, beta))
    axis = tuple(axes)
    variance = jnp.var(values, axis=axis, keepdims=True)
    if rms_scaling:
        out = values * jax.lax.rsqrt(variance + epsilon)
        return (out if gamma is None else out * gamma).astype(x.dtype)
    mean = jnp.mean(values, axis=axis, keepdims=True)
    out = (values - mean) * jax.lax.rsqrt(variance + epsilon)
    if gamma is not None:
        out = out * gamma
    if beta is not None:
        out = out + beta
    return out.astype(x.dtype)


@register_op("rms_normalization", tensors=2)
def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """``x / sqrt(mean(x**2) + epsilon) * scale`` over ``axis``."""
    epsilon = config.epsilon() if epsilon is None else epsilon
    compute = jnp.promote_types(x.dtype, jnp.float32)
    values = x.astype(compute)
    out = values * jax.lax.rsqrt(jnp.mean(jnp.square(values), axis=axis, keepdims=True)
                                 + epsilon)
    if scale is not None:
        out = out * scale
    return out.astype(x.dtype)


@register_op("multi_hot")
def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False):
    """1 for every class present in each sample of integer ``inputs`` (as Keras's: the
    one-hot encoding reduced over axis 1, or 0 for a vector)."""
    dense_only("ops.multi_hot", sparse)
    encoded = jax.nn.one_hot(inputs, num_classes, axis=axis, dtype=dtype or config.floatx())
    return jnp.max(encoded, axis=1 if jnp.ndim(inputs) > 1 else 0)


@register_op("psnr", tensors=2)
def psnr(x1, x2, max_val):
    """Peak signal-to-noise ratio in dB of two arrays of one shape."""
    if jnp.shape(x1) != jnp.shape(x2):
        raise ValueError(f"ops.psnr: Input shapes {jnp.shape(x1)} and {jnp.shape(x2)} must "
                         "match for PSNR calculation.")
    mse = jnp.mean(jnp.square(x1 - x2))
    return 20.0 * jnp.log10(max_val) - 10.0 * jnp.log10(mse)


@register_op("polar", tensors=2, elementwise=True)
def polar(abs_, angle):
    """The complex numbers ``abs_ * exp(i * angle)``."""
    return abs_ * (jnp.cos(angle) + 1j * jnp.sin(angle))


def _check_block_size(block_size, data_format="channels_last"):
    if block_size < 2:
        raise ValueError(f"`block_size` must be at least 2. Received: block_size={block_size}")


@register_op("depth_to_space", check=_check_block_size)
def depth_to_space(x, block_size, data_format="channels_last"):
    """Move channel blocks into ``block_size x block_size`` spatial tiles."""
    b = block_size
    if data_format == "channels_first":
        n, c, h, w = x.shape
        x = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
        return x.reshape(n, c // (b * b), h * b, w * b)
    n, h, w, c = x.shape
    x = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(n, h * b, w * b, c // (b * b))


@register_op("space_to_depth", check=_check_block_size)
def space_to_depth(x, block_size, data_format="channels_last"):
    """Move ``block_size x block_size`` spatial tiles into channels."""
    b = block_size
    if data_format == "channels_first":
        n, c, h, w = x.shape
        x = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
        return x.reshape(n, c * b * b, h // b, w // b)
    n, h, w, c = x.shape
    x = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(n, h // b, w // b, b * b * c)
