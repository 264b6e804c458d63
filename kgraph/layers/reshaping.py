"""Reshaping layers: ``Flatten``, ``Reshape``, ``Permute``, ``RepeatVector``,
``Cropping1D/2D/3D``, ``ZeroPadding1D/2D/3D``, ``UpSampling1D/2D/3D``."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.ops import conv_utils as cu

__all__ = [
    "Cropping1D", "Cropping2D", "Cropping3D", "Flatten", "Permute", "RepeatVector", "Reshape",
    "UpSampling1D", "UpSampling2D", "UpSampling3D", "ZeroPadding1D", "ZeroPadding2D",
    "ZeroPadding3D"
]


class Flatten(Layer):
    """Flatten all axes but the batch axis: (N, a, b) -> (N, a*b).

    >>> import kgraph as kg
    >>> kg.layers.Flatten()(kg.Input(shape=(8, 8))).shape
    (None, 64)
    """

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        if self.data_format == "channels_first" and inputs.ndim > 2:
            inputs = inputs.transpose((0, *range(2, inputs.ndim), 1))
        return inputs.reshape((inputs.shape[0], -1))

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        size = None if any(d is None for d in rest) else math.prod(rest)
        return (input_shape[0], size)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


class Reshape(Layer):
    """Reshape all axes but the batch axis to ``target_shape`` (one entry may be -1).

    >>> import kgraph as kg
    >>> kg.layers.Reshape((4, -1))(kg.Input(shape=(8,))).shape
    (None, 4, 2)
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        shape = (target_shape,) if isinstance(target_shape, int) else tuple(target_shape)
        if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
            raise ValueError(f'Layer "{self.name}" (Reshape): target_shape must be ints, '
                             f"received target_shape={shape!r}.")
        if any(d < -1 for d in shape):
            raise ValueError(f'Layer "{self.name}" (Reshape): Each dimension in `target_shape` '
                             "must be a non-negative integer, or `-1` for a single unknown "
                             f"dimension. Received: target_shape={shape}.")
        self.target_shape = tuple(int(d) for d in shape)
        if sum(d == -1 for d in self.target_shape) > 1:
            raise ValueError(f'Layer "{self.name}" (Reshape): There must be at most one unknown '
                             f"dimension (-1) in `target_shape`. Received: target_shape="
                             f"{self.target_shape}.")
        self.built = True  # as Keras's

    def call(self, inputs):
        return inputs.reshape((inputs.shape[0], *self.target_shape))

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        target = list(self.target_shape)
        if any(d is None for d in rest):
            return (input_shape[0], *[None if d == -1 else d for d in target])
        size, known = math.prod(rest), math.prod(d for d in target if d != -1)
        if -1 in target:
            if known == 0 or size % known:
                raise ValueError(self._mismatch(input_shape))
            target[target.index(-1)] = size // known
        elif size != known:
            raise ValueError(self._mismatch(input_shape))
        return (input_shape[0], *target)

    def _mismatch(self, input_shape):
        return (f'Layer "{self.name}" (Reshape) cannot reshape input of shape {input_shape} to '
                f"target_shape {self.target_shape}: the total size must be unchanged.")

    def _check_inputs(self, inputs):
        super()._check_inputs(inputs)
        self.compute_output_shape(inputs.shape)  # a size that cannot match: an error now

    def get_config(self):
        return {**super().get_config(), "target_shape": self.target_shape}


class Permute(Layer):
    """Permute the non-batch axes: ``dims`` is a permutation of ``1..rank``.

    >>> import kgraph as kg
    >>> kg.layers.Permute((2, 1))(kg.Input(shape=(3, 4))).shape
    (None, 4, 3)
    """

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError("Invalid permutation argument `dims` for Permute Layer. The set of "
                             "indices in `dims` must be consecutive and start from 1. "
                             f"Received dims={dims}")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs):
        return jnp.transpose(inputs, (0, *self.dims))

    def compute_output_shape(self, input_shape):
        return (input_shape[0], *(input_shape[d] for d in self.dims))

    def get_config(self):
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    """Repeat a ``(batch, features)`` input ``n`` times: ``(batch, n, features)``.

    >>> import kgraph as kg
    >>> kg.layers.RepeatVector(3)(kg.Input(shape=(2,))).shape
    (None, 3, 2)
    """

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        if n <= 0:
            raise ValueError(f"Argument `n` should be a positive integer. Received: n={n}")
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        return jnp.repeat(inputs[:, None, :], self.n, axis=1)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self):
        return {**super().get_config(), "n": self.n}


class _Spatial(Layer):
    """A layer acting on the ``rank`` spatial axes of channels-last/first inputs."""

    rank = None

    def _init_spatial(self, data_format):
        self.data_format = cu.standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _axes(self):
        return cu.spatial_axes(self.rank, self.data_format)

    def _map_spatial(self, input_shape, fn):
        shape = list(input_shape)
        for i, axis in enumerate(self._axes()):
            shape[axis] = None if shape[axis] is None else fn(i, shape[axis])
        return tuple(shape)

    def build(self, input_shape):
        cu.check_rank(self, input_shape, self.rank + 2)
        self.compute_output_shape(input_shape)
        self.built = True


class _Cropping(_Spatial):
    def _init_cropping(self, cropping, data_format):
        self._init_spatial(data_format)
        if self.rank == 1:
            self.cropping = cu.standardize_tuple(cropping, 2, "cropping", allow_zero=True)
        else:
            self.cropping = cu.standardize_pairs(
                cropping, self.rank, "cropping",
                f"`cropping` should be either an int, a tuple of {self.rank} ints or a tuple "
                f"of {self.rank} tuples of 2 ints.")

    def _pairs(self):
        return (self.cropping,) if self.rank == 1 else self.cropping

    def compute_output_shape(self, input_shape):
        pairs = self._pairs()

        def crop(i, length):
            if sum(pairs[i]) >= length:
                what = ("`cropping` parameter of `Cropping1D` layer must be smaller than the "
                        "input length" if self.rank == 1 else "Values in `cropping` argument "
                        "should be smaller than the corresponding spatial dimension of the input")
                raise ValueError(f'Layer "{self.name}": {what}. Received: input_shape='
                                 f"{tuple(input_shape)}, cropping={self.cropping}")
            return length - sum(pairs[i])

        return self._map_spatial(input_shape, crop)

    def call(self, inputs):
        index = [slice(None)] * inputs.ndim
        for axis, (start, end) in zip(self._axes(), self._pairs()):
            index[axis] = slice(start, -end if end else None)
        return inputs[tuple(index)]

    def get_config(self):
        config = {**super().get_config(), "cropping": self.cropping}
        if self.rank > 1:
            config["data_format"] = self.data_format
        return config


class Cropping1D(_Cropping):
    """Crop ``cropping = (start, end)`` steps off axis 1 of ``(batch, steps, features)``.

    >>> import kgraph as kg
    >>> kg.layers.Cropping1D((1, 2))(kg.Input(shape=(6, 3))).shape
    (None, 3, 3)
    """

    rank = 1

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self._init_cropping(cropping, None)


class Cropping2D(_Cropping):
    """Crop ``((top, bottom), (left, right))`` (or an int, or two symmetric ints)."""

    rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._init_cropping(cropping, data_format)


class Cropping3D(_Cropping):
    """Crop three ``(start, end)`` pairs off the spatial axes of a 5D input."""

    rank = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._init_cropping(cropping, data_format)


class _ZeroPadding(_Spatial):
    def _init_padding(self, padding, data_format):
        self._init_spatial(data_format)
        if self.rank == 1:
            self.padding = cu.standardize_tuple(padding, 2, "padding", allow_zero=True)
        else:
            self.padding = cu.standardize_pairs(
                padding, self.rank, "padding",
                f"`padding` should be either an int, a tuple of {self.rank} ints or a tuple "
                f"of {self.rank} tuples of 2 ints.")

    def _pairs(self):
        return (self.padding,) if self.rank == 1 else self.padding

    def compute_output_shape(self, input_shape):
        pairs = self._pairs()
        return self._map_spatial(input_shape, lambda i, length: length + sum(pairs[i]))

    def call(self, inputs):
        widths = [(0, 0)] * inputs.ndim
        for axis, pair in zip(self._axes(), self._pairs()):
            widths[axis] = tuple(pair)
        return jnp.pad(inputs, widths)

    def get_config(self):
        return {**super().get_config(), "padding": self.padding,
                "data_format": self.data_format}


class ZeroPadding1D(_ZeroPadding):
    """Pad ``padding`` (int or ``(start, end)``) zeros on the steps axis.

    >>> import kgraph as kg
    >>> kg.layers.ZeroPadding1D(2)(kg.Input(shape=(3, 1))).shape
    (None, 7, 1)
    """

    rank = 1

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._init_padding(padding, data_format)


class ZeroPadding2D(_ZeroPadding):
    """Pad zeros: an int, two symmetric ints, or ``((top, bottom), (left, right))``."""

    rank = 2

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._init_padding(padding, data_format)


class ZeroPadding3D(_ZeroPadding):
    """Pad zeros on the three spatial axes of a 5D input."""

    rank = 3

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._init_padding(padding, data_format)


class _UpSampling(_Spatial):
    def _factors(self):
        return (self.size,) if self.rank == 1 else self.size

    def compute_output_shape(self, input_shape):
        factors = self._factors()
        return self._map_spatial(input_shape, lambda i, length: length * factors[i])

    def call(self, inputs):
        for axis, factor in zip(self._axes(), self._factors()):
            inputs = jnp.repeat(inputs, factor, axis=axis)
        return inputs


class UpSampling1D(_UpSampling):
    """Repeat each step ``size`` times.

    >>> import kgraph as kg
    >>> kg.layers.UpSampling1D(3)(kg.Input(shape=(2, 4))).shape
    (None, 6, 4)
    """

    rank = 1

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"Expected an integer value for `size`, got {type(size)}.")
        if size <= 0:
            raise ValueError(f"Argument `size` should be a positive integer. Received: "
                             f"size={size}")
        self.size = size
        self._init_spatial(None)

    def get_config(self):
        return {**super().get_config(), "size": self.size}


_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "lanczos3", "lanczos5")


class UpSampling2D(_UpSampling):
    """Scale height and width by ``size``: ``"nearest"`` repeats rows and columns, other
    interpolations use ``jax.image.resize`` (no antialiasing, as Keras)."""

    rank = 2

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = cu.standardize_tuple(size, 2, "size")
        self.interpolation = str(interpolation).lower()
        if self.interpolation not in _INTERPOLATIONS:
            raise ValueError(f"Invalid value for argument `interpolation`. Expected one of "
                             f"{_INTERPOLATIONS}. Received: interpolation={interpolation}")
        self._init_spatial(data_format)

    def call(self, inputs):
        if self.interpolation == "nearest":
            return super().call(inputs)
        x = cu.float_input(self, inputs)
        shape = list(x.shape)
        for axis, factor in zip(self._axes(), self.size):
            shape[axis] = shape[axis] * factor
        return jax.image.resize(x, tuple(shape), method=self.interpolation, antialias=False)

    def compute_output_dtype(self, input_dtype):
        if self.interpolation != "nearest" and not jnp.issubdtype(input_dtype, jnp.floating):
            return self.compute_dtype
        return input_dtype

    def get_config(self):
        return {**super().get_config(), "size": self.size, "data_format": self.data_format,
                "interpolation": self.interpolation}


class UpSampling3D(_UpSampling):
    """Repeat along the three spatial axes by ``size``."""

    rank = 3

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = cu.standardize_tuple(size, 3, "size")
        self._init_spatial(data_format)

    def get_config(self):
        return {**super().get_config(), "size": self.size, "data_format": self.data_format}
