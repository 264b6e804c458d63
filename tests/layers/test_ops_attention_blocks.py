"""``ops.dot_product_attention`` by blocks of query rows: the same numbers and gradients as
all rows at once (``jax.nn.dot_product_attention``), on generated shapes, masks, biases,
causal flags and grouped heads; and the scores never held whole."""

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings

from kgraph import ops
from kgraph.ops import nn_attention


@st.composite
def _cases(draw):
    rows = draw(st.sampled_from([1, 2, 3]))  # query rows per block, in units of 8
    blocks = draw(st.integers(2, 4))
    queries = 8 * rows * blocks
    keys = draw(st.sampled_from([queries, 8, 40]))
    kv_heads = draw(st.sampled_from([1, 2]))
    heads = kv_heads * draw(st.sampled_from([1, 2]))
    batch = draw(st.integers(1, 2))
    mask = draw(st.sampled_from([None, "per_row", "per_key", "per_head"]))
    bias = draw(st.sampled_from([None, "per_row", "broadcast"]))
    return dict(shape=(batch, queries, keys, heads, kv_heads, draw(st.sampled_from([4, 8]))),
                rows=8 * rows, mask=mask, bias=bias, is_causal=draw(st.booleans()),
                scale=draw(st.sampled_from([None, 0.3])), seed=draw(st.integers(0, 2**16)))


def _arrays(case):
    batch, queries, keys, heads, kv_heads, depth = case["shape"]
    rng = np.random.default_rng(case["seed"])
    normal = lambda *s: jnp.asarray(rng.normal(size=s), jnp.float32)  # noqa: E731
    mask_shapes = {"per_row": (batch, 1, queries, keys), "per_key": (batch, 1, 1, keys),
                   "per_head": (1, heads, queries, keys)}
    mask = None if case["mask"] is None else jnp.asarray(
        rng.random(mask_shapes[case["mask"]]) > 0.3)
    bias = {None: None, "per_row": normal(batch, heads, queries, keys),
            "broadcast": normal(1, heads, 1, keys)}[case["bias"]]
    return (normal(batch, queries, heads, depth), normal(batch, keys, kv_heads, depth),
            normal(batch, keys, kv_heads, depth), bias, mask)


@settings(max_examples=60, deadline=None)
@given(_cases())
def test_blocks_of_query_rows_equal_all_rows_at_once(case):
    query, key, value, bias, mask = _arrays(case)
    whole = lambda q, k, v, b: jax.nn.dot_product_attention(  # noqa: E731
        q, k, v, bias=b, mask=mask, scale=case["scale"], is_causal=case["is_causal"])
    blocked = lambda q, k, v, b: nn_attention._attention_by_query_blocks(  # noqa: E731
        q, k, v, b, mask, case["scale"], case["is_causal"], case["rows"])
    args = (query, key, value, bias)
    np.testing.assert_allclose(blocked(*args), whole(*args), rtol=1e-5, atol=1e-6)
    argnums = (0, 1, 2) if bias is None else (0, 1, 2, 3)
    loss = lambda f: lambda *a: jnp.sum(jnp.sin(f(*a)))  # noqa: E731
    for ours, theirs in zip(jax.grad(loss(blocked), argnums)(*args),
                            jax.grad(loss(whole), argnums)(*args)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("queries, keys, rows", [(2048, 2048, 256), (4096, 4096, 128),
                                                 (1536, 1536, 192), (512, 512, None),
                                                 (64, 100000, None), (1000, 1000, 500)])
def test_rows_per_block(queries, keys, rows):
    assert nn_attention._query_rows_per_block(queries, keys) == rows


def test_long_attention_never_holds_its_scores():
    """The gradient of a 2,048-token attention needs less scratch memory than its scores
    (``(1, 4, 2048, 2048)`` float32, 64 MiB; all rows at once need at least that): only a
    few blocks' are alive at a time."""
    q = jax.ShapeDtypeStruct((1, 2048, 4, 16), jnp.float32)
    mask = jax.ShapeDtypeStruct((1, 1, 2048, 2048), jnp.bool_)

    def scratch(attention):
        step = jax.jit(jax.grad(lambda q, k, v, m: jnp.sum(attention(q, k, v, m)),
                                argnums=(0, 1, 2)))
        return step.lower(q, q, q, mask).compile().memory_analysis().temp_size_in_bytes

    scores = 4 * 2048 * 2048 * 4
    ours = scratch(lambda q, k, v, m: ops.dot_product_attention(q, k, v, mask=m))
    theirs = scratch(lambda q, k, v, m: jax.nn.dot_product_attention(q, k, v, mask=m))
    assert theirs >= scores >= 1.5 * ours


def test_short_attention_is_one_call_of_jax():
    q = jnp.asarray(np.random.default_rng(0).normal(size=(2, 16, 2, 8)), jnp.float32)
    np.testing.assert_array_equal(ops.dot_product_attention(q, q, q, is_causal=True),
                                  jax.nn.dot_product_attention(q, q, q, is_causal=True))
