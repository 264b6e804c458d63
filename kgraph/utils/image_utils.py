"""Image files and arrays, as Keras's ``keras.utils`` / ``keras.preprocessing.image`` give
them: ``load_img`` / ``save_img`` read and write files through Pillow, ``array_to_img`` /
``img_to_array`` convert, ``smart_resize`` crops to the target's aspect ratio, then
resizes. Pillow is needed by the file functions only (``pip install pillow``).

>>> import numpy as np
>>> image = array_to_img(np.arange(12, dtype="float32").reshape(2, 2, 3))
>>> image.size, image.mode, img_to_array(image).shape
((2, 2), 'RGB', (2, 2, 3))
>>> smart_resize(np.ones((40, 60, 3), "float32"), (20, 20)).shape
(20, 20, 3)
"""

from __future__ import annotations

import io
import pathlib
import warnings

import numpy as np

from kgraph import config
from kgraph.ops import image as image_ops
from kgraph.ops.conv_utils import standardize_data_format

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]

_RESAMPLING = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def _pil():
    try:
        from PIL import Image  # an optional dependency: only image files need it
    except ImportError:
        raise ImportError("Reading and writing images needs Pillow: pip install pillow.") \
            from None
    return Image


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A ``PIL.Image`` of one image array ``(height, width, channels)`` (1, 3 or 4
    channels); ``scale`` maps the array's range onto 0..255."""
    image_module = _pil()
    x = np.array(x, dtype=dtype or config.floatx())
    if x.ndim != 3:
        raise ValueError(f"array_to_img expects one image, an array of rank 3, received "
                         f"shape {x.shape}.")
    if standardize_data_format(data_format) == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        peak = np.max(x)
        if peak != 0:
            x = x / peak
        x = x * 255
    channels = x.shape[2]
    if channels in (3, 4):
        return image_module.fromarray(x.astype("uint8"), "RGB" if channels == 3 else "RGBA")
    if channels == 1:
        if np.max(x) > 255:  # 32-bit grayscale
            return image_module.fromarray(x[:, :, 0].astype("int32"), "I")
        return image_module.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"array_to_img supports 1, 3 or 4 channels, received {channels}.")


def img_to_array(img, data_format=None, dtype=None):
    """A ``PIL.Image`` (or anything array-like) as a rank-3 array, channels where
    ``data_format`` puts them."""
    data_format = standardize_data_format(data_format)
    x = np.asarray(img, dtype=dtype or config.floatx())
    if x.ndim == 2:
        x = x[None] if data_format == "channels_first" else x[..., None]
    elif x.ndim == 3:
        if data_format == "channels_first":
            x = x.transpose(2, 0, 1)
    else:
        raise ValueError(f"img_to_array expects an image of rank 2 or 3, received shape "
                         f"{x.shape}.")
    return x


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Write an image array to ``path`` (or a file object, then with ``file_format``);
    the format comes from the file name's extension unless given."""
    if file_format is None and isinstance(path, (str, pathlib.Path)):
        file_format = pathlib.Path(path).suffix[1:].lower()
    if file_format and file_format.lower() == "jpg":
        file_format = "jpeg"
    image = array_to_img(x, data_format=data_format, scale=scale)
    if image.mode == "RGBA" and file_format == "jpeg":
        warnings.warn("JPEG has no alpha channel: the RGBA image is saved as RGB.",
                      UserWarning, stacklevel=2)
        image = image.convert("RGB")
    image.save(path, format=file_format, **kwargs)


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest",
             keep_aspect_ratio=False):
    """Read an image file as a ``PIL.Image`` in ``color_mode`` ("grayscale", "rgb" or
    "rgba"), resized to ``target_size=(height, width)`` if given (after a centred crop to
    its aspect ratio with ``keep_aspect_ratio``)."""
    modes = {"grayscale": ("L", ("L", "I;16", "I")), "rgb": ("RGB", ("RGB",)),
             "rgba": ("RGBA", ("RGBA",))}
    if color_mode not in modes:
        raise ValueError(f'color_mode must be "grayscale", "rgb" or "rgba", received '
                         f"{color_mode!r}.")
    image_module = _pil()
    if isinstance(path, io.BytesIO):
        image = image_module.open(path)
    elif isinstance(path, (str, bytes, pathlib.Path)):
        with open(path, "rb") as file:  # read whole: the file is closed at once
            image = image_module.open(io.BytesIO(file.read()))
    else:
        raise TypeError(f"load_img expects a path or an io.BytesIO, received "
                        f"{type(path).__name__}.")
    mode, kept = modes[color_mode]
    if image.mode not in kept:
        image = image.convert(mode)
    if target_size is None:
        return image
    size = (int(target_size[1]), int(target_size[0]))  # PIL's (width, height)
    if image.size == size:
        return image
    if interpolation not in _RESAMPLING:
        raise ValueError(f"Invalid interpolation {interpolation!r}; expected one of "
                         f"{list(_RESAMPLING)}.")
    resample = getattr(image_module.Resampling, interpolation.upper())
    if not keep_aspect_ratio:
        return image.resize(size, resample)
    width, height = image.size
    crop_height = min(height, (width * size[1]) // size[0])
    crop_width = min(width, (height * size[0]) // size[1])
    top, left = (height - crop_height) // 2, (width - crop_width) // 2
    return image.resize(size, resample, box=(left, top, left + crop_width, top + crop_height))


def smart_resize(x, size, interpolation="bilinear", data_format="channels_last"):
    """Resize images to ``size=(height, width)`` without distorting them: the largest
    centred crop with the target's aspect ratio, then a resize. Takes one image or a batch;
    NumPy in, NumPy out."""
    if len(size) != 2:
        raise ValueError(f"smart_resize: size must be (height, width), received {size}.")
    rank = np.ndim(x)
    if rank not in (3, 4):
        raise ValueError(f"smart_resize expects an image (height, width, channels) or a batch "
                         f"of them, received an array of shape {np.shape(x)}.")
    resized = image_ops.resize(x, tuple(size), interpolation=interpolation,
                               crop_to_aspect_ratio=True, data_format=data_format)
    return np.asarray(resized) if isinstance(x, np.ndarray) else resized
