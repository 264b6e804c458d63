"""``einsum``'s output spec on KerasTensors with unknown sizes (Keras's rule).

Tracing cannot answer when an unknown size must equal a known one (``"ij,jk"`` of
``(None, 3)`` and ``(None, 4)``'s transpose) or broadcast against one (an ellipsis). Here an
unknown size takes its label's size in another operand, ellipsis dimensions broadcast with
unknown ones compatible with any size, and an output size known nowhere is unknown.

>>> from kgraph.graph.keras_tensor import KerasTensor
>>> einsum_spec(KerasTensor((None, 3, 4)), KerasTensor((None, 4, 5)),
...             subscripts="i...,...j->i...j").shape
(None, 3, 4, 5)
>>> einsum_spec(KerasTensor((None, 3)), KerasTensor((3, 4)), subscripts="ij,jk->ikj").shape
(None, 4, 3)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph.base.shape_inference import broadcast_shapes
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.ops.registry import get_impl

__all__ = ["einsum_spec"]


def _shape(operand) -> tuple:
    return tuple(operand.shape) if hasattr(operand, "shape") else tuple(jnp.shape(operand))


def _dtype(operand):
    if hasattr(operand, "dtype"):
        return jnp.dtype(operand.dtype)
    return jnp.asarray(operand).dtype


def _split_terms(subscripts: str, count: int):
    """``(input terms, output term or None)`` of ``subscripts``; Keras's errors."""
    parts = subscripts.replace(" ", "").split("->")
    if len(parts) > 2:
        raise ValueError("At most one '->' is supported in `einsum` subscripts, but "
                         f"received {subscripts}.")
    terms = parts[0].split(",")
    if len(terms) != count:
        raise ValueError(f"Number of operands ({count}) does not match the number of input "
                         f"specs ({len(terms)}) in `einsum`, received subscripts={subscripts}.")
    return terms, (parts[1] if len(parts) == 2 else None)


def _labelled(term: str, shape: tuple, index: int, subscripts: str):
    """``(label -> size pairs, the ellipsis's sizes)`` of one operand."""
    left, ellipsis, right = term.partition("...")
    if len(left) + len(right) > len(shape) or (not ellipsis and len(term) != len(shape)):
        raise ValueError(f"einsum: operand {index} has shape {shape}, which does not fit its "
                         f"subscripts {term!r} (received subscripts={subscripts}).")
    middle = len(shape) - len(right)
    pairs = list(zip(left, shape)) + list(zip(right, shape[middle:]))
    return pairs, (shape[len(left):middle] if ellipsis else ())


def einsum_spec(*operands, subscripts):
    """``einsum``'s output KerasTensor when a size is unknown; None when all are known
    (tracing answers then)."""
    shapes = [_shape(o) for o in operands]
    if all(d is not None for s in shapes for d in s):
        return None
    terms, output = _split_terms(subscripts, len(operands))
    labelled = [_labelled(t, s, i, subscripts) for i, (t, s) in enumerate(zip(terms, shapes))]
    sizes: dict = {}
    for pairs, _ in labelled:
        for label, size in pairs:
            if size is not None:
                sizes.setdefault(label, size)
    ellipsis = broadcast_shapes([e for _, e in labelled]) if labelled else ()
    # the operands with each unknown size filled in (1 where nothing tells it): JAX checks
    # the known sizes and gives the dtype
    filled = []
    for (pairs, dims), term, operand in zip(labelled, terms, operands):
        left = term.partition("...")[0]
        sized = [sizes.get(label, 1) for label, _ in pairs]
        sized[len(left):len(left)] = [1 if d is None else d for d in dims]
        filled.append(jax.ShapeDtypeStruct(tuple(sized), _dtype(operand)))
    impl = get_impl("einsum")
    result = jax.eval_shape(lambda *a: impl(*a, subscripts=subscripts), *filled)
    if output is None:  # NumPy's implicit output: the ellipsis, then the once-used labels
        used = "".join(t.replace("...", "") for t in terms)
        output = ("..." if any("..." in t for t in terms) else "") + "".join(
            sorted(label for label in set(used) if used.count(label) == 1))
    left, has_ellipsis, right = output.partition("...")
    shape = ([sizes.get(label) for label in left] + (list(ellipsis) if has_ellipsis else [])
             + [sizes.get(label) for label in right])
    return KerasTensor(tuple(shape), result.dtype)
