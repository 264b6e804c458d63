"""Preprocessing inside the graph: ``Rescaling``, ``Normalization`` (with ``adapt``),
``Resizing``, ``CenterCrop`` (Keras 3 semantics).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base.input_spec import InputSpec, assert_input_compatibility
from kgraph.base.layer import Layer
from kgraph import config
from kgraph.config import epsilon
from kgraph.layers import arg_checks
from kgraph.layers.augmentation_boxes import _BoxesMixin, crop_boxes, resize_boxes
from kgraph.ops import conv_utils as cu

__all__ = ["CenterCrop", "Normalization", "Rescaling", "Resizing"]


def _to_config_value(value):
    if isinstance(value, (np.ndarray, np.generic, jax.Array)):
        return np.asarray(value).tolist()
    if isinstance(value, tuple):
        return list(value)
    return value


class Rescaling(Layer):
    """``inputs * scale + offset`` in the compute dtype (e.g. ``scale=1/255``).

    ``scale`` and ``offset`` may be numbers or arrays broadcastable to the inputs.

    >>> import jax.numpy as jnp
    >>> Rescaling(0.5, offset=1.0)(jnp.array([2.0, 4.0])).tolist()
    [2.0, 3.0]
    """

    supports_masking = True

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        for name, value in (("scale", scale), ("offset", offset)):
            kind = np.asarray(value).dtype.kind if not callable(value) else "O"
            if kind not in "biuf":
                raise ValueError(f'Layer "{self.name}" (Rescaling): `{name}` must be a number '
                                 f"or an array of numbers, received {name}={value!r}.")
        self.scale = _to_config_value(scale)
        self.offset = _to_config_value(offset)

    def call(self, inputs):
        dtype = self.compute_dtype
        scale = jnp.asarray(self.scale, dtype)
        offset = jnp.asarray(self.offset, dtype)
        if scale.ndim and config.image_data_format() == "channels_first":
            # a per-channel scale goes along the channels axis of (C, H, W) images (Keras)
            scale = scale.reshape(scale.shape + (1,) * (3 - scale.ndim))
        return inputs.astype(dtype) * scale + offset

    def compute_output_shape(self, input_shape):
        return input_shape

    def compute_output_dtype(self, input_dtype):
        return self.compute_dtype

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}


def _normalization_batches(data):
    """The inputs of ``Normalization.adapt``'s batches: a ``tf.data.Dataset`` (unbatched
    rows are batched by 128, as Keras), a ``PyDataset`` or any iterable of batches; of an
    ``(x, y)`` or ``(x, y, sample_weight)`` batch, ``x``."""
    spec = getattr(data, "element_spec", None)
    if spec is not None:
        x_spec = spec[0] if isinstance(spec, tuple) else spec
        if len(x_spec.shape) == 1:
            data = data.batch(128)
    elif hasattr(data, "__getitem__") and hasattr(data, "__len__") and not hasattr(
            data, "__iter__"):
        data = (data[i] for i in range(len(data)))
    for batch in data:
        batch = batch[0] if isinstance(batch, tuple) else batch
        if getattr(batch, "shape", None) is None and not isinstance(batch, list):
            raise TypeError("adapt() expects an iterable that yields arrays or tensors with a "
                            "`.shape` attribute (e.g. numpy arrays or backend tensors). Got an "
                            f"element of type {type(batch).__name__}. Ensure each yielded "
                            "element is array-like with a `.shape` attribute.")
        yield batch


class Normalization(Layer):
    """Feature-wise ``(x - mean) / sqrt(variance)`` (or its inverse with ``invert=True``).

    ``axis``: the axes that keep their own statistics (default -1: one mean per feature;
    None: one scalar for everything). Give ``mean`` and ``variance`` directly, or call
    ``adapt(data)`` on a NumPy array (or an iterable of batches) to compute them; adapted
    statistics are the non-trainable weights ``mean``, ``variance`` (and ``count``, as in
    Keras), so they live in a compiled program's ``state``; ``layer.mean`` and
    ``layer.variance`` are the statistics in the inputs' broadcast shape. Calling the layer
    on values before either is an error (Keras would use mean 0 and variance 1).

    >>> import numpy as np
    >>> layer = Normalization()
    >>> layer.adapt(np.array([[0.0], [2.0]]))
    >>> layer(np.array([[4.0]])).tolist()
    [[3.0]]
    """

    supports_masking = True

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(axis)
        self.axis = axis
        self.input_mean = _to_config_value(mean)
        self.input_variance = _to_config_value(variance)
        self.invert = invert
        self._adapted = False
        self._build_input_shape = None
        if (mean is not None) != (variance is not None):
            raise ValueError("When setting values directly, both `mean` and `variance` must be "
                             f"set. Received: mean={mean} and variance={variance}")
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError("When setting values directly, `mean` and `variance` must "
                                 f"have the same shape. Received: mean shape {np.shape(mean)} "
                                 f"and variance shape {np.shape(variance)}")
            if len(np.shape(mean)) > len(self.axis):
                raise ValueError("The rank of `mean` must be less than or equal to the number "
                                 f"of axes ({len(self.axis)}). Received: mean shape "
                                 f"{np.shape(mean)} for axis {self.axis}")

    def build(self, input_shape):
        ndim = len(input_shape)
        self._build_input_shape = tuple(input_shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(f"All `axis` values must be in the range [-ndim, ndim). Received "
                             f'inputs with ndim={ndim}, while axis={self.axis} (layer '
                             f'"{self.name}")')
        self._keep_axis = tuple(sorted(a % ndim for a in self.axis))
        for d in self._keep_axis:
            if input_shape[d] is None:
                raise ValueError(f"All `axis` values to be kept must have a known shape. "
                                 f"Received axis={self.axis}, inputs.shape="
                                 f"{tuple(input_shape)}, with unknown axis at index {d} "
                                 f'(layer "{self.name}")')
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = tuple(input_shape[d] if d in self._keep_axis else 1
                                      for d in range(ndim))
        self._mean_and_var_shape = tuple(input_shape[d] for d in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(self._mean_and_var_shape, "zeros",
                                              trainable=False, name="mean")
            self.adapt_variance = self.add_weight(self._mean_and_var_shape, "ones",
                                                  trainable=False, name="variance")
            self.count = self.add_weight((), "zeros", trainable=False, name="count",
                                         dtype="int32")
        else:
            mean = np.asarray(self.input_mean, np.float32)
            variance = np.asarray(self.input_variance, np.float32)
            if mean.ndim:  # align mean's axes with the last kept axes
                expanded = [1] * ndim
                for i in range(1, mean.ndim + 1):
                    expanded[self._keep_axis[-i]] = mean.shape[-i]
                mean, variance = mean.reshape(expanded), variance.reshape(expanded)
            try:
                self._constant_mean = np.broadcast_to(mean, self._broadcast_shape)
                self._constant_variance = np.broadcast_to(variance, self._broadcast_shape)
            except ValueError:
                raise ValueError(f'Layer "{self.name}" (Normalization): `mean` and `variance` '
                                 f"of shape {np.shape(self.input_mean)} do not fit inputs of "
                                 f"shape {tuple(input_shape)} with axis={self.axis}: expected "
                                 f"shape {self._mean_and_var_shape} (or broadcastable to "
                                 "it).") from None
        self.built = True

    # ------------------------------------------------------------------ adapt
    def adapt(self, data):
        """Compute ``mean`` and ``variance`` from ``data``: an array, or an iterable of
        batches (arrays, or ``(x, y)`` tuples whose ``x`` is used)."""
        if isinstance(data, (np.ndarray, jax.Array)) or np.isscalar(data):
            batches, input_shape = None, np.shape(data)
        elif hasattr(data, "__iter__") or hasattr(data, "__getitem__"):
            batches = [np.asarray(b) for b in _normalization_batches(data)]
            if not batches:
                raise ValueError("adapt() received an empty iterable (no batches). Expected at "
                                 "least one batch.")
            input_shape = batches[0].shape
        else:
            raise TypeError(f"Unsupported data type: {type(data)}. `adapt` supports arrays and "
                            "iterables of batches.")
        if self.input_mean is not None:
            raise ValueError(f'Layer "{self.name}" was given `mean` and `variance`; it cannot '
                             "also be adapted.")
        if not self.built:
            self._maybe_build(jax.ShapeDtypeStruct(tuple(input_shape), jnp.float32))
        shapes = [input_shape] if batches is None else [b.shape for b in batches]
        for shape in shapes:
            if len(shape) != len(self._build_input_shape) or any(
                    shape[d] != self._build_input_shape[d] for d in self._keep_axis):
                raise ValueError(f'Layer "{self.name}" was built with input_shape='
                                 f"{self._build_input_shape}, but adapt() is being called "
                                 f"with data with an incompatible shape, data.shape={shape}")
        if batches is None:
            array = np.asarray(data, np.float64)
            mean, variance = array.mean(axis=self._reduce_axis), array.var(axis=self._reduce_axis)
            count = int(np.prod([array.shape[d] for d in self._reduce_axis]))
        else:  # combine per-batch moments (as Keras)
            mean = np.zeros(self._mean_and_var_shape)
            variance = np.zeros(self._mean_and_var_shape)
            count = 0
            for batch in batches:
                batch = batch.astype(np.float64)
                batch_mean = batch.mean(axis=self._reduce_axis)
                batch_var = batch.var(axis=self._reduce_axis)
                batch_count = int(np.prod([batch.shape[d] for d in self._reduce_axis]))
                count += batch_count
                weight = batch_count / count
                new_mean = mean * (1 - weight) + batch_mean * weight
                variance = ((variance + (mean - new_mean) ** 2) * (1 - weight)
                            + (batch_var + (batch_mean - new_mean) ** 2) * weight)
                mean = new_mean
        self.adapt_mean = np.asarray(mean, np.float32)
        self.adapt_variance = np.asarray(variance, np.float32)
        self.count = np.asarray(count, np.int32)
        self._adapted = True

    def set_weights(self, values):
        super().set_weights(values)
        self._adapted = True

    def load_own_variables(self, store):
        super().load_own_variables(store)
        self._adapted = True  # statistics from a file, as Keras's

    def _check_adapted(self):
        if self.input_mean is not None or self._adapted:
            return
        try:
            if int(self.count) > 0:
                return
        except jax.errors.ConcretizationTypeError:
            # Traced (jit): trust statistics restored into the variable (compiler.assign).
            stored = self.__dict__["_var_attrs"]["count"]._value
            if stored is not None and int(stored) > 0:
                return
        raise ValueError(f'Layer "{self.name}" (Normalization) has no statistics yet: call '
                         "`adapt(data)` on it before using it (or pass `mean` and `variance` "
                         "to the constructor, or set its weights).")

    # ------------------------------------------------------------------- call
    @property
    def mean(self):
        """The mean in the inputs' broadcast shape (the adapted one, or the given one)."""
        if self.input_mean is not None:
            return jnp.asarray(self._constant_mean, self.compute_dtype)
        return jnp.reshape(self.adapt_mean, self._broadcast_shape).astype(self.compute_dtype)

    @property
    def variance(self):
        """The variance in the inputs' broadcast shape."""
        if self.input_mean is not None:
            return jnp.asarray(self._constant_variance, self.compute_dtype)
        return jnp.reshape(self.adapt_variance, self._broadcast_shape).astype(
            self.compute_dtype)

    def call(self, inputs):
        self._check_adapted()
        dtype = self.compute_dtype
        inputs = inputs.astype(dtype)
        mean, variance = self.mean.astype(dtype), self.variance.astype(dtype)
        try:
            fits = np.broadcast_shapes(inputs.shape, mean.shape) == tuple(inputs.shape)
        except ValueError:
            fits = False
        if not fits:  # statistics broadcast over the inputs, never the other way
            raise ValueError(f'Layer "{self.name}" (Normalization) expects inputs its statistics '
                             f"of shape {tuple(mean.shape)} broadcast to (built for inputs of "
                             f"shape {self._build_input_shape}, axis={self.axis}); received "
                             f"inputs of shape {tuple(inputs.shape)}.")
        std = jnp.maximum(jnp.sqrt(variance), jnp.asarray(epsilon(), dtype))
        if self.invert:
            return mean + inputs * std
        return (inputs - mean) / std

    def compute_output_shape(self, input_shape):
        return input_shape

    def compute_output_dtype(self, input_dtype):
        return self.compute_dtype

    def get_config(self):
        return {**super().get_config(), "axis": list(self.axis), "invert": self.invert,
                "mean": self.input_mean, "variance": self.input_variance}


def _image_axes(ndim, data_format):
    """(height axis, width axis) of a rank-3 (unbatched) or rank-4 image input."""
    if data_format == "channels_last":
        return ndim - 3, ndim - 2
    return ndim - 2, ndim - 1


def _crop_box(height, width, target_height, target_width):
    """Keras's largest centred crop with the target aspect ratio: (top, left, h, w)."""
    crop_height = int(float(width * target_height) / target_width)
    crop_height = max(min(height, crop_height), 1)
    crop_width = int(float(height * target_width) / target_height)
    crop_width = max(min(width, crop_width), 1)
    return (int(float(height - crop_height) / 2), int(float(width - crop_width) / 2),
            crop_height, crop_width)


def _slice_hw(images, h_axis, w_axis, top, left, height, width):
    index = [slice(None)] * images.ndim
    index[h_axis] = slice(top, top + height)
    index[w_axis] = slice(left, left + width)
    return images[tuple(index)]


_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic")


_IMAGES = InputSpec(min_ndim=3, max_ndim=4)


class _ImageLayer(_BoxesMixin, Layer):
    """Base of ``Resizing`` and ``CenterCrop``: images, or Keras's dict form (``images``,
    ``segmentation_masks`` moved alike with nearest interpolation, ``bounding_boxes`` in
    ``bounding_box_format``, ``labels`` unchanged), in training and inference alike."""

    def _check_inputs(self, inputs):
        if not isinstance(inputs, dict):  # a dict's entries are checked by ``call``
            assert_input_compatibility(_IMAGES, inputs, self.name)

    def _call_on_dict(self, data, transform_images, transform_masks):
        if "images" not in data:
            raise ValueError(f"{self._boxes_owner}: a dict input needs an 'images' entry, "
                             f"received keys {sorted(data)}.")
        boxes = self._dense_boxes(data["bounding_boxes"]) if "bounding_boxes" in data else None
        images = jnp.asarray(data["images"])
        assert_input_compatibility(_IMAGES, images, self.name)
        out = {**data, "images": transform_images(images)}
        if "segmentation_masks" in data:
            out["segmentation_masks"] = transform_masks(jnp.asarray(data["segmentation_masks"]))
        if boxes is not None:
            out["bounding_boxes"] = self._apply_to_boxes(boxes, images.shape, None)
        return out

    def _check_rank(self, input_shape):
        if len(input_shape) not in (3, 4):
            raise ValueError(f'Layer "{self.name}" expects images of rank 4 (batch, height, '
                             "width, channels) or 3 (one image); received input shape "
                             f"{tuple(input_shape)}.")

    def compute_output_shape(self, input_shape):
        self._check_rank(input_shape)
        shape = list(input_shape)
        h_axis, w_axis = _image_axes(len(shape), self.data_format)
        shape[h_axis], shape[w_axis] = self.height, self.width
        return tuple(shape)

    def _resize(self, images, interpolation, crop_to_aspect_ratio=False, antialias=False):
        h_axis, w_axis = _image_axes(images.ndim, self.data_format)
        if crop_to_aspect_ratio:
            box = _crop_box(images.shape[h_axis], images.shape[w_axis], self.height, self.width)
            images = _slice_hw(images, h_axis, w_axis, *box)
        shape = list(images.shape)
        shape[h_axis], shape[w_axis] = self.height, self.width
        out_dtype = images.dtype
        if not jnp.issubdtype(out_dtype, jnp.floating):
            images = images.astype(jnp.float32)
        resized = jax.image.resize(images, tuple(shape), method=interpolation,
                                   antialias=antialias)
        if jnp.issubdtype(out_dtype, jnp.integer):  # round and saturate, as Keras
            info = jnp.iinfo(out_dtype)
            resized = jnp.clip(jnp.round(resized), info.min, info.max)
        return resized.astype(out_dtype)


class Resizing(_ImageLayer):
    """Resize images to ``(height, width)`` with ``jax.image.resize``.

    ``interpolation``: "bilinear" (default), "nearest", "bicubic", "lanczos3", "lanczos5".
    ``crop_to_aspect_ratio=True`` first takes the largest centred crop with the target
    aspect ratio (no distortion); ``pad_to_aspect_ratio=True`` pads with ``fill_value``
    to it instead. Inputs: (batch, h, w, c) or one (h, w, c) image
    (channels first with ``data_format="channels_first"``). Integer images stay integer
    (rounded), as in Keras.

    >>> import kgraph as kg
    >>> kg.layers.Resizing(4, 6)(kg.Input(shape=(8, 8, 3))).shape
    (None, 4, 6, 3)
    """

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0,
                 antialias=False, data_format=None, **kwargs):
        super().__init__(**kwargs)
        if interpolation not in _INTERPOLATIONS:
            raise ValueError("Invalid value for argument `interpolation`. Expected of one "
                             f"{_INTERPOLATIONS}. Received: interpolation={interpolation}")
        if fill_mode != "constant":
            raise ValueError("Invalid value for argument `fill_mode`. Only `'constant'` is "
                             f"supported. Received: fill_mode={fill_mode}")
        if pad_to_aspect_ratio and crop_to_aspect_ratio:
            raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can "
                             "be `True`.")
        self.height = arg_checks.positive_int(type(self).__name__, "height", height)
        self.width = arg_checks.positive_int(type(self).__name__, "width", width)
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.antialias = bool(antialias)
        self.data_format = cu.standardize_data_format(data_format)

    def call(self, inputs):
        if isinstance(inputs, dict):
            return self._call_on_dict(inputs, self._resize_images,
                                      lambda masks: self._resize_images(masks, "nearest"))
        return self._resize_images(inputs)

    def _resize_images(self, inputs, interpolation=None):
        if self.pad_to_aspect_ratio:
            inputs = self._pad_to_aspect_ratio(inputs)
        return self._resize(inputs, interpolation or self.interpolation,
                            self.crop_to_aspect_ratio, self.antialias)

    def _box_scales(self, height, width):
        """Keras's ``(scale_y, scale_x, offset_y, offset_x)`` taking boxes of ``height x
        width`` images to the output."""
        if self.pad_to_aspect_ratio:
            ratio = min(self.height / height, self.width / width)
            return (ratio, ratio, (self.height - height * ratio) // 2,
                    (self.width - width * ratio) // 2)
        if self.crop_to_aspect_ratio:
            source, target = width / height, self.width / self.height
            new_h, new_w = ((self.height, self.height * source) if source > target
                            else (self.width / source, self.width))
            return (new_h / height, new_w / width, -((new_h - self.height) // 2),
                    -((new_w - self.width) // 2))
        return self.height / height, self.width / width, 0.0, 0.0

    def _augment_boxes(self, bounding_boxes, images_shape, key):
        height, width = images_shape[1:3]
        return resize_boxes(bounding_boxes, *self._box_scales(height, width),
                            self.bounding_box_format, height, width, self.height, self.width)

    def _pad_to_aspect_ratio(self, images):
        """Pad (with ``fill_value``) both sides of the short axis to the target ratio."""
        h_axis, w_axis = _image_axes(images.ndim, self.data_format)
        height, width = images.shape[h_axis], images.shape[w_axis]
        pad_height = max(height, int(float(width * self.height) / self.width))
        pad_width = max(width, int(float(height * self.width) / self.height))
        top, left = int(float(pad_height - height) / 2), int(float(pad_width - width) / 2)
        pads = [(0, 0)] * images.ndim
        if top > 0:
            pads[h_axis] = (top, top)
        elif left > 0:
            pads[w_axis] = (left, left)
        else:
            return images
        return jnp.pad(images, pads, constant_values=jnp.asarray(self.fill_value, images.dtype))

    def compute_output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width,
                "interpolation": self.interpolation,
                "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "antialias": self.antialias,
                "data_format": self.data_format}


class CenterCrop(_ImageLayer):
    """Crop the centre ``(height, width)`` of images; an image smaller than that is
    resized instead (largest centred crop of the target aspect ratio, then bilinear
    resize), as Keras does. The output is in the compute dtype.

    >>> import kgraph as kg
    >>> kg.layers.CenterCrop(2, 3)(kg.Input(shape=(5, 5, 1))).shape
    (None, 2, 3, 1)
    """

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.height = arg_checks.positive_int(type(self).__name__, "height", height)
        self.width = arg_checks.positive_int(type(self).__name__, "width", width)
        self.data_format = cu.standardize_data_format(data_format)

    def call(self, inputs):
        if isinstance(inputs, dict):
            return self._call_on_dict(inputs, self._crop, self._crop)
        return self._crop(inputs)

    def _window(self, height, width):
        """The window ``(top, left, height, width)`` of ``height x width`` images that is
        kept (and resized to the output if it is smaller)."""
        if height >= self.height and width >= self.width:
            return (height - self.height) // 2, (width - self.width) // 2, self.height, self.width
        return _crop_box(height, width, self.height, self.width)

    def _augment_boxes(self, bounding_boxes, images_shape, key):
        height, width = images_shape[1:3]
        return crop_boxes(bounding_boxes, *self._window(height, width),
                          self.bounding_box_format, height, width, self.height, self.width)

    def _crop(self, inputs):
        inputs = inputs.astype(self.compute_dtype)
        h_axis, w_axis = _image_axes(inputs.ndim, self.data_format)
        h_diff = inputs.shape[h_axis] - self.height
        w_diff = inputs.shape[w_axis] - self.width
        if h_diff >= 0 and w_diff >= 0:
            return _slice_hw(inputs, h_axis, w_axis, h_diff // 2, w_diff // 2, self.height,
                             self.width)
        return self._resize(inputs, "bilinear", crop_to_aspect_ratio=True)

    def compute_output_dtype(self, input_dtype):
        return self.compute_dtype

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width,
                "data_format": self.data_format}
