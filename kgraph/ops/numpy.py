"""NumPy-like ops (``keras.ops`` names and arguments): math, reductions, comparisons,
logic, shapes and indexing. Re-exported by ``kgraph.ops``; see ``kgraph.ops.registry``.

Names here shadow Python builtins (``sum``, ``max``, ``any``, ``slice``, ``round``...):
code in this module must not call those builtins by their bare names.
"""

from __future__ import annotations

import builtins
import inspect

import jax
import jax.numpy as jnp

from kgraph import config
from kgraph.base import target_platform
from kgraph.graph.keras_tensor import OPERATORS, KerasTensor
from kgraph.ops import einsum_rules, shape_rules
from kgraph.ops.registry import (Operation, get_op, is_symbolic, register_array_function,
                                 register_custom, register_op)
from kgraph.ops.registry import static_axis as _axis

_HALF = (jnp.dtype("float16"), jnp.dtype("bfloat16"))


def _statistic_dtypes(x):
    """(compute, result) dtypes of Keras's mean/var: float32 accumulation, ints -> float."""
    if jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.promote_types(x.dtype, jnp.float32), x.dtype
    return jnp.float32, jnp.float32


# ------------------------------------------------------------------ elementwise
_UNARY = {
    "negative": jnp.negative, "abs": jnp.abs, "absolute": jnp.absolute, "exp": jnp.exp,
    "log": jnp.log, "sqrt": jnp.sqrt, "square": jnp.square, "sin": jnp.sin, "cos": jnp.cos,
    "tan": jnp.tan, "tanh": jnp.tanh, "sinh": jnp.sinh, "cosh": jnp.cosh,
    "arcsin": jnp.arcsin, "arccos": jnp.arccos, "arctan": jnp.arctan, "arctanh": jnp.arctanh,
    "sign": jnp.sign, "log1p": jnp.log1p,
    "expm1": jnp.expm1, "reciprocal": jnp.reciprocal, "logical_not": jnp.logical_not,
    "isnan": jnp.isnan, "isinf": jnp.isinf, "isfinite": jnp.isfinite,
    "erf": jax.scipy.special.erf,
}
_BINARY = {
    "add": jnp.add, "subtract": jnp.subtract, "multiply": jnp.multiply, "divide": jnp.divide,
    "power": jnp.power, "maximum": jnp.maximum, "minimum": jnp.minimum, "mod": jnp.mod,
    "floor_divide": jnp.floor_divide, "equal": jnp.equal, "not_equal": jnp.not_equal,
    "greater": jnp.greater, "greater_equal": jnp.greater_equal, "less": jnp.less,
    "less_equal": jnp.less_equal, "logical_and": jnp.logical_and,
    "logical_or": jnp.logical_or, "logical_xor": jnp.logical_xor,
}
for _name, _fn in _UNARY.items():
    globals()[_name] = register_array_function(_name, _fn, ("x",))
for _name, _fn in _BINARY.items():
    globals()[_name] = register_array_function(_name, _fn, ("x1", "x2"))


def _int8_product_type(*operands):
    """Keras's ``preferred_element_type`` of a product: int32 when all operands are int8."""
    int8 = builtins.all(jnp.asarray(o).dtype == jnp.int8 for o in operands)
    return jnp.int32 if int8 else None


def _matmul(x1, x2):
    return jnp.matmul(x1, x2, preferred_element_type=_int8_product_type(x1, x2))


_matmul.__name__ = "matmul"
matmul = register_array_function("matmul", _matmul, ("x1", "x2"), elementwise=False,
                                  doc="Matrix product (``jnp.matmul``); int8 operands give "
                                      "int32, as Keras's.", spec=shape_rules.matmul_spec)


def _rounding(fn):
    """``fn`` (floor, ceil) as Keras's: integers and booleans become ``floatx()`` first."""
    def rounded(x):
        x = jnp.asarray(x)
        if not jnp.issubdtype(x.dtype, jnp.inexact):
            x = x.astype(config.floatx())
        return fn(x)

    rounded.__name__ = rounded.__qualname__ = fn.__name__
    return rounded


floor = register_array_function("floor", _rounding(jnp.floor), ("x",))
ceil = register_array_function("ceil", _rounding(jnp.ceil), ("x",))
dot = register_array_function("dot", jnp.dot, ("x1", "x2"), elementwise=False,
                              spec=shape_rules.dot_spec)


@register_op("rsqrt", elementwise=True)
def rsqrt(x):
    """``1 / sqrt(x)`` (integers are computed in float32)."""
    x = jnp.asarray(x)
    return jax.lax.rsqrt(x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.float32))


@register_op("clip", tensors=3, elementwise=True)
def clip(x, x_min, x_max):
    """Clip ``x`` to ``[x_min, x_max]``."""
    return jnp.clip(x, x_min, x_max)


@register_op("round", elementwise=True)
def round(x, decimals=0):  # noqa: A001 - keras.ops name
    """``x`` rounded to ``decimals`` (integers to negative ones through ``floatx()``, as
    Keras's)."""
    x = jnp.asarray(x)
    if decimals < 0 and jnp.issubdtype(x.dtype, jnp.integer):
        factor = jnp.asarray(10.0 ** decimals, config.floatx())
        return (jnp.round(x.astype(config.floatx()) * factor) / factor).astype(x.dtype)
    return jnp.round(x, decimals)


def _where_spec(condition, x1=None, x2=None):
    if x1 is None and x2 is None:  # the nonzero indices: as many as the values say
        return tuple(KerasTensor((None,), "int32") for _ in condition.shape)
    return None


@register_op("where", tensors=3, elementwise=True, spec=_where_spec)
def where(condition, x1=None, x2=None):
    """``x1`` where ``condition`` else ``x2``; with only ``condition``: its nonzero indices
    (int32; the output size depends on the values)."""
    if x1 is None and x2 is None:
        return tuple(i.astype(jnp.int32) for i in jnp.nonzero(condition))
    if x1 is None or x2 is None:
        raise ValueError("ops.where: `x1` and `x2` either both should be `None` or both "
                         f"should have non-None value. Received: x1={x1}, x2={x2}")
    return jnp.where(condition, x1, x2)


@register_op("nan_to_num", elementwise=True)
def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return jnp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


@register_op("stop_gradient", elementwise=True)
def stop_gradient(variable):
    return jax.lax.stop_gradient(variable)


@register_op("cast", elementwise=True)
def cast(x, dtype):
    """``x`` as ``dtype`` (stored by name in the node's config)."""
    return jnp.asarray(x).astype(dtype)


# ---------------------------------------------------------------------- linear algebra
@register_op("tensordot", tensors=2, spec=shape_rules.tensordot_spec)
def tensordot(x1, x2, axes=2):
    if isinstance(axes, (list, tuple)):
        axes = tuple(_axis(a) for a in axes)
    return jnp.tensordot(x1, x2, axes=axes)


def _einsum_impl(*operands, subscripts):
    return jnp.einsum(subscripts, *operands,
                      preferred_element_type=_int8_product_type(*operands))


_einsum_impl.__name__ = "einsum"


def einsum(*args, **kwargs):
    """``einsum(subscripts, *operands)`` as ``keras.ops.einsum``.

    ``einsum(*operands, subscripts=...)`` works too (the form a node is rebuilt from).
    """
    if "subscripts" in kwargs:
        subscripts, operands = kwargs.pop("subscripts"), args
    elif args:
        subscripts, operands = args[0], args[1:]
    else:
        raise TypeError("ops.einsum needs `subscripts` and operands.")
    if kwargs:
        raise TypeError(f"ops.einsum got unexpected keyword argument(s) {sorted(kwargs)}.")
    if not isinstance(subscripts, str):
        raise TypeError(f"ops.einsum: `subscripts` must be a string, received {subscripts!r}.")
    if not is_symbolic(operands):
        return _einsum_impl(*operands, subscripts=subscripts)
    return Operation(_einsum_impl, subscripts=subscripts)(*operands)


# Keras's signature (what code reading it sees); ``einsum(*operands, subscripts=...)`` works too
einsum.__signature__ = inspect.Signature([
    inspect.Parameter("subscripts", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    inspect.Parameter("operands", inspect.Parameter.VAR_POSITIONAL),
    inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])
register_custom("einsum", _einsum_impl, einsum, spec=einsum_rules.einsum_spec)


@register_op("outer", tensors=2)
def outer(x1, x2):
    return jnp.outer(x1, x2)


@register_op("norm")
def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - keras.ops name
    return jnp.linalg.norm(x, ord=ord, axis=_axis(axis), keepdims=keepdims)


# ---------------------------------------------------------------------- reductions
@register_op("sum")
def sum(x, axis=None, keepdims=False):  # noqa: A001 - keras.ops name
    return jnp.sum(x, axis=_axis(axis), keepdims=keepdims)


@register_op("mean")
def mean(x, axis=None, keepdims=False):
    """Mean; half-precision floats accumulate in float32, integers give float32 (Keras)."""
    x = jnp.asarray(x)
    compute, result = _statistic_dtypes(x)
    return jnp.mean(x, axis=_axis(axis), keepdims=keepdims, dtype=compute).astype(result)


@register_op("var")
def var(x, axis=None, keepdims=False):
    x = jnp.asarray(x)
    compute, result = _statistic_dtypes(x)
    return jnp.var(x.astype(compute), axis=_axis(axis), keepdims=keepdims).astype(result)


@register_op("std")
def std(x, axis=None, keepdims=False):
    x = jnp.asarray(x)
    compute, result = _statistic_dtypes(x)
    return jnp.std(x.astype(compute), axis=_axis(axis), keepdims=keepdims).astype(result)


@register_op("max")
def max(x, axis=None, keepdims=False, initial=None):  # noqa: A001 - keras.ops name
    return jnp.max(x, axis=_axis(axis), keepdims=keepdims, initial=initial)


@register_op("min")
def min(x, axis=None, keepdims=False, initial=None):  # noqa: A001 - keras.ops name
    return jnp.min(x, axis=_axis(axis), keepdims=keepdims, initial=initial)


@register_op("prod")
def prod(x, axis=None, keepdims=False, dtype=None):
    # a Python sequence (a shape) is an array, as Keras converts it
    return jnp.prod(jnp.asarray(x), axis=_axis(axis), keepdims=keepdims, dtype=dtype)


@register_op("argmax")
def argmax(x, axis=None, keepdims=False):
    return jnp.argmax(_signed_zeros(x), axis=axis, keepdims=keepdims).astype(jnp.int32)


@register_op("argmin")
def argmin(x, axis=None, keepdims=False):
    return jnp.argmin(_signed_zeros(x), axis=axis, keepdims=keepdims).astype(jnp.int32)


def _signed_zeros(x):
    """Floats with -0.0 as the smallest negative number, as Keras's argmax/argmin on CPU:
    there denormals flush to zero, and -0.0 would tie with them."""
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.floating) or x.ndim == 0 or \
            target_platform.target() != "cpu":
        return x
    x = x.astype(jnp.promote_types(x.dtype, jnp.float32))
    return jnp.where((x == 0.0) & jnp.signbit(x), -jnp.finfo(x.dtype).tiny, x)


@register_op("all")
def all(x, axis=None, keepdims=False):  # noqa: A001 - keras.ops name
    return jnp.all(x, axis=_axis(axis), keepdims=keepdims)


@register_op("any")
def any(x, axis=None, keepdims=False):  # noqa: A001 - keras.ops name
    return jnp.any(x, axis=_axis(axis), keepdims=keepdims)


@register_op("logsumexp")
def logsumexp(x, axis=None, keepdims=False):
    return jax.scipy.special.logsumexp(x, axis=_axis(axis), keepdims=keepdims)


@register_op("count_nonzero")
def count_nonzero(x, axis=None):
    return jnp.count_nonzero(x, axis=_axis(axis)).astype(jnp.int32)


@register_op("cumsum")
def cumsum(x, axis=None, dtype=None):
    return jnp.cumsum(x, axis=axis, dtype=dtype)


@register_op("cumprod")
def cumprod(x, axis=None, dtype=None):
    return jnp.cumprod(x, axis=axis, dtype=dtype)


# ---------------------------------------------------------------------- shapes
def shape(x) -> tuple:
    """The shape as a tuple (None for unknown dimensions of a KerasTensor); no node."""
    return tuple(x.shape) if isinstance(x, KerasTensor) else tuple(jnp.shape(x))


def ndim(x) -> int:
    return len(shape(x))


def _check_reshape(newshape):
    shape_rules.validate_reshape_shape((newshape,) if isinstance(newshape, int) else newshape)


def _transpose_spec(x, axes=None):
    return KerasTensor(shape_rules.compute_transpose_output_shape(x.shape, _axis(axes)),
                       x.dtype)


@register_op("reshape", check=_check_reshape)
def reshape(x, newshape):
    return jnp.reshape(x, newshape if isinstance(newshape, int) else tuple(newshape))


@register_op("transpose", spec=_transpose_spec)
def transpose(x, axes=None):
    return jnp.transpose(x, _axis(axes))


@register_op("expand_dims")
def expand_dims(x, axis):
    return jnp.expand_dims(x, _axis(axis))


@register_op("squeeze")
def squeeze(x, axis=None):
    return jnp.squeeze(x, _axis(axis))


@register_op("concatenate", spec=shape_rules.concatenate_spec)
def concatenate(xs, axis=0):
    """Join the list ``xs`` along ``axis``."""
    return jnp.concatenate(list(xs), axis=axis)


@register_op("stack")
def stack(x, axis=0):
    """Stack the list ``x`` along a new ``axis``."""
    return jnp.stack(list(x), axis=axis)


@register_op("split", spec=shape_rules.split_spec)
def split(x, indices_or_sections, axis=0):
    """A list of sub-arrays (one KerasTensor each when symbolic)."""
    sections = indices_or_sections
    return list(jnp.split(x, tuple(sections) if isinstance(sections, list) else sections,
                          axis=axis))


@register_op("unstack", spec=shape_rules.unstack_spec)
def unstack(x, num=None, axis=0):
    """The slices of ``x`` along ``axis`` (``num``, when given, only informs the
    symbolic output count)."""
    x = jnp.asarray(x)
    axis = shape_rules.canonical_axis(axis, x.ndim)
    return [jnp.take(x, i, axis=axis) for i in range(x.shape[axis])]


@register_op("tile")
def tile(x, repeats):
    return jnp.tile(x, _axis(repeats))


@register_op("repeat", spec=shape_rules.repeat_spec)
def repeat(x, repeats, axis=None):
    repeats = jnp.asarray(repeats) if isinstance(repeats, (list, tuple)) else repeats
    return jnp.repeat(x, repeats, axis=axis)


@register_op("broadcast_to", spec=shape_rules.broadcast_to_spec)
def broadcast_to(x, shape):
    return jnp.broadcast_to(x, tuple(shape))


@register_op("ravel")
def ravel(x):
    return jnp.ravel(x)


@register_op("flip")
def flip(x, axis=None):
    return jnp.flip(x, _axis(axis))


@register_op("roll")
def roll(x, shift, axis=None):
    return jnp.roll(x, _axis(shift), axis=_axis(axis))


@register_op("swapaxes", spec=shape_rules.axes_in_range_spec("axis1", "axis2"))
def swapaxes(x, axis1, axis2):
    return jnp.swapaxes(x, axis1, axis2)


@register_op("moveaxis",
             spec=shape_rules.axes_in_range_spec("source", "destination"))
def moveaxis(x, source, destination):
    return jnp.moveaxis(x, _axis(source), _axis(destination))


@register_op("pad", tensors=("x", "constant_values"))
def pad(x, pad_width, mode="constant", constant_values=None):
    """``x`` padded by ``pad_width`` (an int, a pair, or a pair per axis); ``mode`` as
    NumPy's; ``constant_values`` (0 by default) only with ``mode="constant"``."""
    if constant_values is not None and mode != "constant":
        raise ValueError("ops.pad: Argument `constant_values` can only be provided when "
                         f"`mode == 'constant'`. Received: mode={mode}")
    width = tuple(tuple(w) if isinstance(w, (list, tuple)) else w for w in pad_width) \
        if isinstance(pad_width, (list, tuple)) else pad_width
    if mode == "constant":
        return jnp.pad(x, width, mode=mode,
                       constant_values=0 if constant_values is None else constant_values)
    return jnp.pad(x, width, mode=mode)


@register_op("triu")
def triu(x, k=0):
    return jnp.triu(x, k)


@register_op("tril")
def tril(x, k=0):
    return jnp.tril(x, k)


@register_op("zeros_like")
def zeros_like(x, dtype=None):
    return jnp.zeros_like(x, dtype=dtype)


@register_op("ones_like")
def ones_like(x, dtype=None):
    return jnp.ones_like(x, dtype=dtype)


@register_op("full_like", tensors=2)
def full_like(x, fill_value, dtype=None):
    return jnp.full_like(x, fill_value, dtype=dtype)


# ---------------------------------------------------------------------- indexing
@register_op("get_item")
def get_item(x, key):
    """``x[key]``; ``key`` (ints, slices, Ellipsis, None) is stored in the node.

    A bad key (an integer out of range, which JAX itself would clamp; two ellipses; too
    many indices) raises ``shape_rules.IndexKeyError``: an IndexError, as NumPy's, and a ValueError,
    as Keras's symbolic ``get_item``.
    """
    try:
        _check_int_indices(tuple(x.shape), key)
        return x[key]
    except IndexError as error:
        if isinstance(error, shape_rules.IndexKeyError):
            raise
        raise shape_rules.IndexKeyError(str(error)) from None


def _check_int_indices(shape, key) -> None:
    items = key if isinstance(key, tuple) else (key,)
    if not builtins.all(k is None or k is Ellipsis or isinstance(k, (int, builtins.slice))
                        for k in items):
        return  # array indices: JAX's own rules
    if builtins.any(k is Ellipsis for k in items):
        cut = items.index(Ellipsis)
        front, back = items[:cut], items[cut + 1:]
    else:
        front, back = items, ()
    front = [k for k in front if k is not None]
    back = [k for k in back if k is not None]
    positions = list(zip(range(len(front)), front))
    positions += list(zip(range(len(shape) - len(back), len(shape)), back))
    for axis, k in positions:
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= axis < len(shape):
            continue
        size = shape[axis]
        if isinstance(size, int) and not -size <= k < size:
            raise IndexError(f"index {k} is out of range for axis {axis} of size {size} "
                             f"(array of shape {shape}).")


def _indices(indices):
    """Indices as an integer array (lists become arrays; floats, as a KerasTensor's
    default dtype gives, are truncated to int32)."""
    indices = jnp.asarray(indices)
    return indices if jnp.issubdtype(indices.dtype, jnp.integer) else indices.astype("int32")


@register_op("take", tensors=2)
def take(x, indices, axis=None):
    return jnp.take(x, _indices(indices), axis=axis)


@register_op("take_along_axis", tensors=2, spec=shape_rules.take_along_axis_spec)
def take_along_axis(x, indices, axis=None):
    return jnp.take_along_axis(x, _indices(indices), axis=axis)


@register_op("slice", tensors=2, spec=shape_rules.slice_spec)
def slice(inputs, start_indices, shape):  # noqa: A001 - keras.ops name
    """``inputs[start:start + shape]`` per axis (``jax.lax.dynamic_slice``); a size of -1
    takes the rest of its axis."""
    inputs = jnp.asarray(inputs)
    shape_rules.check_slice(inputs, start_indices, shape)
    shape = tuple(inputs.shape[i] - start_indices[i] if s == -1 else s
                  for i, s in enumerate(shape))
    return jax.lax.dynamic_slice(inputs, start_indices, shape)


@register_op("sort")
def sort(x, axis=-1):
    return jnp.sort(x, axis=axis)


@register_op("argsort")
def argsort(x, axis=-1):
    x = jnp.asarray(x)
    return jnp.argsort(x, axis=None if x.ndim == 0 else axis).astype(jnp.int32)


@register_op("top_k")
def top_k(x, k, sorted=True):  # noqa: A002 - keras.ops name
    """``(values, indices)`` of the ``k`` largest entries of the last axis."""
    values, indices = jax.lax.top_k(x, k)
    return values, indices


@register_op("one_hot")
def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    if sparse:
        raise ValueError("ops.one_hot: sparse=True is not supported (JAX arrays are dense).")
    return jax.nn.one_hot(x, num_classes, axis=axis, dtype=dtype or "float32")


# KerasTensor's operators: arithmetic, comparisons, logical & | ^ ~, abs, round, indexing.
OPERATORS.update({name: get_op(name) for name in (
    "add", "subtract", "multiply", "divide", "matmul", "power", "negative", "get_item",
    "floor_divide", "mod", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "logical_or", "logical_xor", "logical_not", "absolute", "round")})

__all__ = sorted(list(_UNARY) + list(_BINARY) + [
    "floor", "ceil", "matmul", "dot", "rsqrt", "clip", "round", "where", "nan_to_num", "stop_gradient", "cast",
    "tensordot", "einsum", "outer", "norm", "sum", "mean", "var", "std", "max", "min", "prod",
    "argmax", "argmin", "all", "any", "logsumexp", "count_nonzero", "cumsum", "cumprod",
    "shape", "ndim", "reshape", "transpose", "expand_dims", "squeeze", "concatenate", "stack",
    "split", "unstack", "tile", "repeat", "broadcast_to", "ravel", "flip", "roll", "swapaxes",
    "moveaxis", "pad", "triu", "tril", "zeros_like", "ones_like", "full_like", "get_item",
    "take", "take_along_axis", "slice", "sort", "argsort", "top_k", "one_hot"])


from kgraph.ops import numpy_extra as _extra  # noqa: E402
from kgraph.ops.numpy_extra import *  # noqa: E402,F401,F403 - the rest of keras.ops.numpy

__all__ = [*__all__, *_extra.__all__]
