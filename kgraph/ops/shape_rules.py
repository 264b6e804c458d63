"""Output specs of ops on KerasTensors whose shapes tracing cannot tell (Keras's rules).

Shape inference traces an op with unknown dimensions as symbols, else with two concrete
sizes; that fails when an unknown size must match a known one (``dot`` of ``(None, 3)``
and ``(None, None, 2)``) or when the op's validity depends on it (``split`` of an unknown
axis in two). These functions (``register_op(spec=...)``) give Keras's output spec
instead: an unknown dimension is compatible with any size, and definite mismatches raise
Keras's ValueError. Each returns None when tracing can answer (all sizes known).

>>> from kgraph.graph.keras_tensor import KerasTensor
>>> dot_spec(KerasTensor((None, 3)), KerasTensor((None, None, 2))).shape
(None, None, 2)
>>> [t.shape for t in split_spec(KerasTensor((None, 3, 3)), [1, 3], axis=1)]
[(None, 1, 3), (None, 2, 3), (None, 0, 3)]
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from kgraph import config
from kgraph.base import shape_inference
from kgraph.base.shape_inference import broadcast_shapes
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.ops.registry import get_impl

__all__ = ["IndexKeyError", "allclose_spec", "argpartition_spec", "axes_in_range_spec",
           "broadcast_to_spec", "canonical_axis",
           "check_slice", "concatenate_spec", "cross_spec", "diag_spec", "diagonal_spec",
           "dot_spec", "inner_spec", "matmul_spec", "repeat_spec", "slice_spec",
           "spacing_spec", "split_spec", "stack_split_spec", "stacked_concatenation_spec",
           "take_along_axis_spec", "tensordot_spec", "unstack_spec",
           "compute_matmul_output_shape", "compute_take_along_axis_output_shape",
           "compute_transpose_output_shape", "conv_channels_spec", "validate_reshape_shape"]


class IndexKeyError(IndexError, ValueError):
    """A ``get_item`` key that does not fit the array: an IndexError (NumPy's) and a
    ValueError (Keras's symbolic ``get_item``)."""


def canonical_axis(axis, ndim):
    """``axis`` in ``[0, ndim)``; Keras's ValueError when out of bounds."""
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for an array with dimension {ndim}.")
    return axis % ndim if ndim else axis


def _shape(t):
    return tuple(t.shape) if hasattr(t, "shape") else tuple(jnp.shape(t))


def _dtype(t):
    if isinstance(t, KerasTensor):
        return t.dtype
    return t.dtype if hasattr(t, "dtype") else jnp.asarray(t).dtype


def _known(*shapes):
    return all(d is not None for s in shapes for d in s)


def _mismatch(a, b):
    return a is not None and b is not None and a != b


def unstack_spec(x, num=None, axis=0):
    axis = canonical_axis(axis, len(x.shape))
    if num is None:
        num = x.shape[axis]
    if num is None:
        raise ValueError(f"Cannot infer argument `num` from shape {x.shape}. Either provide a "
                         "tensor with a concrete shape in the `axis` dimension or explicitly "
                         "pass the `num` argument.")
    return [KerasTensor(x.shape[:axis] + x.shape[axis + 1:], x.dtype) for _ in range(num)]


def check_slice(inputs, start_indices, shape):
    """Keras's checks of ``slice``'s arguments (ranks of ``shape`` and ``start_indices``)."""
    if len(shape) != len(inputs.shape):
        raise ValueError("The number of dimensions in `inputs` must match the number of "
                         f"dimensions in `shape`. Received inputs.shape={inputs.shape} and "
                         f"shape={shape}")
    if hasattr(start_indices, "shape"):  # an array or KerasTensor: its length if 1-D
        count = start_indices.shape[0] if len(start_indices.shape) == 1 else None
    else:
        count = len(start_indices)
    if count is not None and count != len(inputs.shape):
        raise ValueError("The number of dimensions in `start_indices` must match the number "
                         f"of dimensions in `inputs`. Received start_indices={start_indices} "
                         f"and inputs.shape={inputs.shape}")


def slice_spec(inputs, start_indices, shape):
    """A slice's output: a size of -1 runs to the end of its axis (unknown when the start
    or the axis size is)."""
    check_slice(inputs, start_indices, shape)
    final = []
    for i, (size, wanted) in enumerate(zip(inputs.shape, shape)):
        if wanted != -1:
            final.append(wanted)
        elif isinstance(start_indices, KerasTensor) or size is None:
            final.append(None)
        else:
            final.append(size - int(start_indices[i]))
    return KerasTensor(tuple(final), inputs.dtype)


def split_spec(x, indices_or_sections, axis=0):
    """Sections of ``x`` along ``axis`` (equal ones for an int; unknown sizes stay
    unknown); ValueError when a known size does not divide."""
    shape = list(x.shape)
    axis = canonical_axis(axis, len(shape))
    size = shape[axis]
    if isinstance(indices_or_sections, int):
        if size is not None and size % indices_or_sections:
            raise ValueError(f"array split does not result in an equal division: axis {axis} "
                             f"of size {size} into {indices_or_sections} sections.")
        sizes = [None if size is None else size // indices_or_sections] * indices_or_sections
    else:
        bounds = [0, *indices_or_sections]
        sizes = []
        for i, start in enumerate(bounds):
            stop = bounds[i + 1] if i + 1 < len(bounds) else size
            if stop is None:
                sizes.append(None)
            else:
                end = stop if size is None else min(stop, size)
                sizes.append(max(0, end - (start if size is None else min(start, size))))
    return [KerasTensor(tuple(shape[:axis] + [n] + shape[axis + 1:]), x.dtype) for n in sizes]


def stack_split_spec(axis):
    """The spec of ``hsplit`` / ``vsplit`` / ``dsplit`` (a split along ``axis``; hsplit of a
    vector splits axis 0)."""
    def spec(x, indices_or_sections):
        ax = 0 if axis == 1 and len(x.shape) == 1 else axis
        if len(x.shape) <= ax:
            raise ValueError(f"The split needs an input of rank > {ax}; received shape "
                             f"{x.shape}.")
        return split_spec(x, indices_or_sections, ax)

    return spec


def repeat_spec(x, repeats, axis=None):
    """``repeat``'s output: the repeated axis (or the flattened input) grows by ``repeats``
    (one count, or one per element); unknown when its size is."""
    if hasattr(repeats, "shape") and not isinstance(repeats, KerasTensor):
        repeats = jnp.asarray(repeats).tolist()
    if isinstance(repeats, KerasTensor):
        return None
    counts = [repeats] if isinstance(repeats, int) else list(repeats)
    shape = list(x.shape)

    def grown(size):
        if size is None:
            return None
        if len(counts) == 1:
            return size * counts[0]
        if len(counts) != size:
            raise ValueError(f"`repeats` must have one count per element repeated ({size}); "
                             f"received {len(counts)}: repeats={repeats}.")
        return int(sum(counts))

    if axis is None:
        return KerasTensor((grown(None if None in shape else math.prod(shape)),), x.dtype)
    axis = canonical_axis(axis, len(shape))
    shape[axis] = grown(shape[axis])
    return KerasTensor(tuple(shape), x.dtype)


def argpartition_spec(x, kth, axis=-1):
    """``argpartition``'s output: int32 indices of ``x``'s shape (``kth`` an int)."""
    if not isinstance(kth, int):
        raise ValueError(f"kth must be an integer. Received: kth = {kth}")
    if axis is None:  # the flattened input
        return KerasTensor((None if None in x.shape else math.prod(x.shape),), "int32")
    canonical_axis(axis, len(x.shape))
    return KerasTensor(tuple(x.shape), "int32")


def take_along_axis_spec(x, indices, axis=None):
    """``take_along_axis``'s output: the indices' size on ``axis``, the rest broadcast."""
    shape = compute_take_along_axis_output_shape(_shape(x), _shape(indices), axis)
    return KerasTensor(tuple(shape), _dtype(x))


def _product_dtype(x1, x2, int8_to_int32=False):
    d1, d2 = jnp.dtype(_dtype(x1)), jnp.dtype(_dtype(x2))
    if int8_to_int32 and d1 == d2 == jnp.int8:
        return jnp.dtype("int32")
    if not hasattr(x1, "shape") or not hasattr(x2, "shape"):  # a Python scalar: weak
        return d2 if not hasattr(x1, "shape") else d1
    return jnp.promote_types(d1, d2)


def matmul_spec(x1, x2):
    """``matmul``'s output (NumPy's rules; unknown sizes match any)."""
    s1, s2 = _shape(x1), _shape(x2)
    if not s1 or not s2:
        raise ValueError(f"matmul needs operands of rank >= 1; received shapes {s1} and {s2}.")
    shape = compute_matmul_output_shape(s1, s2)
    if _known(s1, s2):
        return None
    return KerasTensor(shape, _product_dtype(x1, x2, int8_to_int32=True))


def dot_spec(x1, x2):
    """``dot``'s output: a product with a scalar, an inner product of vectors, else the
    contraction of ``x1``'s last axis with ``x2``'s second to last."""
    s1, s2 = list(_shape(x1)), list(_shape(x2))
    if not s1 or not s2:
        return None  # a scalar operand: elementwise, traced
    if len(s1) == 1 and len(s2) == 1:
        if _mismatch(s1[0], s2[0]):
            raise ValueError(f"dot of vectors needs equal lengths; received shapes {s1} and "
                             f"{s2}.")
        shape = ()
    elif len(s2) == 1:
        if _mismatch(s1[-1], s2[0]):
            raise ValueError("Shape must match on the last axis of `x1` and `x2` when `x1` "
                             f"is N-d array while `x2` is 1-D, but receive shape "
                             f"`x1.shape={tuple(s1)}` and x2.shape=`{tuple(s2)}`.")
        shape = tuple(s1[:-1])
    else:
        if _mismatch(s1[-1], s2[-2]):
            raise ValueError("Shape must match on the last axis of `x1` and second last axis "
                             f"of `x2` when `x1` is N-d array while `x2` is M-D, but received "
                             f"`x1.shape={tuple(s1)}` and x2.shape=`{tuple(s2)}`.")
        shape = tuple(s1[:-1] + s2[:-2] + s2[-1:])
    if _known(s1, s2):
        return None
    return KerasTensor(shape, _product_dtype(x1, x2))


def inner_spec(x1, x2):
    """``inner``'s output: ``x1.shape[:-1] + x2.shape[:-1]`` (a scalar scales)."""
    s1, s2 = _shape(x1), _shape(x2)
    if not s1 or not s2:
        return None
    if _mismatch(s1[-1], s2[-1]):
        raise ValueError("`inner` requires the last dimension of `x1` and `x2` to match. "
                         f"Received: x1.shape={s1}, x2.shape={s2}.")
    if _known(s1, s2):
        return None
    return KerasTensor(s1[:-1] + s2[:-1], _product_dtype(x1, x2))


def tensordot_spec(x1, x2, axes=2):
    """``tensordot``'s output: the free axes of ``x1`` then of ``x2``."""
    s1, s2 = list(_shape(x1)), list(_shape(x2))
    if isinstance(axes, int):
        first = list(range(len(s1) - axes, len(s1)))
        second = list(range(axes))
    else:
        first = [a % len(s1) for a in _axes_list(axes[0])]
        second = [a % len(s2) for a in _axes_list(axes[1])]
    if not isinstance(axes, int) and (len(first) != len(second) or any(
            _mismatch(s1[a], s2[b]) for a, b in zip(first, second))):  # Keras checks lists
        raise ValueError("Shape mismatch on `x1[axes[0]]` and `x2[axes[1]]`, received "
                         f"{[s1[a] for a in first]} and {[s2[b] for b in second]}.")
    if _known(s1, s2):
        return None
    shape = [d for i, d in enumerate(s1) if i not in first] + \
            [d for i, d in enumerate(s2) if i not in second]
    return KerasTensor(tuple(shape), _product_dtype(x1, x2))


def _axes_list(axes):
    """An ``axes`` entry of ``tensordot`` as a list of ints."""
    return [axes] if isinstance(axes, int) else list(axes)


def _concatenated(shapes, axis, dtype):
    """Keras's concatenation rule: shapes equal off ``axis`` (unknown matches any), sizes
    on ``axis`` summed (unknown if any is)."""
    first = list(shapes[0])
    axis = canonical_axis(axis, len(first))
    total = 0
    out = list(first)
    for shape in shapes:
        if len(shape) != len(first) or any(
                i != axis and _mismatch(a, b) for i, (a, b) in enumerate(zip(shape, first))):
            raise ValueError("Every value in `xs` must have the same shape except on the "
                             f"`axis` dim. But found element of shape {tuple(shape)}, which "
                             f"is different from the first element's shape {tuple(first)}.")
        total = None if total is None or shape[axis] is None else total + shape[axis]
    out[axis] = total  # the other sizes: the first input's, as Keras's
    return KerasTensor(tuple(out), dtype)


def _joined_dtype(xs):
    return jnp.result_type(*[jnp.dtype(_dtype(x)) for x in xs])


def concatenate_spec(xs, axis=0):
    if axis is None:
        return None  # the flattened inputs: traced
    shapes = [_shape(x) for x in xs]
    spec = _concatenated(shapes, axis, _joined_dtype(xs))
    return None if _known(*shapes) else spec


def stacked_concatenation_spec(kind):
    """The spec of ``hstack`` / ``vstack`` / ``dstack``: the inputs raised to rank 1, 2 or
    3 as NumPy's, then concatenated."""
    def spec(xs):
        shapes = [_shape(x) for x in xs]
        if kind == "v":
            shapes = [(1, *s) if len(s) < 2 else s for s in [(1,) if not s else s
                                                              for s in shapes]]
            axis = 0
        elif kind == "h":
            shapes = [(1,) if not s else s for s in shapes]
            axis = 0 if all(len(s) == 1 for s in shapes) else 1
        else:
            shapes = [{0: (1, 1, 1), 1: (1, *s, 1), 2: (*s, 1)}.get(len(s), s) for s in shapes]
            axis = 2
        out = _concatenated(shapes, axis, _joined_dtype(xs))
        return None if _known(*shapes) else out

    return spec


def spacing_spec(fn):
    """The spec of ``linspace`` / ``logspace`` / ``geomspace`` (``fn``): the broadcast
    shape of ``start`` and ``stop`` with ``num`` inserted at ``axis``."""
    def spec(start, stop, num=50, *args, **kwargs):
        s1, s2 = _shape(start), _shape(stop)
        if _known(s1, s2):
            return None
        shape = list(broadcast_shapes([s1, s2]))
        ones = [jax.ShapeDtypeStruct(tuple(1 if d is None else d for d in s), _dtype(t))
                for s, t in ((s1, start), (s2, stop))]
        out = jax.eval_shape(lambda a, b: fn(a, b, num, *args, **kwargs), *ones)
        axis = kwargs.get("axis", 0)
        axis = axis if axis >= 0 else len(shape) + 1 + axis
        shape.insert(axis, num)
        first = out[0] if isinstance(out, tuple) else out
        values = KerasTensor(tuple(shape), first.dtype)
        return (values, KerasTensor((), out[1].dtype)) if isinstance(out, tuple) else values

    return spec


def allclose_spec(x1, x2, *args, **kwargs):
    """``allclose``'s output: one boolean (the operands must broadcast)."""
    s1, s2 = _shape(x1), _shape(x2)
    if _known(s1, s2):
        return None
    try:
        broadcast_shapes([s1, s2])
    except ValueError as error:
        raise ValueError(f"allclose: the operands' shapes {s1} and {s2} do not broadcast: "
                         f"{error}.") from None
    return KerasTensor((), "bool")


def diag_spec(x, k=0):
    """``diag``'s output: the square matrix of a vector, the (possibly shorter) diagonal
    of a matrix (unknown when a size is)."""
    shape = _shape(x)
    if len(shape) not in (1, 2):
        raise ValueError(f"`x` must be 1-D or 2-D, but received shape {shape}.")
    if _known(shape):
        return None
    if len(shape) == 1:
        return KerasTensor((None, None), _dtype(x))
    return KerasTensor((None,), _dtype(x))


def diagonal_spec(x, offset=0, axis1=0, axis2=1):
    """``diagonal``'s output: ``x`` without ``axis1`` and ``axis2``, the diagonal's length
    last (unknown when either size is)."""
    shape = _shape(x)
    if len(shape) < 2:
        raise ValueError(f"`diagonal` requires an array of at least two dimensions, but "
                         f"`x` is of shape {shape}.")
    a1, a2 = canonical_axis(axis1, len(shape)), canonical_axis(axis2, len(shape))
    if a1 == a2:
        raise ValueError("`axis1` and `axis2` cannot refer to the same axis. Received "
                         f"axis1={axis1}, axis2={axis2} for an input of rank {len(shape)}.")
    if shape[a1] is not None and shape[a2] is not None:
        return None
    rest = tuple(d for i, d in enumerate(shape) if i not in (a1, a2))
    return KerasTensor(rest + (None,), _dtype(x))


def axes_in_range_spec(*names):
    """A spec that only checks the static ``names`` arguments are axes of ``x`` (Keras's
    ValueError), leaving the output to tracing."""
    def spec(x, *args, **kwargs):
        ndim = len(_shape(x))
        for name in names:
            value = kwargs.get(name)
            for axis in value if isinstance(value, (tuple, list)) else [value]:
                if isinstance(axis, int):
                    canonical_axis(axis, ndim)
        return None

    return spec


def cross_spec(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """``cross``'s output: the vectors' other axes broadcast, with the 3-vector axis at
    ``axisc`` (none when both vectors have 2 components)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    s1, s2 = list(_shape(x1)), list(_shape(x2))
    size1, size2 = s1.pop(axisa), s2.pop(axisb)
    for name, size in (("x1", size1), ("x2", size2)):
        if size is not None and size not in (2, 3):
            raise ValueError(f"`{name}`'s dim on the vector axis must be either 2 or 3, but "
                             f"received: {size}")
    try:
        shape = list(broadcast_shapes([tuple(s1), tuple(s2)]))
    except ValueError as error:
        raise ValueError(f"cross: the operands' shapes {_shape(x1)} and {_shape(x2)} do not "
                         f"broadcast: {error}.") from None
    if _known(_shape(x1), _shape(x2)):
        return None
    if 3 in (size1, size2):
        shape.insert(canonical_axis(axisc, len(shape) + 1), 3)
    return KerasTensor(tuple(shape), _product_dtype(x1, x2))


def broadcast_to_spec(x, shape):
    """``broadcast_to``'s output when ``x`` has unknown sizes: ``shape``, an unknown size
    fitting any target size (Keras's rule); None when all are known."""
    source, target = _shape(x), tuple(shape)
    if _known(source):
        return None
    try:
        fits = len(source) <= len(target) and all(  # None: an unknown size to a target 1
            d in (t, None) for d, t in zip(broadcast_shapes([source, target]), target))
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"Cannot broadcast a tensor of shape {source} to shape {target}.")
    return KerasTensor(target, _dtype(x))


def _list_broadcast(shape1, shape2):
    try:
        return list(broadcast_shapes([tuple(shape1), tuple(shape2)]))
    except ValueError as error:
        raise ValueError(f"Cannot broadcast shape: {error}. Input shapes are: "
                         f"{list(shape1)} and {list(shape2)}.") from None


def compute_matmul_output_shape(shape1, shape2):
    """The output shape of ``matmul`` on operands of these shapes (NumPy's rules)."""
    first_1d, second_1d = len(shape1) == 1, len(shape2) == 1
    shape1 = (1, shape1[0]) if first_1d else tuple(shape1)
    shape2 = (shape2[0], 1) if second_1d else tuple(shape2)
    if _mismatch(shape1[-1], shape2[-2]):
        raise ValueError("Inner dimensions (`x1.shape[-1]` and `x2.shape[-2]`) must be equal, "
                         f"but received `x1.shape={shape1}` and `x2.shape={shape2}`.")
    out = _list_broadcast(shape1[:-2], shape2[:-2]) + [shape1[-2], shape2[-1]]
    if first_1d:
        del out[-2]
    if second_1d:
        del out[-1]
    return tuple(out)


def compute_take_along_axis_output_shape(input_shape, indices_shape, axis):
    """The output shape of ``take_along_axis`` (``axis`` None: the flattened input)."""
    input_shape, indices_shape = list(input_shape), list(indices_shape)
    if axis is None:
        input_shape = [None] if None in input_shape else [math.prod(input_shape)]
    if len(input_shape) != len(indices_shape):
        raise ValueError("`x` and `indices` must have the same number of dimensions, but "
                         f"receive shape {input_shape} and {indices_shape}.")
    axis = 0 if axis is None else canonical_axis(axis, len(input_shape))
    input_shape[axis] = indices_shape[axis]
    return _list_broadcast(input_shape, indices_shape)


def compute_transpose_output_shape(input_shape, axes):
    """``input_shape`` permuted by ``axes`` (None: reversed)."""
    input_shape = tuple(input_shape)
    if axes is None:
        return input_shape[::-1]
    ndim = len(input_shape)
    if len(axes) != ndim:
        raise ValueError("axis must be a list of the same length as the input shape, "
                         f"expected {ndim}, but received {len(axes)}: axes={tuple(axes)}.")
    if any(not isinstance(a, (int, np.integer)) or not -ndim <= a < ndim for a in axes):
        raise ValueError(f"Each axis in `axes` must be an integer in [-{ndim}, {ndim}). "
                         f"Received: axes={list(axes)}.")
    axes = [int(a) % ndim for a in axes]
    if len(set(axes)) != ndim:
        raise ValueError("`axes` must be a valid permutation of the input dimensions (no "
                         f"duplicates). Received: axes={list(axes)} for input of rank {ndim}.")
    return tuple(input_shape[a] for a in axes)


def _is_tensor(value):
    return isinstance(value, KerasTensor) or (hasattr(value, "shape") and hasattr(value, "dtype")
                                              and not isinstance(value, (tuple, list)))


def validate_reshape_shape(newshape, newshape_arg_name="newshape"):
    """Refuse a ``newshape`` with a negative size other than one -1 (sizes that are not
    Python ints, e.g. traced values, are not checked)."""
    if _is_tensor(newshape):
        return
    unknown = 0
    for dim in newshape:
        if not isinstance(dim, (int, np.integer)):
            continue
        if dim < -1:
            raise ValueError(f"Each dimension in `{newshape_arg_name}` must be a non-negative "
                             "integer, or `-1` for a single unknown dimension. Received: "
                             f"{newshape_arg_name}={newshape}.")
        unknown += dim == -1
    if unknown > 1:
        raise ValueError(f"There must be at most one unknown dimension (-1) in "
                         f"`{newshape_arg_name}`. Received: {newshape_arg_name}={newshape}.")


def conv_channels_spec(op_name, kernel_axis, grouped=False, default_format="channels_last"):
    """The spec of a convolution op: the inputs' channels must match the kernel's input
    channels (axis ``kernel_axis``; a multiple of them when ``grouped``), as Keras checks;
    unknown input channels take the kernel's for tracing. None when tracing can answer."""
    def spec(inputs, kernel, *more, **static):
        data_format = static.get("data_format") or default_format
        if data_format is None:
            data_format = config.image_data_format()
        axis = -1 if data_format == "channels_last" else 1
        shape = list(_shape(inputs))
        channels, kernel_in = shape[axis] if shape else None, _shape(kernel)[kernel_axis]
        if channels is not None and kernel_in is not None and (
                channels % kernel_in if grouped else channels != kernel_in):
            raise ValueError("The number of input channels must match the kernel's input "
                             f"channels{' (or be a multiple of them)' if grouped else ''}. "
                             f"Received: input channels={channels}, kernel input channels="
                             f"{kernel_in}, data_format='{data_format}'.")
        if channels is not None or kernel_in is None:
            return None
        shape[axis] = kernel_in
        return shape_inference.infer_function_spec(
            get_impl(op_name), (KerasTensor(tuple(shape), _dtype(inputs)), kernel, *more),
            static)

    return spec
