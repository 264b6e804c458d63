"""Sample weights and masks: how losses and metrics weight and reduce per-sample values.

The reduction is Keras's ``sum_over_batch_size`` with a mask (``keras.src.losses.loss``):
masked-out entries weigh 0 and the sum is divided by the number of valid entries, so
zero-weight rows appended to a batch (padding) change nothing.

>>> import jax.numpy as jnp
>>> values = jnp.array([1.0, 3.0, 100.0])
>>> float(reduce_weighted(values, mask=jnp.array([1, 1, 0])))
2.0
>>> float(reduce_weighted(values[:2]))
2.0
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

__all__ = [
    "REDUCTIONS", "as_float_mask", "broadcast_to_values", "check_reduction", "combine_masks",
    "divide_no_nan", "reduce_weighted", "squeeze_or_expand_to_same_rank", "trailing_product",
    "weighted"
]


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Keras's rank alignment: squeeze or add a last axis of size 1 if ranks differ by 1."""
    r1, r2 = len(x1.shape), len(x2.shape)
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = jnp.expand_dims(x2, -1)
        else:
            x1 = jnp.squeeze(x1, -1)
    elif r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = jnp.expand_dims(x1, -1)
        else:
            x2 = jnp.squeeze(x2, -1)
    return x1, x2


def broadcast_to_values(weight, values, what="sample_weight"):
    """``weight`` (float32) broadcast to ``values.shape`` the way Keras aligns weights.

    Trailing size-1 axes beyond the values' rank are dropped and missing trailing axes
    are added, so a ``(batch,)`` weight or mask applies to every entry of its row.
    """
    weight = jnp.asarray(weight)
    if not jnp.issubdtype(weight.dtype, jnp.floating):
        weight = weight.astype(jnp.float32)
    while weight.ndim > values.ndim and weight.shape[-1] == 1:
        weight = weight[..., 0]
    shape = tuple(weight.shape) + (1,) * (values.ndim - weight.ndim)
    if weight.ndim > values.ndim or not _broadcasts_to(shape, tuple(values.shape)):
        raise ValueError(
            f"Cannot apply {what} of shape {tuple(weight.shape)} to values of shape "
            f"{tuple(values.shape)}: expected a shape that matches the values' leading axes, "
            f"e.g. {tuple(values.shape[:1])} (one weight per sample) or "
            f"{tuple(values.shape)}.")
    return jnp.broadcast_to(weight.reshape(shape), values.shape)


def _broadcasts_to(shape, target):
    return len(shape) == len(target) and all(s == 1 or s == t for s, t in zip(shape, target))


def divide_no_nan(num, den):
    """``num / den``, and 0 where ``den == 0``."""
    safe = jnp.where(den == 0, jnp.ones_like(den), den)
    return jnp.where(den == 0, jnp.zeros_like(num), num / safe)


def weighted(values, weight):
    """``values * weight``, with exact zeros where the weight is 0 (even if a value is not
    finite, as padding rows may be)."""
    return jnp.where(weight != 0, values * weight, jnp.zeros_like(values))


def as_float_mask(mask, values):
    """A boolean-like mask as 0/1 floats broadcast to ``values`` (nonzero means valid)."""
    mask = jnp.asarray(mask)
    return broadcast_to_values((mask != 0).astype(values.dtype), values, "mask")


def combine_masks(mask_a, mask_b, values):
    """The logical AND of two masks (either may be None) as 0/1 floats shaped like values."""
    if jnp.ndim(values) == 0:  # one value for the batch: the masks weigh it (reduce_weighted)
        masks = [(jnp.asarray(m) != 0).astype(jnp.float32) for m in (mask_a, mask_b)
                 if m is not None]
    else:
        masks = [as_float_mask(m, values) for m in (mask_a, mask_b) if m is not None]
    if not masks:
        return None
    return masks[0] if len(masks) == 1 else masks[0] * masks[1]


REDUCTIONS = ("sum_over_batch_size", "mean", "sum", "mean_with_sample_weight", "none", None)


def check_reduction(reduction):
    """``reduction`` if Keras accepts it, else Keras's ValueError."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"Invalid value for argument `reduction`. Expected one of "
                         f"{REDUCTIONS}. Received: reduction={reduction!r}")
    return reduction


@functools.partial(jax.jit, static_argnames="reduction")
def reduce_weighted(values, sample_weight=None, mask=None, reduction="sum_over_batch_size"):
    """Keras's reduction of ``values`` with weights and a mask (``sum_over_batch_size`` by
    default; ``reduction`` is any of Keras's, see ``_reduce_other``).

    Equals ``keras.src.losses.loss.reduce_weighted_values`` with Keras's ``apply_mask``:
    ``sum(values * sample_weight * mask) / count(valid entries)`` (the number of entries
    when there is no mask); a fully masked batch gives 0. A single value (a loss that
    reduces the batch itself) is scaled by the weights' mean over the valid entries, as
    Keras broadcasts the weights over it.

    Args:
      values: per-sample (or per-entry) values, e.g. shape ``(batch,)`` or
        ``(batch, time)``, or one value for the batch.
      sample_weight: None, a scalar, ``(batch,)`` or the values' shape.
      mask: None, ``(batch,)`` or the values' shape; nonzero entries are valid.
    """
    values = jnp.asarray(values)
    if not jnp.issubdtype(values.dtype, jnp.floating):
        values = values.astype(jnp.float32)
    if reduction not in ("sum_over_batch_size", "mean"):
        return _reduce_other(values, sample_weight, mask, reduction)
    if values.size == 0:
        return jnp.zeros((), values.dtype)
    if values.ndim == 0:
        return _reduce_one_value(values, sample_weight, mask)
    weight = None if sample_weight is None else broadcast_to_values(
        jnp.asarray(sample_weight, values.dtype), values)
    if mask is None:
        total = jnp.sum(values if weight is None else weighted(values, weight))
        return total / values.size
    float_mask = as_float_mask(mask, values)
    weight = float_mask if weight is None else weight * float_mask
    return divide_no_nan(jnp.sum(weighted(values, weight)), jnp.sum(float_mask))


def _reduce_other(values, sample_weight, mask, reduction):
    """Keras's ``"sum"`` (the weighted values summed), ``"mean_with_sample_weight"``
    (divided by the weights' sum) and ``None`` / ``"none"`` (the weighted values, not
    reduced). A mask weighs its entries 0 or 1; the weights align with the values as
    Keras aligns them (``squeeze_or_expand_to_same_rank``), and one value for the whole
    batch is broadcast over them, as Keras's ``values * sample_weight``."""
    weight = None
    if sample_weight is not None:
        weight = jnp.asarray(sample_weight, values.dtype)
        values, weight = squeeze_or_expand_to_same_rank(values, weight)
    if mask is not None:
        float_mask = (jnp.asarray(mask) != 0).astype(values.dtype)
        if values.ndim > 0:
            float_mask = broadcast_to_values(float_mask, values, "mask")
        weight = float_mask if weight is None else trailing_product(weight, float_mask)
    if weight is not None:
        values = weighted(values, weight)
    if reduction in (None, "none") or values.shape in ((), (0,)):
        return values
    total = jnp.sum(values)
    if reduction == "sum":
        return total
    divisor = jnp.sum(weight) if weight is not None else jnp.asarray(values.size, values.dtype)
    return divide_no_nan(total, divisor)


def trailing_product(a, b):
    """``a * b``, the lower-rank one given trailing axes (``(batch,)`` against
    ``(batch, t)``)."""
    rank = max(a.ndim, b.ndim)
    a, b = (x.reshape(x.shape + (1,) * (rank - x.ndim)) for x in (a, b))
    return a * b


def _reduce_one_value(value, sample_weight, mask):
    """Keras's reduction of one value for the whole batch: ``value`` times the mean of the
    sample weights over the mask's valid entries (the value itself without weights). The
    lower-rank of weights and mask gets trailing axes (``(batch,)`` against ``(batch, t)``)."""
    if sample_weight is None:
        return value
    weight = jnp.asarray(sample_weight, value.dtype)
    valid = jnp.ones((), value.dtype) if mask is None else (
        jnp.asarray(mask) != 0).astype(value.dtype)
    counted = trailing_product(jnp.ones_like(weight), valid)
    return value * divide_no_nan(jnp.sum(trailing_product(weight, valid)), jnp.sum(counted))
