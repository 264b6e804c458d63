"""``plan``'s automatic choice on TPU v5e-8 (compiled here by libtpu): it returns a plan that
fits where one exists, the best of the candidates it compiled by estimated MFU, and the
table of those candidates."""

import jax
import jax.numpy as jnp
import pytest

import kgraph as kg
from runtime.planning import plan
from runtime.planning.search import _resized, wants_search

_LOSS = "sparse_categorical_crossentropy"


def _ffn(width=1024, hidden=8192, depth=8):
    x = kg.Input((width,), name="x")
    h = x
    for i in range(depth):
        up = kg.layers.Dense(hidden, activation="relu", name=f"up_{i}")(h)
        h = kg.layers.Dense(width, name=f"down_{i}")(up)
    return kg.Model(x, kg.layers.Dense(10, name="head")(h))


def _mlp(width=512, depth=4):
    x = kg.Input((width,), name="x")
    h = x
    for i in range(depth):
        h = kg.layers.Dense(width, activation="relu", name=f"block_{i}")(h)
    return kg.Model(x, kg.layers.Dense(10, name="head")(h))


def test_remat_is_chosen_when_the_step_does_not_fit_without():
    # 512k rows of 8 blocks with 8192-wide activations: 16 GiB saved per chip without remat
    chosen = plan(_ffn(), topology="v5e-8", batch=((524288, 1024), (524288,)), loss=_LOSS,
                  remat="auto")
    assert chosen.fits and chosen.settings["remat"] is not None
    tried = [c.settings["remat"] for c in chosen.candidates]
    assert tried[0] is None and not chosen.candidates[0].fits
    assert "RESOURCE_EXHAUSTED" in chosen.candidates[0].reason or "exceeds" in (
        chosen.candidates[0].reason)
    assert chosen.candidates[-1] is chosen  # the ladder stops at the first that fits
    assert all(not c.fits for c in chosen.candidates[:-1])
    table = str(chosen)
    assert "candidates compiled (" in table and "does not fit" in table
    assert [row["remat"] for row in chosen.as_dict()["candidates"]] == tried


def test_micro_batches_when_no_remat_fits():
    chosen = plan(_mlp(width=4096, depth=8), topology="v5e-8",
                  batch=((1048576, 4096), (1048576,)), loss=_LOSS, remat="auto",
                  gradient_accumulation_steps="auto")
    assert chosen.fits
    steps = chosen.settings["gradient_accumulation_steps"]
    assert steps >= 2 and chosen.settings["batch"] == (1048576 // steps, 4096)
    assert any(not c.fits and "gradient_accumulation_steps" not in c.settings
               for c in chosen.candidates)


def test_open_rows_grow_while_the_estimated_mfu_does():
    chosen = plan(_mlp(), topology="v5e-8", batch=((None, 512), (None,)), loss=_LOSS)
    rows = [c.settings["batch"][0] for c in chosen.candidates]
    assert rows[0] == 8 and all(b == 2 * a for a, b in zip(rows, rows[1:]))
    fitting = [c for c in chosen.candidates if c.fits]
    assert chosen.mfu == max(c.mfu for c in fitting)
    # the search stopped at the first that did not fit or did not raise the MFU by 1%
    last = chosen.candidates[-1]
    assert not last.fits or last.mfu <= chosen.mfu * 1.01


def test_sharding_search_keeps_the_best_by_estimated_mfu():
    chosen = plan(_mlp(width=1024), topology="v5e-8", batch=((4096, 1024), (4096,)),
                  loss=_LOSS, sharding="auto", scan_blocks="auto")
    shardings = {c.settings["sharding"] for c in chosen.candidates}
    assert {"dp", "fsdp"} <= shardings  # a replica fits: data parallelism is a candidate
    assert {c.settings["scan_blocks"] for c in chosen.candidates} == {True, False}
    assert chosen.mfu == max(c.mfu for c in chosen.candidates if c.fits)


def test_what_asks_for_a_search():
    assert not wants_search(((8, 4), (8,)), sharding="fsdp", remat=None)
    assert wants_search(((None, 4), (None,)), sharding="fsdp")
    assert wants_search(((8, 4), (8,)), remat="auto")
    sds = jax.ShapeDtypeStruct((8, 4), jnp.bfloat16)
    resized = _resized(({"ids": (None, 16)}, sds), 32)
    assert resized[0] == {"ids": (32, 16)}
    assert resized[1].shape == (32, 4) and resized[1].dtype == jnp.bfloat16


def test_a_search_needs_a_topology_it_can_compile_for():
    with pytest.raises(ValueError, match="v5e-256"):
        plan(_mlp(), topology="tpu-9000", batch=((None, 512), (None,)), loss=_LOSS)
