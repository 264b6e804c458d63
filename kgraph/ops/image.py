"""``keras.ops.image``: resizing, affine warps, colour conversions, crops, pads, patches and
blurs on batched ``(batch, height, width, channels)`` images or single images, in
``data_format`` (default ``config.image_data_format()``).

>>> from kgraph import ops
>>> ops.image.resize(ops.ones((1, 4, 4, 3)), (2, 2)).shape
(1, 2, 2, 3)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph import config
from kgraph.ops.registry import register_op

__all__ = [
    "affine_transform", "crop_images", "extract_patches", "gaussian_blur", "hsv_to_rgb",
    "map_coordinates", "pad_images", "resize", "rgb_to_grayscale", "rgb_to_hsv", "sobel_edges",
    "ssim"
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


def _check_rank(name, images):
    if images.ndim not in (3, 4):
        raise ValueError(f"{name}: invalid images rank: expected rank 3 (single image) or rank 4 "
                         f"(batch of images). Received input with shape: "
                         f"images.shape={tuple(images.shape)}")


@register_op("resize")
def resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
           pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    """Resize to ``size = (height, width)`` (``jax.image.resize``), optionally cropping or
    padding (centred) to the target aspect ratio first, as Keras."""
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
    return back(out.astype(images.dtype) if jnp.issubdtype(images.dtype, jnp.floating)
                else out)


@register_op("map_coordinates", tensors=2)
def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """Sample ``inputs`` at ``coordinates`` (one array per input axis), with nearest
    (``order=0``) or linear (``order=1``) interpolation."""
    if fill_mode not in _FILL_MODES:
        raise ValueError(f"Invalid value for argument `fill_mode`. Expected one of "
                         f"{_FILL_MODES}. Received: fill_mode={fill_mode}")
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
    x, back = _to_last(images, data_format)
    transform = jnp.asarray(transform, jnp.float32)
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
    x, back = _to_last(images, data_format)
    weights = jnp.asarray([0.2989, 0.5870, 0.1140], x.dtype)
    return back(jnp.tensordot(x, weights, axes=(-1, -1))[..., None])


@register_op("rgb_to_hsv")
def rgb_to_hsv(images, data_format=None):
    """RGB in [0, 1] to HSV in [0, 1]."""
    x, back = _to_last(images, data_format)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    value = jnp.max(x, axis=-1)
    spread = value - jnp.min(x, axis=-1)
    safe = jnp.where(spread > 0, spread, 1.0)
    saturation = jnp.where(value > 0, spread / jnp.where(value > 0, value, 1.0), 0.0)
    hue = jnp.where(value == r, (g - b) / safe,
                    jnp.where(value == g, 2.0 + (b - r) / safe, 4.0 + (r - g) / safe))
    hue = jnp.where(spread > 0, (hue / 6.0) % 1.0, 0.0)
    return back(jnp.stack([hue, saturation, value], axis=-1))


@register_op("hsv_to_rgb")
def hsv_to_rgb(images, data_format=None):
    """HSV in [0, 1] to RGB in [0, 1]."""
    x, back = _to_last(images, data_format)
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    dh = h * 6.0
    r = jnp.clip(jnp.abs(dh - 3.0) - 1.0, 0.0, 1.0)
    g = jnp.clip(2.0 - jnp.abs(dh - 2.0), 0.0, 1.0)
    b = jnp.clip(2.0 - jnp.abs(dh - 4.0), 0.0, 1.0)
    rgb = jnp.stack([r, g, b], axis=-1)
    return back(((rgb - 1.0) * s[..., None] + 1.0) * v[..., None])


def _box(h, w, top, left, bottom, right, target_h, target_w, what):
    if top is None:
        top = h - target_h - (bottom or 0) if target_h is not None and bottom is not None \
            else (0 if target_h is None else None)
    top = 0 if top is None else top
    left = 0 if left is None else left
    if target_h is None:
        target_h = h - top - (bottom or 0)
    if target_w is None:
        target_w = w - left - (right or 0)
    if target_h <= 0 or target_w <= 0:
        raise ValueError(f"{what}: the target size must be positive, got "
                         f"({target_h}, {target_w}).")
    return top, left, target_h, target_w


@register_op("crop_images")
def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None, data_format=None):
    """Crop by margins, or to a target size from the top-left margins."""
    x, back = _to_last(images, data_format)
    top, left, th, tw = _box(x.shape[1], x.shape[2], top_cropping, left_cropping,
                             bottom_cropping, right_cropping, target_height, target_width,
                             "crop_images")
    return back(x[:, top:top + th, left:left + tw, :])


@register_op("pad_images")
def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    """Zero-pad by margins, or to a target size (the rest going to the bottom/right)."""
    x, back = _to_last(images, data_format)
    h, w = x.shape[1], x.shape[2]
    top, left = top_padding or 0, left_padding or 0
    bottom = bottom_padding if bottom_padding is not None else (
        target_height - h - top if target_height is not None else 0)
    right = right_padding if right_padding is not None else (
        target_width - w - left if target_width is not None else 0)
    if min(top, left, bottom, right) < 0:
        raise ValueError("pad_images: the padding must not be negative (the target size is "
                         "smaller than the image).")
    return back(jnp.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0))))


@register_op("extract_patches")
def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid",
                    data_format=None):
    """Patches of ``size`` as channels: ``(batch, rows, cols, ph * pw * channels)``."""
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
