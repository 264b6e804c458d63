"""Histogram equalization layers (Keras 3's names, arguments, configs and formulas):
``Equalization`` and ``ContrastLimitedAdaptiveHistogramEqualization`` (CLAHE).

Both are deterministic. As Keras's, ``Equalization`` applies in training (a direct call)
and is an identity in inference, while CLAHE applies in both. Histograms are counted with
scatter-adds, so both layers trace under ``jax.jit``.

>>> import jax.numpy as jnp
>>> image = jnp.array([0.0, 10.0, 10.0, 20.0]).reshape(1, 2, 2, 1)
>>> Equalization()(image).ravel().tolist()  # the three levels spread over [0, 255]
[0.0, 170.0, 170.0, 255.0]
>>> ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(1, 1))(image).shape
(1, 2, 2, 1)
"""

from __future__ import annotations

import numbers

import jax.numpy as jnp

from kgraph.layers.augmentation import _Augmentation
from kgraph.layers.augmentation_color import _rescale

__all__ = ["ContrastLimitedAdaptiveHistogramEqualization", "Equalization"]


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _checked_value_range(owner, value_range):
    if (not isinstance(value_range, (tuple, list)) or len(value_range) != 2
            or not all(_is_number(v) for v in value_range)):
        raise ValueError(f"{owner}: `value_range` must be a list or tuple of two numbers. "
                         f"Received: value_range={value_range!r}")
    return value_range


def _scale(x, source, target):
    """Keras's ``Equalization._scale_values``: an affine map of ``source`` onto ``target``."""
    scale = (target[1] - target[0]) / (source[1] - source[0])
    return x * scale + (target[0] - source[0] * scale)


class _Deterministic(_Augmentation):
    """No random draws: no key is taken."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(None, data_format, **kwargs)

    def _key(self):
        return None

    def get_config(self):
        config = super().get_config()
        del config["seed"]  # as Keras's configs of these layers
        return config


class Equalization(_Deterministic):
    """Equalize each channel's histogram of ``bins`` levels onto ``[0, 255]`` (rescaled
    from and to ``value_range``). As Keras's, the histogram of a channel counts the whole
    batch, and a channel with a single occupied level is left unchanged."""

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(data_format, **kwargs)
        if not isinstance(bins, numbers.Integral) or isinstance(bins, bool) or bins < 1:
            raise ValueError(f"{self._owner}: `bins` must be a positive integer. Received: "
                             f"bins={bins!r}")
        self.bins = int(bins)
        self.value_range = sorted(_checked_value_range(self._owner, value_range))

    def _augment(self, x, key=None):
        return self._equalize(x)

    def compute_output_dtype(self, input_dtype):
        """The input's dtype (Keras's ``Equalization`` gives its input's spec)."""
        return input_dtype

    def _equalize(self, x):
        """``x`` (channels last) equalized, one histogram per channel over the batch."""
        dtype, bins, channels = x.dtype, self.bins, x.shape[-1]
        x = _scale(x.astype(jnp.float32), self.value_range, (0, 255))
        levels = jnp.clip((x * (bins - 1) / 255.0).astype(jnp.int32), 0, bins - 1)
        channel = jnp.arange(channels)
        counts = jnp.zeros((channels, bins), jnp.int32).at[channel, levels].add(1)
        cdf = jnp.cumsum(counts, axis=1)
        first = jnp.argmax(cdf > 0, axis=1)[:, None]
        cdf_min = jnp.take_along_axis(cdf, first, axis=1)
        denominator = cdf[:, -1:] - cdf_min
        denominator = jnp.where(denominator == 0, 1, denominator).astype(jnp.float32)
        table = jnp.clip(jnp.round((cdf - cdf_min).astype(jnp.float32) * 255 / denominator),
                         0, 255)
        lookup = jnp.clip((x / 255.0) * (bins - 1), 0, bins - 1).astype(jnp.int32)
        equalized = table[channel, lookup]
        single_level = jnp.count_nonzero(counts, axis=1) <= 1
        out = jnp.where(single_level, x, equalized)
        return _scale(out, (0, 255), self.value_range).astype(dtype)

    def get_config(self):
        return {**super().get_config(), "bins": self.bins, "value_range": self.value_range}


class ContrastLimitedAdaptiveHistogramEqualization(_Deterministic):
    """CLAHE, as Keras's: the image (rescaled from ``value_range`` to ``[0, 255]``) is cut
    into ``tile_grid_size`` tiles (padded symmetrically at the bottom and right to whole
    tiles); each tile's 256-level histogram is clipped at ``clip_limit`` times its mean
    count with the excess spread evenly, its cumulative histogram maps levels onto
    ``[0, 255]``, and each pixel interpolates bilinearly between the maps of the four
    nearest tiles. Applies in inference too; the output has the input's dtype."""

    def __init__(self, value_range=(0, 255), clip_limit=4.0, tile_grid_size=(8, 8),
                 data_format=None, **kwargs):
        super().__init__(data_format, **kwargs)
        self.value_range = _checked_value_range(self._owner, value_range)
        if not _is_number(clip_limit):
            raise ValueError(f"{self._owner}: `clip_limit` must be a number. Received: "
                             f"clip_limit={clip_limit!r}")
        if (not isinstance(tile_grid_size, (tuple, list)) or len(tile_grid_size) != 2
                or not all(isinstance(g, numbers.Integral) and not isinstance(g, bool)
                           and g > 0 for g in tile_grid_size)):
            raise ValueError(f"{self._owner}: `tile_grid_size` must be two positive integers "
                             f"(rows, columns). Received: tile_grid_size={tile_grid_size!r}")
        self.clip_limit, self.tile_grid_size = clip_limit, tile_grid_size

    def _augment(self, x, key=None):
        x = _rescale(x.astype(jnp.float32), self.value_range, (0, 255))
        return _rescale(self._clahe(x), (0, 255), self.value_range)

    def _tile_maps(self, pixels, tile_h, tile_w):
        """Each tile's level map, ``(batch, rows + 2, columns + 2, channels, 256)`` with
        the border tiles repeated once around, from integer ``pixels`` in whole tiles."""
        batch, _, _, channels = pixels.shape
        rows, columns = self.tile_grid_size
        tiles = pixels.reshape(batch, rows, tile_h, columns, tile_w, channels)
        index = (jnp.arange(batch)[:, None, None, None, None, None],
                 jnp.arange(rows)[None, :, None, None, None, None],
                 jnp.arange(columns)[None, None, None, :, None, None],
                 jnp.arange(channels)[None, None, None, None, None, :], tiles)
        counts = jnp.zeros((batch, rows, columns, channels, 256), jnp.float32)
        counts = counts.at[index].add(1.0)
        area = tile_h * tile_w
        if self.clip_limit > 0:
            limit = jnp.float32(self.clip_limit * area / 256.0)
            clipped = jnp.clip(counts, 0, limit)
            counts = clipped + jnp.sum(counts - clipped, axis=-1, keepdims=True) / 256.0
        cdf = jnp.cumsum(counts, axis=-1)
        cdf_min = jnp.min(cdf, axis=-1, keepdims=True)
        denominator = jnp.float32(area) - cdf_min
        denominator = jnp.where(denominator == 0, jnp.ones_like(denominator), denominator)
        maps = jnp.clip((cdf - cdf_min) * 255.0 / denominator, 0, 255)
        return jnp.pad(maps, ((0, 0), (1, 1), (1, 1), (0, 0), (0, 0)), mode="edge")

    @staticmethod
    def _neighbours(size, tile, tiles):
        """Per pixel along one axis: the two nearest tile centres (indices into the
        padded grid) and the weight of the second."""
        position = (jnp.arange(size, dtype=jnp.float32) - tile / 2.0) / tile + 1.0
        low = jnp.floor(position)
        weight = position - low
        clip = lambda i: jnp.clip(i, 0, tiles + 1).astype(jnp.int32)  # noqa: E731
        return clip(low), clip(low + 1.0), weight

    def _clahe(self, x):
        """``x`` (channels last, levels in ``[0, 255]``) equalized tile by tile."""
        batch, height, width, channels = x.shape
        rows, columns = self.tile_grid_size
        tile_h, tile_w = -(-height // rows), -(-width // columns)
        pad_h, pad_w = tile_h * rows - height, tile_w * columns - width
        if pad_h or pad_w:
            x = jnp.pad(x, ((0, 0), (0, pad_h), (0, pad_w), (0, 0)), mode="symmetric")
        pixels = jnp.clip(x, 0, 255).astype(jnp.int32)
        maps = self._tile_maps(pixels, tile_h, tile_w)
        y0, y1, wy = self._neighbours(x.shape[1], tile_h, rows)
        x0, x1, wx = self._neighbours(x.shape[2], tile_w, columns)
        b = jnp.arange(batch)[:, None, None, None]
        c = jnp.arange(channels)[None, None, None, :]
        at = lambda ys, xs: maps[b, ys[None, :, None, None],  # noqa: E731
                                 xs[None, None, :, None], c, pixels]
        wy, wx = wy[None, :, None, None], wx[None, None, :, None]
        top = at(y0, x0) * (1.0 - wx) + at(y0, x1) * wx
        bottom = at(y1, x0) * (1.0 - wx) + at(y1, x1) * wx
        return (top * (1.0 - wy) + bottom * wy)[:, :height, :width]

    def _apply_to_images(self, images, transform, key):
        out = super()._apply_to_images(images, transform, key)
        return out.astype(jnp.asarray(images).dtype)  # as Keras: the input's dtype

    def _inference(self, inputs):
        return self._apply_to_images(inputs, self._augment, None)

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range,
                "clip_limit": self.clip_limit, "tile_grid_size": self.tile_grid_size}


# Equalization keeps bounding boxes (Keras); CLAHE does not support them (nor does Keras's).
Equalization._augment_boxes = _Augmentation._keep_boxes
