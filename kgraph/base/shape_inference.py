"""Output shape/dtype inference by abstract evaluation of a layer's ``call``.

Unknown dimensions (None) become JAX symbolic dimensions, so one ``jax.eval_shape`` trace
answers for every batch size; a dimension that comes out as an expression of them is
unknown (None) in the result. Code that cannot run on symbolic sizes (e.g. a Python
``if x.shape[0] > 1``) falls back to two traces with different concrete sizes, keeping
the dimensions that agree, as Keras does. Results are cached per layer and signature, so a
layer called again on same-shaped inputs is not traced again (calls that take a constant
array, e.g. ``x @ w``, are traced each time: an array has no lasting identity to key on).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base.symbolic_scope import SymbolicScope
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.interpreter import context

__all__ = [
    "broadcast_shapes", "format_shape", "format_shapes", "infer_function_spec",
    "infer_mask_spec", "infer_output_spec", "input_shape_argument", "is_shape",
    "specs_from_shapes"
]


_FALLBACK_SIZES = (83, 89)


def _signature(leaves):
    """A hashable description of a call's arguments, or None if it cannot be cached."""
    parts = []
    for leaf in leaves:
        if isinstance(leaf, KerasTensor):
            parts.append(("T", leaf.shape, leaf.dtype.name))
        elif hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
            # A constant array. Its id() is reused once it is freed, and the output shape
            # may depend on its values (a boolean mask), so such calls are not cached.
            return None
        else:
            parts.append(("C", type(leaf).__name__, repr(leaf)))
    return tuple(parts)


def infer_output_spec(layer, args, kwargs, cache):
    """KerasTensors (without history) describing ``layer.call(*args, **kwargs)``'s outputs.

    ``cache`` is a dict owned by the caller (per layer, or per operation kind).
    """
    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs))
    positions = [i for i, leaf in enumerate(leaves) if isinstance(leaf, KerasTensor)]
    signature = _signature(leaves) if cache is not None else None
    key = (treedef, signature) if signature is not None else None
    if key is not None and key in cache:
        out_treedef, specs = cache[key]
    else:
        out_treedef, specs = _evaluate(layer, leaves, treedef, positions)
        if key is not None:
            cache[key] = (out_treedef, specs)
    return jax.tree_util.tree_unflatten(
        out_treedef, [KerasTensor(shape, dtype) for shape, dtype in specs])


def infer_mask_spec(layer, inputs, previous_mask):
    """KerasTensors (boolean, without history) describing ``layer.compute_mask(inputs,
    previous_mask)`` for symbolic ``inputs`` (and mask), as Keras attaches them to a
    symbolic call's outputs; None if it gives no mask."""
    leaves, treedef = jax.tree_util.tree_flatten(((inputs, previous_mask), {}))
    positions = [i for i, leaf in enumerate(leaves) if isinstance(leaf, KerasTensor)]
    out_treedef, specs = _evaluate(layer, leaves, treedef, positions,
                                   lambda args, _: layer.compute_mask(*args))
    return jax.tree_util.tree_unflatten(out_treedef, [KerasTensor(shape, dtype)
                                                      for shape, dtype in specs])


def infer_function_spec(fn, args, kwargs):
    """KerasTensors (without history) describing ``fn(*args, **kwargs)``'s outputs, where
    ``args`` and ``kwargs`` hold KerasTensors (Keras's ``backend.compute_output_spec``)."""
    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs))
    positions = [i for i, leaf in enumerate(leaves) if isinstance(leaf, KerasTensor)]
    out_treedef, specs = _evaluate(None, leaves, treedef, positions,
                                   lambda args, kwargs: fn(*args, **kwargs),
                                   describe=f"{getattr(fn, 'name', None) or fn!r}")
    return jax.tree_util.tree_unflatten(out_treedef, [KerasTensor(shape, dtype)
                                                      for shape, dtype in specs])


def _evaluate(layer, leaves, treedef, positions, call=None, describe=None):
    tensors = [leaves[i] for i in positions]
    variables = layer.weights if layer is not None else []
    var_specs = [jax.ShapeDtypeStruct(v.shape, v.dtype) for v in variables]
    var_ids = [id(v) for v in variables]

    def run(var_values, tensor_values):
        filled = list(leaves)
        for position, value in zip(positions, tensor_values):
            filled[position] = value
        args, kwargs = jax.tree_util.tree_unflatten(treedef, filled)
        ctx = context.CallContext(values=dict(zip(var_ids, var_values)),
                                  key=jax.random.PRNGKey(0), collect_assignments=True)
        with ctx, SymbolicScope():
            return layer(*args, **kwargs) if call is None else call(args, kwargs)

    try:
        out = jax.eval_shape(run, var_specs, _symbolic_specs(tensors))
        out_leaves, out_treedef = jax.tree_util.tree_flatten(out)
        specs = [(tuple(d if isinstance(d, int) else None for d in o.shape), o.dtype)
                 for o in out_leaves]
        return out_treedef, specs
    except Exception:  # noqa: BLE001 - retried concretely below, which reports the error
        pass
    outs = []
    for size in _FALLBACK_SIZES:
        concrete = [jax.ShapeDtypeStruct(tuple(size if d is None else d for d in t.shape),
                                         t.dtype) for t in tensors]
        try:
            outs.append(jax.eval_shape(run, var_specs, concrete))
        except Exception as error:
            shapes = ", ".join(str(t.shape) for t in tensors)
            who = describe or f'Layer "{layer.name}" ({type(layer).__name__})'
            message = (f"{who} failed while computing its output shape for input shapes "
                       f"[{shapes}]: {error}")
            try:
                wrapped = type(error)(message)
            except Exception:  # noqa: BLE001 - an exception type with another signature
                wrapped = ValueError(message)
            raise wrapped from error
    first, out_treedef = jax.tree_util.tree_flatten(outs[0])
    second = jax.tree_util.tree_leaves(outs[1])
    specs = [(tuple(a if a == b else None for a, b in zip(o1.shape, o2.shape)), o1.dtype)
             for o1, o2 in zip(first, second)]
    return out_treedef, specs


def is_shape(value) -> bool:
    """A shape: a tuple or list of ints and Nones (``()`` is a scalar's shape)."""
    return isinstance(value, (tuple, list)) and all(
        d is None or (isinstance(d, (int, np.integer)) and not isinstance(d, bool))
        for d in value)


def specs_from_shapes(shape, dtype, layer):
    """KerasTensors of ``dtype`` for what ``layer.compute_output_shape`` returned: one
    shape, or a list, tuple or dict of shapes (nested), kept in that structure."""
    if is_shape(shape):
        return KerasTensor(tuple(shape), dtype)
    if isinstance(shape, dict):
        return {k: specs_from_shapes(v, dtype, layer) for k, v in shape.items()}
    if isinstance(shape, (tuple, list)) and shape:
        return type(shape)(specs_from_shapes(s, dtype, layer) for s in shape)
    raise TypeError(f'Layer "{layer.name}" ({type(layer).__name__}): compute_output_shape '
                    "must return a shape (a tuple of ints and Nones) or a list, tuple or dict "
                    f"of shapes, one per output; received {shape!r}.")


def format_shape(shape) -> str:
    """A shape as Keras prints it: ``(None, 3)``, ``(5,)``, ``()``."""
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def format_shapes(shapes) -> str:
    """One shape as ``format_shape`` does; several as ``[(None, 3), (None, 4)]``."""
    texts = [format_shape(s) for s in shapes]
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


def broadcast_shapes(shapes) -> tuple:
    """NumPy broadcasting of shapes that may contain None; ValueError if incompatible."""
    ndim = max(len(s) for s in shapes)
    result = []
    for axis in range(-ndim, 0):
        dims = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        known = {d for d in dims if d is not None}
        if len(known) > 1:
            raise ValueError(f"incompatible sizes {sorted(known)} at axis {axis}")
        result.append(known.pop() if known else (None if None in dims else 1))
    return tuple(result)


def _symbolic_specs(tensors):
    """ShapeDtypeStructs with one symbolic dimension per axis position that is None."""
    axes = sorted({axis for t in tensors for axis, d in enumerate(t.shape) if d is None})
    if axes:
        dims = jax.export.symbolic_shape(", ".join(f"_d{axis}" for axis in axes))
        symbol = dict(zip(axes, dims))
    else:
        symbol = {}
    return [jax.ShapeDtypeStruct(tuple(symbol[a] if d is None else d
                                       for a, d in enumerate(t.shape)), jnp.dtype(t.dtype))
            for t in tensors]


def input_shape_argument(kwargs):
    """Keras's first-layer arguments ``input_shape`` / ``input_dim`` / ``batch_size`` /
    ``batch_input_shape`` (removed from ``kwargs``): the full batch shape, or None.
    A ``Sequential`` builds from it."""
    input_shape = kwargs.pop("input_shape", None)
    input_dim = kwargs.pop("input_dim", None)
    batch_size = kwargs.pop("batch_size", None)
    batch_input_shape = kwargs.pop("batch_input_shape", None) or kwargs.pop("batch_shape", None)
    if batch_input_shape is not None:
        return tuple(batch_input_shape)
    if input_shape is None and input_dim is not None:
        input_shape = (input_dim,)
    if input_shape is None:
        return None
    if isinstance(input_shape, int):
        input_shape = (input_shape,)
    return (batch_size, *input_shape)
