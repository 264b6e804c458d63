"""``keras.ops.dot_product_attention``, computed a block of query rows at a time when the
scores would be large.

Each query row's softmax reads only that row's scores, so attention over a block of rows is
the same computation as over all of them. For long sequences the op runs the rows in blocks
(a scan) and recomputes each block's scores for the gradient instead of keeping them: the
``(batch, heads, queries, keys)`` scores are never held whole, in the forward pass, under
remat, or in the backward pass. The numbers are those of ``jax.nn.dot_product_attention``
on all rows at once, to float32 rounding. Star-imported by ``kgraph.ops.nn``.

>>> import jax.numpy as jnp
>>> q = jnp.ones((1, 4, 2, 8))
>>> dot_product_attention(q, q, q, is_causal=True).shape
(1, 4, 2, 8)
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from kgraph.ops.registry import register_op

__all__ = ["dot_product_attention"]

# Scores per (sequence, head) computed at once: 2**19 float32 numbers (2 MiB), e.g. blocks of
# 256 query rows over 2,048 keys; shorter attention runs all rows at once.
SCORES_PER_BLOCK = 2 ** 19
_MIN_ROWS = 64


def _query_rows_per_block(queries: int, keys: int) -> int | None:
    """Query rows per block for attention of ``queries`` over ``keys``, or None for one block.

    >>> _query_rows_per_block(2048, 2048), _query_rows_per_block(512, 512)
    (256, None)
    """
    rows = queries
    while rows % 2 == 0 and rows // 2 >= _MIN_ROWS and rows * keys > SCORES_PER_BLOCK:
        rows //= 2
    return rows if rows < queries else None


@register_op("dot_product_attention", tensors=6)
def dot_product_attention(query, key, value, bias=None, mask=None, scale=None,
                          is_causal=False, flash_attention=None, attn_logits_soft_cap=None):
    """``softmax(q k^T * scale + bias) v`` on ``(batch, length, heads, head_dim)`` inputs
    (``jax.nn.dot_product_attention``), a block of query rows at a time for long ones."""
    if attn_logits_soft_cap is not None:
        raise ValueError("dot_product_attention: attn_logits_soft_cap is not supported.")
    # mixed float dtypes compute in their promoted dtype, as Keras's
    compute = jnp.result_type(*(jnp.asarray(t).dtype for t in (query, key, value)))
    query, key, value = (jnp.asarray(t, compute) for t in (query, key, value))
    if bias is not None:
        bias = jnp.asarray(bias, compute)
    rows = (_query_rows_per_block(query.shape[1], key.shape[1])
            if query.ndim == 4 and all(t is None or jnp.ndim(t) == 4 for t in (bias, mask))
            else None)
    if rows is None:
        return jax.nn.dot_product_attention(query, key, value, bias=bias, mask=mask,
                                            scale=scale, is_causal=is_causal)
    return _attention_by_query_blocks(query, key, value, bias, mask, scale, is_causal, rows)


def _attention_by_query_blocks(query, key, value, bias, mask, scale, is_causal, rows):
    batch, queries, heads, depth = query.shape
    blocks = queries // rows

    def by_block(t, axis):  # queries on ``axis`` -> (blocks, ..., rows, ...)
        t = t.reshape(*t.shape[:axis], blocks, rows, *t.shape[axis + 1:])
        return jnp.moveaxis(t, axis, 0)

    def split(t):  # (one per block, or None; shared by every block, or None)
        if t is not None and t.shape[2] == queries:
            return by_block(t, 2), None
        return None, t

    out = _blocks(scale, is_causal, by_block(query, 1), key, value, *split(bias), *split(mask))
    return jnp.moveaxis(out, 0, 1).reshape(batch, queries, heads, depth)


def _one_block(scale, is_causal, q, key, value, bias, mask, index):
    """Attention of block ``index``'s query rows ``q`` over all the keys."""
    rows, keys = q.shape[1], key.shape[1]
    if is_causal:
        row = index * rows + jax.lax.broadcasted_iota(jnp.int32, (rows, keys), 0)
        causal = (row >= jax.lax.broadcasted_iota(jnp.int32, (rows, keys), 1))[None, None]
        mask = causal if mask is None else jnp.logical_and(mask, causal)
    return jax.nn.dot_product_attention(q, key, value, bias=bias, mask=mask, scale=scale)


def _either(own, shared):
    return shared if own is None else own


# A custom gradient, not ``jax.checkpoint``: an enclosing remat policy (``dots_saveable``)
# would otherwise save every block's scores.
@functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def _blocks(scale, is_causal, q_blocks, key, value, block_bias, bias, block_mask, mask):
    def step(carry, xs):
        q, index, own_bias, own_mask = xs
        return carry, _one_block(scale, is_causal, q, key, value, _either(own_bias, bias),
                                 _either(own_mask, mask), index)

    blocks = jnp.arange(q_blocks.shape[0])
    return jax.lax.scan(step, None, (q_blocks, blocks, block_bias, block_mask))[1]


def _blocks_forward(scale, is_causal, *operands):
    return _blocks(scale, is_causal, *operands), operands


def _blocks_backward(scale, is_causal, operands, out_grad):
    """Each block's attention computed again, and its gradient: the keys', values' and a
    shared bias's summed over the blocks (in float32), the queries' per block."""
    q_blocks, key, value, block_bias, bias, block_mask, mask = operands

    def step(carry, xs):
        q, index, own_bias, own_mask, grad = xs

        def attend(q, key, value, own_bias, bias):
            return _one_block(scale, is_causal, q, key, value, _either(own_bias, bias),
                              _either(own_mask, mask), index)

        grads = jax.vjp(attend, q, key, value, own_bias, bias)[1](grad)
        summed = tuple(None if total is None else total + g.astype(total.dtype)
                       for total, g in zip(carry, (grads[1], grads[2], grads[4])))
        return summed, (grads[0], grads[3])

    def zeros(t):
        return None if t is None else jnp.zeros(t.shape, jnp.promote_types(t.dtype, jnp.float32))

    blocks = jnp.arange(q_blocks.shape[0])
    (key_grad, value_grad, bias_grad), (q_grad, block_bias_grad) = jax.lax.scan(
        step, (zeros(key), zeros(value), zeros(bias)),
        (q_blocks, blocks, block_bias, block_mask, out_grad))
    return (q_grad, key_grad.astype(key.dtype), value_grad.astype(value.dtype),
            block_bias_grad, None if bias is None else bias_grad.astype(bias.dtype),
            None, None)


_blocks.defvjp(_blocks_forward, _blocks_backward)
