"""The conv-blocks benchmark's quick run works, and its forms compute the same gradient."""

from __future__ import annotations

import os
import sys

import jax
import numpy as np

_BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "benchmarks")
if _BENCHMARKS not in sys.path:
    sys.path.insert(0, _BENCHMARKS)

import bench_conv_blocks


def test_forms_compute_one_gradient():
    steps = bench_conv_blocks.forms(4, 8, 6)
    kgraph_grads = steps["kgraph"][0](steps["kgraph"][1])
    walked = steps["kgraph scan_blocks=False"][0](steps["kgraph scan_blocks=False"][1])
    loop = steps["lax.scan loop"][0](steps["lax.scan loop"][1])
    unrolled = steps["lax.scan unrolled"][0](steps["lax.scan unrolled"][1])
    for a, b in zip(jax.tree_util.tree_leaves(kgraph_grads), jax.tree_util.tree_leaves(walked)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(jax.tree_util.tree_leaves(loop), jax.tree_util.tree_leaves(unrolled)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    first_kernel = np.asarray(walked["block_0"]["conv2d"]["kernel"])
    np.testing.assert_allclose(np.asarray(loop["conv2d"]["kernel"][0]), first_kernel,
                               rtol=1e-5, atol=1e-6)


def test_quick_run_prints_every_form(capsys):
    medians = bench_conv_blocks.main(["--quick", "--blocks", "4"])
    assert set(medians) == {"kgraph", "kgraph scan_blocks=False", "lax.scan loop",
                            "lax.scan unrolled"}
    assert "| lax.scan loop |" in capsys.readouterr().out
