"""More of ``keras.ops``'s NumPy surface: creation, elementwise math, bitwise, NaN-aware
reductions, statistics, splitting/stacking, set and search ops. Each works on arrays and
on KerasTensors (creation ops, which take no tensors, always compute at once).

>>> from kgraph import ops
>>> ops.arange(3).tolist(), ops.ones((2,)).tolist(), ops.eye(2).tolist()
([0, 1, 2], [1.0, 1.0], [[1.0, 0.0], [0.0, 1.0]])
>>> ops.hypot(3.0, 4.0).tolist()
5.0
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import numpy as np

from kgraph import config
from kgraph.base.tensor_kinds import dense_only
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.ops import shape_rules
from kgraph.ops.registry import (Operation, is_symbolic, register_array_function,
                                 register_custom, register_op)

_float = config.floatx


def _dt(dtype):
    return dtype or _float()


# ----------------------------------------------------------------- creation (no tensors)
@register_op("ones", tensors=0)
def ones(shape, dtype=None):
    """An array of ones (``floatx()`` by default)."""
    return jnp.ones(shape, _dt(dtype))


@register_op("zeros", tensors=0)
def zeros(shape, dtype=None):
    """An array of zeros (``floatx()`` by default)."""
    return jnp.zeros(shape, _dt(dtype))


@register_op("empty", tensors=0)
def empty(shape, dtype=None):
    """An array of the shape (zeros: JAX has no uninitialised memory)."""
    return jnp.zeros(shape, _dt(dtype))


@register_op("full", tensors=("fill_value",))
def full(shape, fill_value, dtype=None):
    """An array filled with ``fill_value`` (``floatx()`` unless ``dtype`` is given)."""
    return jnp.full(shape, fill_value, _dt(dtype))


@register_op("eye", tensors=0)
def eye(N, M=None, k=0, dtype=None):  # noqa: N803 - keras.ops names
    """Ones on the ``k``-th diagonal of an ``N x M`` matrix."""
    return jnp.eye(N, M, k, dtype=_dt(dtype))


@register_op("identity", tensors=0)
def identity(n, dtype=None):
    """The ``n x n`` identity matrix."""
    return jnp.identity(n, _dt(dtype))


@register_op("tri", tensors=0)
def tri(N, M=None, k=0, dtype=None):  # noqa: N803 - keras.ops names
    """Ones at and below the ``k``-th diagonal."""
    return jnp.tri(N, M, k, dtype=_dt(dtype))


@register_op("arange", tensors=3)
def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)`` (ints stay int32, as Keras)."""
    if step is None:
        step = 1
    if dtype is None:
        values = [v for v in (start, stop, step) if v is not None]
        dtype = "int32" if builtins.all(_is_integer(v) for v in values) else _float()
    return jnp.arange(start, stop, step, dtype=dtype)


def _is_integer(value) -> bool:
    return isinstance(value, (int, np.integer)) or (
        hasattr(value, "dtype") and jnp.issubdtype(value.dtype, jnp.integer))


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    return jnp.linspace(start, stop, num, endpoint, retstep, dtype or _float(), axis)


def _logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    return jnp.logspace(start, stop, num, endpoint, base, dtype or _float(), axis)


def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return jnp.geomspace(start, stop, num, endpoint, dtype or _float(), axis)


_linspace.__name__, _logspace.__name__, _geomspace.__name__ = "linspace", "logspace", "geomspace"
linspace, logspace, geomspace = (
    register_op(fn.__name__, tensors=2, spec=shape_rules.spacing_spec(fn))(fn)
    for fn in (_linspace, _logspace, _geomspace))


def _window(fn):
    def window(x):
        return fn(x).astype(_float())
    return window


for _name, _fn in {"bartlett": jnp.bartlett, "blackman": jnp.blackman, "hamming": jnp.hamming,
                   "hanning": jnp.hanning}.items():
    globals()[_name] = register_op(_name, tensors=0)(_window(_fn))


@register_op("kaiser", tensors=0)
def kaiser(x, beta):
    return jnp.kaiser(x, beta).astype(_float())


@register_op("array")
def array(x, dtype=None):
    """``x`` as an array."""
    return jnp.asarray(x, dtype)


# ---------------------------------------------------------------------- elementwise
_UNARY = {
    "arccosh": jnp.arccosh, "arcsinh": jnp.arcsinh, "cbrt": jnp.cbrt, "conj": jnp.conj,
    "conjugate": jnp.conjugate, "deg2rad": jnp.deg2rad, "rad2deg": jnp.rad2deg,
    "exp2": jnp.exp2, "fabs": jnp.fabs, "imag": jnp.imag, "real": jnp.real,
    "angle": jnp.angle, "isneginf": jnp.isneginf, "isposinf": jnp.isposinf,
    "isreal": jnp.isreal, "log10": jnp.log10, "log2": jnp.log2, "sinc": jnp.sinc,
    "signbit": jnp.signbit, "trunc": jnp.trunc, "i0": jnp.i0, "copy": jnp.array,
    "bitwise_not": jnp.bitwise_not, "bitwise_invert": jnp.invert,
    "erfc": jax.scipy.special.erfc, "erfinv": jax.scipy.special.erfinv,
}
_BINARY = {
    "arctan2": jnp.arctan2, "fmax": jnp.fmax, "fmin": jnp.fmin, "fmod": jnp.fmod,
    "gcd": jnp.gcd, "lcm": jnp.lcm, "heaviside": jnp.heaviside, "hypot": jnp.hypot,
    "ldexp": jnp.ldexp, "logaddexp": jnp.logaddexp, "logaddexp2": jnp.logaddexp2,
    "nextafter": jnp.nextafter, "true_divide": jnp.true_divide,
}
# Keras names these operands x and y
_BITWISE = {
    "bitwise_and": jnp.bitwise_and, "bitwise_or": jnp.bitwise_or,
    "bitwise_xor": jnp.bitwise_xor, "bitwise_left_shift": jnp.left_shift,
    "bitwise_right_shift": jnp.right_shift, "left_shift": jnp.left_shift,
    "right_shift": jnp.right_shift,
}
for _name, _fn in _UNARY.items():
    globals()[_name] = register_array_function(_name, _fn, ("x",))
for _name, _fn in _BINARY.items():
    globals()[_name] = register_array_function(_name, _fn, ("x1", "x2"))
for _name, _fn in _BITWISE.items():
    globals()[_name] = register_array_function(_name, _fn, ("x", "y"))
for _name, _fn in {"inner": jnp.inner, "kron": jnp.kron, "vdot": jnp.vdot}.items():
    globals()[_name] = register_array_function(
        _name, _fn, ("x1", "x2"), elementwise=False,
        spec=shape_rules.inner_spec if _name == "inner" else None)


@register_op("correlate", tensors=2)
def correlate(x1, x2, mode="valid"):
    """The cross-correlation of two 1-D sequences (``mode``: valid, same or full)."""
    return jnp.correlate(x1, x2, mode=mode)


@register_op("cross", tensors=2, spec=shape_rules.cross_spec)
def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of (batches of) 2- or 3-vectors."""
    return jnp.cross(x1, x2, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)


@register_op("divide_no_nan", tensors=2, elementwise=True)
def divide_no_nan(x1, x2):
    """``x1 / x2``, and 0 where ``x2`` is 0."""
    safe = jnp.where(x2 == 0, 1, x2)
    return jnp.where(x2 == 0, 0, jnp.true_divide(x1, safe))


@register_op("isclose", tensors=4, elementwise=True)
def isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    return jnp.isclose(x1, x2, rtol, atol, equal_nan)


@register_op("allclose", tensors=2, spec=shape_rules.allclose_spec)
def allclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    return jnp.allclose(x1, x2, rtol, atol, equal_nan)


@register_op("isin", tensors=2)
def isin(x1, x2, assume_unique=False, invert=False):
    return jnp.isin(x1, x2, assume_unique=assume_unique, invert=invert)


# ----------------------------------------------------------------------- reductions
def _reduction(fn):
    def reduce(x, axis=None, keepdims=False):
        return fn(x, axis=axis, keepdims=keepdims)
    return reduce


for _name, _fn in {"amax": jnp.max, "amin": jnp.min, "nanmax": jnp.nanmax,
                   "nanmin": jnp.nanmin, "nansum": jnp.nansum, "nanprod": jnp.nanprod,
                   "nanmean": jnp.nanmean, "nanmedian": jnp.nanmedian,
                   "median": jnp.median, "ptp": jnp.ptp}.items():
    globals()[_name] = register_op(_name)(_reduction(_fn))


@register_op("nanvar")
def nanvar(x, axis=None, keepdims=False):
    return jnp.nanvar(x, axis=axis, keepdims=keepdims)


@register_op("nanstd")
def nanstd(x, axis=None, keepdims=False):
    return jnp.nanstd(x, axis=axis, keepdims=keepdims)


@register_op("nanargmax")
def nanargmax(x, axis=None, keepdims=False):
    return jnp.nanargmax(x, axis=axis, keepdims=keepdims).astype("int32")


@register_op("nanargmin")
def nanargmin(x, axis=None, keepdims=False):
    return jnp.nanargmin(x, axis=axis, keepdims=keepdims).astype("int32")


def _nan_cumulative(fn, x, axis, dtype, neutral):
    """``fn`` (nancumsum, nancumprod) over ``axis``: a one-element tuple names one axis,
    an empty one none (the values with NaNs replaced by ``neutral``)."""
    if isinstance(axis, (tuple, list)):
        if len(axis) > 1:
            raise ValueError(f"A cumulative op runs along one axis; received axis={axis}.")
        if not axis:
            x = jnp.asarray(x, dtype)
            return jnp.where(jnp.isnan(x), neutral, x) if jnp.issubdtype(
                x.dtype, jnp.inexact) else x
        axis = axis[0]
    return fn(x, axis=axis, dtype=dtype)


@register_op("nancumsum")
def nancumsum(x, axis=None, dtype=None):
    return _nan_cumulative(jnp.nancumsum, x, axis, dtype, 0)


@register_op("nancumprod")
def nancumprod(x, axis=None, dtype=None):
    return _nan_cumulative(jnp.nancumprod, x, axis, dtype, 1)


@register_op("quantile", tensors=2)
def quantile(x, q, axis=None, method="linear", keepdims=False):
    x = jnp.asarray(x)
    x = x if jnp.issubdtype(x.dtype, jnp.floating) else x.astype(_float())
    return jnp.quantile(x, jnp.asarray(q, x.dtype), axis=axis, method=method,
                        keepdims=keepdims)


@register_op("percentile", tensors=2)
def percentile(x, q, axis=None, method="linear", keepdims=False):
    x = jnp.asarray(x)
    x = x if jnp.issubdtype(x.dtype, jnp.floating) else x.astype(_float())
    return jnp.percentile(x, jnp.asarray(q, x.dtype), axis=axis, method=method,
                          keepdims=keepdims)


@register_op("nanquantile", tensors=2)
def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    return jnp.nanquantile(x, q, axis=axis, method=method, keepdims=keepdims)


@register_op("nanpercentile", tensors=2)
def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    return jnp.nanpercentile(x, q, axis=axis, method=method, keepdims=keepdims)


@register_op("average", tensors=2)
def average(x, weights=None, axis=None):
    """The (weighted) mean along ``axis``."""
    return jnp.average(x, axis=axis, weights=weights)


@register_op("trace")
def trace(x, offset=0, axis1=0, axis2=1):
    return jnp.trace(x, offset, axis1, axis2)


@register_op("trapezoid", tensors=2)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    return jax.scipy.integrate.trapezoid(y, x, dx, axis)


@register_op("corrcoef")
def corrcoef(x):
    return jnp.corrcoef(x)


def _bincount_spec(x, weights=None, minlength=0, sparse=False):
    # the length depends on the values: unknown, as Keras's
    def struct(t):
        return jax.ShapeDtypeStruct((1,), t.dtype if hasattr(t, "dtype") else jnp.asarray(t).dtype)

    counts = jax.eval_shape(lambda a, w: jnp.bincount(a, w, length=1), struct(x),
                            None if weights is None else struct(weights))
    return KerasTensor(tuple(x.shape[:-1]) + (None,), counts.dtype)


@register_op("bincount", tensors=2, spec=_bincount_spec)
def bincount(x, weights=None, minlength=0, sparse=False):
    """Counts of each value (eager: the length depends on the values unless
    ``minlength`` covers them)."""
    dense_only("ops.bincount", sparse)
    x = jnp.asarray(x)
    length = builtins.max(int(minlength), int(jnp.max(x)) + 1 if x.size else 0)
    if x.ndim == 2:
        return jax.vmap(lambda r, w: jnp.bincount(r, w, length=length))(
            x, jnp.ones_like(x) if weights is None else weights)
    return jnp.bincount(x, weights, length=length)


def _check_histogram(bins=10, range=None):  # noqa: A002 - keras.ops name
    if not isinstance(bins, int) or isinstance(bins, bool):
        raise TypeError(f"Argument `bins` must be of type `int`. Received: bins={bins}")
    if bins < 0:
        raise ValueError(f"Argument `bins` should be a non-negative integer. Received: "
                         f"bins={bins}")
    if range:
        if not isinstance(range, (tuple, list)) or len(range) != 2:
            raise ValueError(f"Argument `range` must be a tuple of two elements. Received: "
                             f"range={range}")
        if range[1] < range[0]:
            raise ValueError("The second element of `range` must be greater than the first. "
                             f"Received: range={range}")


@register_op("histogram", check=_check_histogram)
def histogram(x, bins=10, range=None):  # noqa: A002 - keras.ops name
    """``(counts, bin_edges)`` of the 1-D ``x`` in ``bins`` equal bins over ``range``."""
    x = jnp.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"Input tensor must be 1-dimensional. Received: input.shape={x.shape}")
    return jnp.histogram(x, bins=bins, range=None if range is None else tuple(range))


@register_op("digitize", tensors=2)
def digitize(x, bins):
    return jnp.digitize(x, bins).astype("int32")


@register_op("searchsorted", tensors=2)
def searchsorted(sorted_sequence, values, side="left"):
    return jnp.searchsorted(sorted_sequence, values, side=side).astype("int32")


# --------------------------------------------------------------- shape and indexing
@register_op("append", tensors=2)
def append(x1, x2, axis=None):
    return jnp.append(x1, x2, axis=axis)


@register_op("diff")
def diff(a, n=1, axis=-1):
    return jnp.diff(a, n, axis)


@register_op("diag", spec=shape_rules.diag_spec)
def diag(x, k=0):
    return jnp.diag(x, k)


@register_op("diagflat")
def diagflat(x, k=0):
    return jnp.diagflat(x, k)


@register_op("diagonal", spec=shape_rules.diagonal_spec)
def diagonal(x, offset=0, axis1=0, axis2=1):
    x = jnp.asarray(x)
    if shape_rules.canonical_axis(axis1, x.ndim) == shape_rules.canonical_axis(axis2, x.ndim):
        raise ValueError("`axis1` and `axis2` cannot refer to the same axis. Received "
                         f"axis1={axis1}, axis2={axis2} for an input of rank {x.ndim}.")
    return jnp.diagonal(x, offset, axis1, axis2)


@register_op("fliplr")
def fliplr(x):
    return jnp.fliplr(x)


@register_op("flipud")
def flipud(x):
    return jnp.flipud(x)


@register_op("rot90")
def rot90(array, k=1, axes=(0, 1)):
    return jnp.rot90(array, k, tuple(axes))


@register_op("hstack", spec=shape_rules.stacked_concatenation_spec("h"))
def hstack(xs):
    return jnp.hstack(xs)


@register_op("vstack", spec=shape_rules.stacked_concatenation_spec("v"))
def vstack(xs):
    return jnp.vstack(xs)


@register_op("dstack", spec=shape_rules.stacked_concatenation_spec("d"))
def dstack(xs):
    return jnp.dstack(xs)


@register_op("array_split")
def array_split(x, indices_or_sections, axis=0):
    return jnp.array_split(x, indices_or_sections, axis)


@register_op("hsplit", spec=shape_rules.stack_split_spec(1))
def hsplit(x, indices_or_sections):
    return jnp.hsplit(x, indices_or_sections)


@register_op("vsplit", spec=shape_rules.stack_split_spec(0))
def vsplit(x, indices_or_sections):
    return jnp.vsplit(x, indices_or_sections)


@register_op("dsplit", spec=shape_rules.stack_split_spec(2))
def dsplit(x, indices_or_sections):
    return jnp.dsplit(x, indices_or_sections)


def _meshgrid_impl(*x, indexing="xy"):
    return tuple(jnp.meshgrid(*(jnp.ravel(v) for v in x), indexing=indexing))


_meshgrid_impl.__name__ = "meshgrid"


def meshgrid(*x, indexing="xy"):
    """Coordinate grids from arrays (each flattened), ``indexing`` ``"xy"`` (Cartesian) or
    ``"ij"`` (matrix); a list of arrays."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"ops.meshgrid: Valid values for `indexing` are 'xy' and 'ij'. "
                         f"Received: indexing={indexing}")
    if not is_symbolic(x):
        return list(_meshgrid_impl(*x, indexing=indexing))
    return list(Operation(_meshgrid_impl, indexing=indexing)(*x))


register_custom("meshgrid", _meshgrid_impl, meshgrid)


@register_op("vander")
def vander(x, N=None, increasing=False):  # noqa: N803 - keras.ops name
    return jnp.vander(x, N, increasing)


@register_op("select", tensors=3)
def select(condlist, choicelist, default=0):
    return jnp.select(condlist, choicelist, default)


@register_op("argpartition", spec=shape_rules.argpartition_spec)
def argpartition(x, kth, axis=-1):
    """Indices partitioning ``x`` around its ``kth`` smallest value along ``axis`` (None:
    the flattened input)."""
    if axis is None:
        x, axis = jnp.ravel(x), -1
    return jnp.argpartition(x, kth, axis).astype("int32")


def _nonzero_spec(x):
    """One index vector per axis, of a length the values decide."""
    return tuple(KerasTensor((None,), "int32") for _ in x.shape)


@register_op("nonzero", spec=_nonzero_spec)
def nonzero(x):
    """Indices of the nonzero entries (eager: the size depends on the values)."""
    return tuple(i.astype("int32") for i in jnp.nonzero(x))


def _unique_spec(x, sorted=True, return_index=False, return_inverse=False,  # noqa: A002
                 return_counts=False, axis=None, size=None, fill_value=None):
    """The distinct values (``size`` of them, unknown when None) and the requested index
    vectors."""
    if axis is None:
        values_shape = (size,)
    else:
        values_shape = list(x.shape)
        values_shape[axis] = size
    outputs = [KerasTensor(tuple(values_shape), x.dtype)]
    if return_index:
        outputs.append(KerasTensor((size,), "int32"))
    if return_inverse:
        outputs.append(KerasTensor(x.shape if axis is None else (x.shape[axis],), "int32"))
    if return_counts:
        outputs.append(KerasTensor((size,), "int32"))
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


@register_op("unique", spec=_unique_spec)
def unique(x, sorted=True, return_index=False, return_inverse=False,  # noqa: A002
           return_counts=False, axis=None, size=None, fill_value=None):
    """The distinct values (eager unless ``size`` is given); with ``return_index``,
    ``return_inverse``, ``return_counts``: a tuple, as NumPy's."""
    found = jnp.unique(x, return_index=return_index, return_inverse=return_inverse,
                       return_counts=return_counts, axis=axis, size=size,
                       fill_value=fill_value, equal_nan=False, sorted=sorted)  # NaNs apart
    if isinstance(found, tuple):
        return tuple(found[:1]) + tuple(a.astype("int32") for a in found[1:])
    return found


@register_op("unravel_index")
def unravel_index(indices, shape):
    return jnp.unravel_index(jnp.asarray(indices), shape)  # indices' dtype, as Keras's


def _size(x):
    return jnp.asarray(jnp.size(x), "int32")


_size.__name__ = "size"


def size(x):
    """The number of elements: a Python int when the shape is known (as ``ops.shape``
    gives it); for a KerasTensor of unknown size, a node computing it (an int32 scalar)."""
    dims = tuple(x.shape) if hasattr(x, "shape") else np.shape(x)
    if builtins.any(d is None for d in dims):
        return Operation(_size)(x)
    return int(np.prod(dims, dtype=np.int64))


register_custom("size", _size, size, spec=lambda x: KerasTensor((), "int32"))


@register_op("view")
def view(x, dtype=None):
    """``x``'s bytes reinterpreted as ``dtype`` (the last axis rescaled when the item sizes
    differ)."""
    x = jnp.asarray(x)
    return x if dtype is None else x.view(dtype)


def vectorize(pyfunc, *, excluded=None, signature=None):
    """``jnp.vectorize``: ``pyfunc`` over the trailing core dimensions (arrays only)."""
    return jnp.vectorize(pyfunc, excluded=excluded or set(), signature=signature)


__all__ = sorted(name for name, value in list(globals().items())
                 if callable(value) and not name.startswith("_") and getattr(
                     value, "__module__", None) in (__name__, "kgraph.ops.registry")
                 and name not in ("Operation", "is_symbolic", "register_array_function",
                                  "register_custom", "register_op"))


from kgraph.ops.core import empty_like  # noqa: E402 - keras.ops.numpy names these too

slogdet = register_array_function("slogdet", jnp.linalg.slogdet, ("x",), elementwise=False)

__all__ = sorted({*__all__, "empty_like", "slogdet"})
