"""``keras.ops.image``: resizing, affine, perspective and elastic warps, scale-and-translate,
colour conversions, crops, pads, 2D and 3D patches and blurs on batched
``(batch, height, width, channels)`` images or single images, in ``data_format`` (default
``config.image_data_format()``).

>>> from kgraph import ops
>>> ops.image.resize(ops.ones((1, 4, 4, 3)), (2, 2)).shape
(1, 2, 2, 3)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph import config, random as kg_random
from kgraph.interpreter import context
from kgraph.ops.image_checks import (check_channels, check_float, check_rank, check_size,
                                     margins, margins_spec)
from kgraph.ops.registry import register_op

__all__ = [
    "affine_transform", "crop_images", "elastic_transform", "extract_patches",
    "extract_patches_3d", "gaussian_blur", "hsv_to_rgb", "map_coordinates", "pad_images",
    "perspective_transform", "resize", "rgb_to_grayscale", "rgb_to_hsv", "scale_and_translate",
    "sobel_edges", "ssim"
]


_ORDER = {"nearest": 0, "bilinear": 1}
_FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def _format(data_format):
    return data_format or config.image_data_format()


def _to_last(images, data_format):
    """Batched, channels-last images and a function that undoes both changes."""
    single = images.ndim == 3
    x = images[None] if single else images
    first = _format(data_format) == "channels_first"
    if first:
        x = jnp.moveaxis(x, 1, -1)

    def back(y):
        y = jnp.moveaxis(y, -1, 1) if first else y
        return y[0] if single else y

    return x, back


_check_rank = check_rank


@register_op("resize")
def resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
           pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    """Resize to ``size = (height, width)`` (``jax.image.resize``), optionally cropping or
    padding (centred) to the target aspect ratio first, as Keras."""
    check_size(size)
    _check_rank("resize", images)
    if fill_mode != "constant":
        raise ValueError(f"resize: only fill_mode='constant' is supported, as Keras; received "
                         f"fill_mode={fill_mode!r}.")
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be "
                         "`True`.")
    x, back = _to_last(images, data_format)
    target_h, target_w = size
    h, w = x.shape[1], x.shape[2]
    if crop_to_aspect_ratio:
        ch = max(min(h, int(float(w * target_h) / target_w)), 1)
        cw = max(min(w, int(float(h * target_w) / target_h)), 1)
        top, left = int(float(h - ch) / 2), int(float(w - cw) / 2)
        x = x[:, top:top + ch, left:left + cw, :]
    elif pad_to_aspect_ratio:
        ph = max(h, int(float(w * target_h) / target_w))
        pw = max(w, int(float(h * target_w) / target_h))
        top, left = int(float(ph - h) / 2), int(float(pw - w) / 2)
        x = jnp.pad(x, ((0, 0), (top, top), (left, left), (0, 0)), constant_values=fill_value)
    method = {"bilinear": "linear", "bicubic": "cubic", "lanczos3": "lanczos3",
              "lanczos5": "lanczos5", "nearest": "nearest", "area": "linear"}.get(interpolation)
    if method is None:
        raise ValueError(f"Invalid value for argument `interpolation`: {interpolation!r}.")
    out = jax.image.resize(x, (x.shape[0], target_h, target_w, x.shape[3]), method=method,
                           antialias=antialias or interpolation == "area")
    if jnp.issubdtype(images.dtype, jnp.integer):  # rounded and saturated, as Keras
        limits = jnp.iinfo(images.dtype)
        out = jnp.clip(jnp.round(out), limits.min, limits.max)
    return back(out.astype(images.dtype))


@register_op("map_coordinates", tensors=2)
def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """Sample ``inputs`` at ``coordinates`` (one array per input axis), with nearest
    (``order=0``) or linear (``order=1``) interpolation."""
    if fill_mode not in _FILL_MODES:
        raise ValueError(f"Invalid value for argument `fill_mode`. Expected one of "
                         f"{_FILL_MODES}. Received: fill_mode={fill_mode}")
    inputs, coordinates = jnp.asarray(inputs), jnp.asarray(coordinates)  # other libraries' arrays
    if coordinates.ndim < 2:
        raise ValueError(f"map_coordinates: Invalid coordinates rank: expected at least rank "
                         f"2. Received input with shape: {tuple(coordinates.shape)}")
    if coordinates.shape[0] != jnp.ndim(inputs):
        raise ValueError(f"map_coordinates: First dim of `coordinates` must be the same as the "
                         f"rank of `inputs`. Received inputs with shape: "
                         f"{tuple(jnp.shape(inputs))} and coordinate leading dim of "
                         f"{coordinates.shape[0]}")
    return jax.scipy.ndimage.map_coordinates(inputs, list(coordinates), order=order,
                                             mode=fill_mode, cval=fill_value)


@register_op("affine_transform", tensors=2)
def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant",
                     fill_value=0, data_format=None):
    """Warp images by ``transform = [a0, a1, a2, b0, b1, b2, c0, c1]`` (one per image or one
    for all): output pixel ``(x, y)`` samples the input at ``(a0 x + a1 y + a2,
    b0 x + b1 y + b2)``, as Keras (whose c0/c1 terms scale with the channel index)."""
    _check_rank("affine_transform", images)
    if interpolation not in _ORDER:
        raise ValueError(f"Invalid value for argument `interpolation`. Expected one of "
                         f"{set(_ORDER)}. Received: interpolation={interpolation}")
    if fill_mode not in _FILL_MODES:
        raise ValueError(f"Invalid value for argument `fill_mode`. Expected one of "
                         f"{_FILL_MODES}. Received: fill_mode={fill_mode}")
    transform = jnp.asarray(transform, jnp.float32)
    if transform.ndim not in (1, 2):
        raise ValueError(f"affine_transform: Invalid transform rank: expected rank 1 (single "
                         f"transform) or rank 2 (batch of transforms). Received input with "
                         f"shape: transform.shape={tuple(transform.shape)}")
    x, back = _to_last(images, data_format)
    transform = jnp.broadcast_to(transform.reshape(-1, 8), (x.shape[0], 8))
    y_idx, x_idx, c_idx = jnp.meshgrid(*[jnp.arange(n, dtype=jnp.float32)
                                         for n in x.shape[1:]], indexing="ij")

    def warp(image, t):
        a0, a1, a2, b0, b1, b2, c0, c1 = (t[i] for i in range(8))
        rows = b0 * x_idx + b1 * y_idx + c0 * c_idx + b2
        cols = a0 * x_idx + a1 * y_idx + c1 * c_idx + a2
        return jax.scipy.ndimage.map_coordinates(image, [rows, cols, c_idx],
                                                 order=_ORDER[interpolation], mode=fill_mode,
                                                 cval=fill_value)

    return back(jax.vmap(warp)(x, transform).astype(images.dtype))


@register_op("rgb_to_grayscale")
def rgb_to_grayscale(images, data_format=None):
    """Luma ``0.2989 R + 0.5870 G + 0.1140 B``, keeping a channel axis of 1."""
    _check_rank("rgb_to_grayscale", images)
    check_channels("rgb_to_grayscale", images, _format(data_format), allowed=(1, 3))
    x, back = _to_last(images, data_format)
    weights = jnp.asarray([0.2989, 0.5870, 0.1140], x.dtype)
    return back(jnp.tensordot(x, weights, axes=(-1, -1))[..., None])


@register_op("rgb_to_hsv")
def rgb_to_hsv(images, data_format=None):
    """RGB in [0, 1] to HSV in [0, 1]."""
    _check_rank("rgb_to_hsv", images)
    check_float("rgb_to_hsv", images)
    check_channels("rgb_to_hsv", images, _format(data_format))
    x, back = _to_last(images, data_format)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    # the largest channel, found once (red first on ties, as Keras): the hue's branch and
    # the value come from one comparison, not from float equalities re-evaluated per use
    largest = jnp.argmax(x, axis=-1)
    value = jnp.take_along_axis(x, largest[..., None], axis=-1)[..., 0]
    spread = value - jnp.min(x, axis=-1)
    safe = jnp.where(spread > 0, spread, 1.0)
    saturation = jnp.where(value > 0, spread / jnp.where(value > 0, value, 1.0), 0.0)
    hue = jnp.where(largest == 0, (g - b) / safe,
                    jnp.where(largest == 1, 2.0 + (b - r) / safe, 4.0 + (r - g) / safe))
    hue = jnp.where(spread > 0, (hue / 6.0) % 1.0, 0.0)
    return back(jnp.stack([hue, saturation, value], axis=-1))


@register_op("hsv_to_rgb")
def hsv_to_rgb(images, data_format=None):
    """HSV in [0, 1] to RGB in [0, 1]."""
    _check_rank("hsv_to_rgb", images)
    check_float("hsv_to_rgb", images)
    check_channels("hsv_to_rgb", images, _format(data_format))
    x, back = _to_last(images, data_format)
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    dh = h * 6.0
    r = jnp.clip(jnp.abs(dh - 3.0) - 1.0, 0.0, 1.0)
    g = jnp.clip(2.0 - jnp.abs(dh - 2.0), 0.0, 1.0)
    b = jnp.clip(2.0 - jnp.abs(dh - 4.0), 0.0, 1.0)
    rgb = jnp.stack([r, g, b], axis=-1)
    return back(((rgb - 1.0) * s[..., None] + 1.0) * v[..., None])


def _margins(name, kind, x, top, left, bottom, right, target_h, target_w):
    """``(top, bottom, target_h), (left, right, target_w)`` of channels-last ``x``."""
    check_rank(name, x)
    return (margins(name, kind, x.shape[-3], top, bottom, target_h, "top", "bottom",
                    "target_height"),
            margins(name, kind, x.shape[-2], left, right, target_w, "left", "right",
                    "target_width"))


@register_op("crop_images", spec=margins_spec("cropping"))
def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None, data_format=None):
    """Crop each side: of ``top_cropping``, ``bottom_cropping`` and ``target_height``
    exactly two are given (likewise left, right, width), as Keras."""
    check_rank("crop_images", images)
    x, back = _to_last(images, data_format)
    (top, _, th), (left, _, tw) = _margins("crop_images", "cropping", x, top_cropping,
                                           left_cropping, bottom_cropping, right_cropping,
                                           target_height, target_width)
    return back(x[:, top:top + th, left:left + tw, :])


@register_op("pad_images", spec=margins_spec("padding"))
def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    """Zero-pad each side: of ``top_padding``, ``bottom_padding`` and ``target_height``
    exactly two are given (likewise left, right, width), as Keras."""
    check_rank("pad_images", images)
    x, back = _to_last(images, data_format)
    (top, bottom, _), (left, right, _) = _margins("pad_images", "padding", x, top_padding,
                                                  left_padding, bottom_padding, right_padding,
                                                  target_height, target_width)
    return back(jnp.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0))))


@register_op("extract_patches")
def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid",
                    data_format=None):
    """Patches of ``size`` as channels: ``(batch, rows, cols, ph * pw * channels)``; a
    ``size`` of three numbers takes 3D patches of volumes (``extract_patches_3d``)."""
    if not isinstance(size, int):
        if not isinstance(size, (tuple, list)):
            raise TypeError(f"extract_patches: Invalid `size` argument. Expected an int or a "
                            f"tuple. Received: size={size} of type {type(size).__name__}")
        if len(size) not in (2, 3):
            raise ValueError(f"extract_patches: Invalid `size` argument. Expected a tuple of "
                             f"length 2 or 3. Received: size={size} with length {len(size)}")
        if len(size) == 3:
            return extract_patches_3d.__wrapped__(images, size, strides, dilation_rate,
                                                  padding, data_format)
    _check_rank("extract_patches", images)
    size = (size, size) if isinstance(size, int) else tuple(size)
    strides = size if strides is None else (
        (strides, strides) if isinstance(strides, int) else tuple(strides))
    dilation = (dilation_rate,) * 2 if isinstance(dilation_rate, int) else tuple(dilation_rate)
    x, back = _to_last(images, data_format)
    patches = jax.lax.conv_general_dilated_patches(
        x, size, strides, padding.upper(), rhs_dilation=dilation,
        dimension_numbers=("NHWC", "HWIO", "NHWC"))
    c = x.shape[-1]  # conv patches are channel-major: reorder to (ph, pw, c)
    n, rows, cols, _ = patches.shape
    patches = patches.reshape(n, rows, cols, c, size[0] * size[1]).swapaxes(-1, -2)
    return back(patches.reshape(n, rows, cols, -1))


@register_op("gaussian_blur")
def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """A Gaussian blur (zero padding, "same" size)."""
    _check_rank("gaussian_blur", images)
    x, back = _to_last(images, data_format)
    dtype = x.dtype if jnp.issubdtype(x.dtype, jnp.floating) else jnp.float32
    kernel_size = (kernel_size,) * 2 if isinstance(kernel_size, int) else kernel_size
    sigma = (sigma,) * 2 if isinstance(sigma, (int, float)) else sigma

    def kernel1d(n, s):
        t = jnp.arange(n, dtype=dtype) - (n - 1) / 2.0
        k = jnp.exp(-(t ** 2) / (2.0 * s ** 2))
        return k / jnp.sum(k)

    # As Keras: rows from (kernel_size[1], sigma[1]), columns from (kernel_size[0], sigma[0]).
    kernel = jnp.outer(kernel1d(kernel_size[1], sigma[1]), kernel1d(kernel_size[0], sigma[0]))
    c = x.shape[-1]
    kernel = jnp.tile(kernel[:, :, None, None], (1, 1, 1, c))
    out = jax.lax.conv_general_dilated(x.astype(dtype), kernel, (1, 1), "SAME",
                                       dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                       feature_group_count=c)
    return back(out)


@register_op("sobel_edges")
def sobel_edges(images, data_format=None):
    """Sobel derivatives of each channel, zero-padded to the same size: ``(..., 2)`` with
    ``[d/dy, d/dx]`` on the last axis, as Keras."""
    _check_rank("sobel_edges", images)
    x, back = _to_last(images, data_format)
    dtype = x.dtype if jnp.issubdtype(x.dtype, jnp.floating) else jnp.float32
    x = x.astype(dtype)
    channels = x.shape[-1]
    along_x = jnp.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype)
    edges = []
    for kernel in (along_x.T, along_x):  # d/dy, then d/dx
        kernel = jnp.tile(kernel[:, :, None, None], (1, 1, 1, channels))
        edges.append(back(jax.lax.conv_general_dilated(
            x, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
            feature_group_count=channels)))
    return jnp.stack(edges, axis=-1)


@register_op("ssim", tensors=2)
def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         data_format=None):
    """The structural similarity of two images (or batches): Gaussian-windowed means,
    variances and covariance over each channel ("valid" windows), averaged over the
    image and its channels, as Keras (``max_val`` is the images' dynamic range)."""
    _check_rank("ssim", image1)
    _check_rank("ssim", image2)
    original = image1.dtype
    dtype = jnp.result_type(image1.dtype, float)
    x, _ = _to_last(image1.astype(dtype), data_format)
    y, _ = _to_last(image2.astype(dtype), data_format)
    t = jnp.arange(filter_size, dtype=dtype) - (filter_size - 1) / 2.0
    gauss = jnp.exp(-(t ** 2) / (2.0 * filter_sigma ** 2))
    gauss = gauss / jnp.sum(gauss)
    kernel = jnp.outer(gauss, gauss)[:, :, None, None]

    def mean(z):  # per channel: (B, H, W, C) -> (B * C, H', W', 1)
        z = jnp.moveaxis(z, -1, 1).reshape(-1, z.shape[1], z.shape[2], 1)
        return jax.lax.conv_general_dilated(z, kernel, (1, 1), "VALID",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mu1, mu2 = mean(x), mean(y)
    sigma1 = mean(x * x) - mu1 * mu1
    sigma2 = mean(y * y) - mu2 * mu2
    sigma12 = mean(x * y) - mu1 * mu2
    values = ((2.0 * mu1 * mu2 + c1) * (2.0 * sigma12 + c2)
              / ((mu1 * mu1 + mu2 * mu2 + c1) * (sigma1 + sigma2 + c2)))
    per_image = jnp.mean(values, axis=(1, 2, 3)).reshape(x.shape[0], x.shape[-1]).mean(-1)
    return (per_image[0] if image1.ndim == 3 else per_image).astype(original)


# ----------------------------------------------------------------- perspective and elastic


def _homography(start_points, end_points):
    """Per pair of ``(N, 4, 2)`` point sets, the 8 coefficients ``h`` of the projective map
    sending each end point ``(x, y)`` to its start point:
    ``((h0 x + h1 y + h2) / d, (h3 x + h4 y + h5) / d)`` with ``d = h6 x + h7 y + 1``."""
    sx, sy = start_points[..., 0], start_points[..., 1]
    ex, ey = end_points[..., 0], end_points[..., 1]
    zeros, ones = jnp.zeros_like(ex), jnp.ones_like(ex)
    x_rows = jnp.stack([ex, ey, ones, zeros, zeros, zeros, -sx * ex, -sx * ey], axis=-1)
    y_rows = jnp.stack([zeros, zeros, zeros, ex, ey, ones, -sy * ex, -sy * ey], axis=-1)
    system = jnp.concatenate([x_rows, y_rows], axis=1)
    target = jnp.concatenate([sx, sy], axis=-1)[..., None]
    return jnp.linalg.solve(system, target)[..., 0]


def _sample(x, rows, cols, interpolation, fill_mode, fill_value):
    """Channels-last batch ``x`` sampled at per-image ``rows, cols`` of shape ``(h, w)``."""
    def per_image(image, r, c):
        return jax.vmap(lambda channel: jax.scipy.ndimage.map_coordinates(
            channel, [r, c], order=_ORDER[interpolation], mode=fill_mode, cval=fill_value),
            in_axes=-1, out_axes=-1)(image)

    return jax.vmap(per_image)(x, rows, cols)


def _perspective_warp(x, start_points, end_points, interpolation, fill_value):
    """Channels-last batch ``x`` warped so that ``start_points`` land on ``end_points``
    (``(N, 4, 2)`` as ``(x, y)``; ``N`` is 1 or the batch); outside: ``fill_value``."""
    h = _homography(jnp.asarray(start_points, jnp.float32),
                    jnp.asarray(end_points, jnp.float32))
    h = jnp.broadcast_to(h, (x.shape[0], 8))
    cols, rows = jnp.meshgrid(jnp.arange(x.shape[2]), jnp.arange(x.shape[1]), indexing="xy")

    def coordinates(t):
        denominator = t[6] * cols + t[7] * rows + 1.0
        return ((t[3] * cols + t[4] * rows + t[5]) / denominator,
                (t[0] * cols + t[1] * rows + t[2]) / denominator)

    rows_in, cols_in = jax.vmap(coordinates)(h)
    return _sample(x, rows_in, cols_in, interpolation, "constant", fill_value)


def _check_points(name, points):
    if tuple(points.shape[-2:]) != (4, 2) or points.ndim not in (2, 3):
        raise ValueError(f"perspective_transform: Invalid {name} shape: expected (4,2) for a "
                         f"single image or (N,4,2) for a batch. Received shape: "
                         f"{tuple(points.shape)}")


@register_op("perspective_transform", tensors=3)
def perspective_transform(images, start_points, end_points, interpolation="bilinear",
                          fill_value=0, data_format=None):
    """Warp images so that the four ``start_points`` move to the ``end_points`` (``(4, 2)``
    or ``(N, 4, 2)`` as ``(x, y)``; one set serves every image), sampling outside the image
    as ``fill_value``."""
    _check_rank("perspective_transform", images)
    if interpolation not in _ORDER:
        raise ValueError(f"perspective_transform: invalid value for argument `interpolation`. "
                         f"Expected one of {set(_ORDER)}. Received: "
                         f"interpolation={interpolation}")
    start_points, end_points = jnp.asarray(start_points), jnp.asarray(end_points)
    _check_points("start_points", start_points)
    _check_points("end_points", end_points)
    if start_points.shape != end_points.shape:
        raise ValueError(f"perspective_transform: start_points and end_points must have the "
                         f"same shape. Received start_points.shape={tuple(start_points.shape)}, "
                         f"end_points.shape={tuple(end_points.shape)}")
    x, back = _to_last(images, data_format)
    start_points = start_points.reshape(-1, 4, 2)
    if start_points.shape[0] not in (1, x.shape[0]):
        raise ValueError(f"perspective_transform: {start_points.shape[0]} sets of points for "
                         f"{x.shape[0]} images; expected one set, or one per image.")
    out = _perspective_warp(x, start_points, end_points.reshape(-1, 4, 2), interpolation,
                            fill_value)
    return back(out)


def _gaussian_field(noise, sigma, size):
    """``noise`` ``(batch, h, w)`` blurred (zero padding) by Keras's ``gaussian_blur`` kernel
    of ``int(6 sigma) | 1`` taps, ``sigma`` possibly traced: the taps sit in a static
    window of ``size`` (odd, at least that many), the outer ones weighted zero."""
    dtype = noise.dtype
    taps = (jnp.floor(6 * sigma).astype(jnp.int32) | 1).astype(dtype)
    t = jnp.arange(size, dtype=dtype) - jnp.asarray((size - 1) / 2, dtype)
    safe_sigma = jnp.where(sigma > 0, sigma, jnp.ones_like(sigma))  # sigma 0: no blur
    kernel = jnp.where(jnp.abs(t) <= (taps - 1) / 2, jnp.exp(-0.5 * (t / safe_sigma) ** 2), 0)
    kernel = kernel / jnp.sum(kernel)
    out = noise[..., None]
    for shape in ((size, 1, 1, 1), (1, size, 1, 1)):  # separable: rows, then columns
        out = jax.lax.conv_general_dilated(out, kernel.reshape(shape), (1, 1), "SAME",
                                           dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return out[..., 0]


def _elastic_warp(x, alpha, sigma, key, interpolation, fill_mode, fill_value, size):
    """Keras's elastic deformation of a channels-last batch: a normal field per image
    (``sigma`` scaled, Gaussian-blurred, see ``_gaussian_field``) times ``alpha`` shifts the
    sampling rows and columns alike (Keras draws both fields from one key)."""
    batch, height, width, _ = x.shape
    dtype = x.dtype if jnp.issubdtype(x.dtype, jnp.floating) else jnp.float32
    sigma = jnp.asarray(sigma, dtype)
    noise = jax.random.normal(key, (batch, height, width), dtype) * sigma
    shift = jnp.asarray(alpha, dtype) * _gaussian_field(noise, sigma, size)
    rows = jnp.arange(height)[:, None] + shift
    cols = jnp.arange(width)[None, :] + shift
    return _sample(x, rows, cols, interpolation, fill_mode, fill_value).astype(x.dtype)


def _elastic_key(seed):
    """The key of ``elastic_transform``: Keras's key ``[seed, 0]`` for an int seed used
    eagerly (the same numbers as Keras), else ``kgraph.random.draw_key(seed)`` (the
    program's key inside a program)."""
    ctx = context.current()
    in_program = ctx is not None and (ctx.keys.key is not None or ctx.keys.required)
    if isinstance(seed, int) and not isinstance(seed, bool) and not in_program:
        return jnp.array([seed & 0xFFFFFFFF, 0], jnp.uint32)
    return kg_random.draw_key(seed)


def _elastic_size(sigma):
    """Keras's blur size for ``sigma``: ``int(6 * sigma) | 1`` (in float32)."""
    return int(np.float32(6) * np.float32(sigma)) | 1


@register_op("elastic_transform")
def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation="bilinear",
                      fill_mode="reflect", fill_value=0.0, seed=None, data_format=None):
    """Elastic deformation: each image resampled at its pixel grid shifted by ``alpha``
    times a normal field (standard deviation ``sigma``) smoothed by a Gaussian of ``sigma``
    (``int(6 sigma) | 1`` taps), as Keras. An int ``seed`` used eagerly gives Keras's
    numbers; inside a program the field comes from the program's key, as ``kgraph.random``."""
    _check_rank("elastic_transform", images)
    if interpolation not in _ORDER:
        raise ValueError(f"elastic_transform: invalid value for argument `interpolation`. "
                         f"Expected one of {set(_ORDER)}. Received: "
                         f"interpolation={interpolation}")
    if fill_mode not in _FILL_MODES:
        raise ValueError(f"elastic_transform: invalid value for argument `fill_mode`. Expected "
                         f"one of {_FILL_MODES}. Received: fill_mode={fill_mode}")
    try:
        size = _elastic_size(sigma)
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError):
        raise ValueError("elastic_transform: `sigma` must be a concrete number (it sets the "
                         "blur size); received a traced value.") from None
    x, back = _to_last(images, data_format)
    return back(_elastic_warp(x, alpha, sigma, _elastic_key(seed), interpolation, fill_mode,
                              fill_value, size))


# ------------------------------------------------------------------ resampling, 3D patches

_SCALE_METHODS = ("linear", "bilinear", "trilinear", "cubic", "bicubic", "tricubic",
                  "lanczos3", "lanczos5")


@register_op("scale_and_translate", tensors=4)
def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method,
                        antialias=True):
    """``jax.image.scale_and_translate``: resample ``images`` to ``output_shape`` (a
    ``None`` entry keeps the input's size), input location ``x`` landing on
    ``x * scale + translation`` along each of ``spatial_dims``."""
    if method not in _SCALE_METHODS:
        raise ValueError(f"scale_and_translate: invalid value for argument `method`. Expected "
                         f"one of {_SCALE_METHODS}. Received: method={method}")
    images = jnp.asarray(images)
    if len(output_shape) != images.ndim:
        raise ValueError(f"scale_and_translate: `output_shape` must have one entry per axis "
                         f"of the images ({images.ndim}). Received: output_shape={output_shape}")
    shape = tuple(n if d is None else int(d) for n, d in zip(images.shape, output_shape))
    return jax.image.scale_and_translate(images, shape, tuple(spatial_dims),
                                         jnp.asarray(scale), jnp.asarray(translation), method,
                                         antialias)


def _triple(name, value):
    value = (value,) * 3 if isinstance(value, int) else tuple(value)
    if len(value) != 3:
        raise ValueError(f"extract_patches_3d: `{name}` must be an int or a tuple of 3 ints. "
                         f"Received: {name}={value}")
    return value


@register_op("extract_patches_3d")
def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid",
                       data_format=None):
    """Patches of ``size = (depth, height, width)`` as channels: ``(batch, d, h, w,
    pd * ph * pw * channels)`` (channels last), from volumes ``(batch, d, h, w, c)``."""
    if not isinstance(size, int) and len(size) != 3:
        raise TypeError(f"extract_patches_3d: invalid `size` argument. Expected an int or a "
                        f"tuple of length 3. Received: size={size}")
    volumes = jnp.asarray(volumes)
    if volumes.ndim not in (4, 5):
        raise ValueError(f"extract_patches_3d: expected rank 4 (single volume) or 5 (batch of "
                         f"volumes). Received input with shape {tuple(volumes.shape)}")
    size = _triple("size", size)
    strides = size if strides is None else _triple("strides", strides)
    single = volumes.ndim == 4
    x = volumes[None] if single else volumes
    first = _format(data_format) == "channels_first"
    x = jnp.moveaxis(x, 1, -1) if first else x
    patches = jax.lax.conv_general_dilated_patches(
        x, size, strides, padding.upper(), rhs_dilation=_triple("dilation_rate", dilation_rate),
        dimension_numbers=("NDHWC", "DHWIO", "NDHWC"))
    if patches.size == 0 and x.size != 0:
        raise ValueError(f"extract_patches_3d: no patch fits: volumes of shape "
                         f"{tuple(volumes.shape)}, size={size}, strides={strides}, "
                         f"padding={padding!r}.")
    c = x.shape[-1]  # conv patches are channel-major: reorder to (pd, ph, pw, c)
    *lead, _ = patches.shape
    patches = patches.reshape(*lead, c, -1).swapaxes(-1, -2).reshape(*lead, -1)
    patches = jnp.moveaxis(patches, -1, 1) if first else patches
    return patches[0] if single else patches
