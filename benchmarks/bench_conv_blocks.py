"""Repeated convolution blocks on CPU: a loop of them against the same blocks unrolled.

    python benchmarks/bench_conv_blocks.py           # pixelcnn's sizes, about a minute
    python benchmarks/bench_conv_blocks.py --quick   # small sizes, a few seconds

A residual model of ``--blocks`` blocks (1x1 conv, 3x3 conv, 1x1 conv, as pixelcnn's) on
28x28 images; one jitted gradient step (batch 16), median seconds per step of:

- ``lax.scan`` loop: the blocks as one ``jax.lax.scan`` over their stacked weights, a loop
  (what scanning repeated blocks compiles to on TPU and GPU);
- ``lax.scan`` unrolled: the same scan with ``unroll=True``;
- kgraph: ``compiler.compile(model)``, whose run of repeated blocks is found and, on CPU,
  because the blocks convolve, unrolled (``kgraph.interpreter.fingerprint.convolves``);
- kgraph ``scan_blocks=False``: every block walked one after another.

XLA:CPU runs convolutions inside a loop in a slow layout, so the loop is many times slower
there; kgraph should match its unrolled walk. Forms take turns round by round; the machine
is shared and noisy: compare ratios from one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:  # runnable as a script from anywhere
    sys.path.insert(0, _ROOT)

import compiler  # noqa: E402
import kgraph as kg  # noqa: E402


class ConvBlock(kg.layers.Layer):
    """pixelcnn's residual block: 1x1 conv, 3x3 conv to half the channels, 1x1 conv."""

    def __init__(self, filters, **kwargs):
        super().__init__(**kwargs)
        self.filters = filters
        self.expand = kg.layers.Conv2D(filters, 1, activation="relu")
        self.middle = kg.layers.Conv2D(filters // 2, 3, padding="same", activation="relu")
        self.project = kg.layers.Conv2D(filters, 1, activation="relu")

    def call(self, x):
        return x + self.project(self.middle(self.expand(x)))

    def get_config(self):
        return {**super().get_config(), "filters": self.filters}


def _model(blocks, filters, size):
    x = kg.Input((size, size, filters))
    h = x
    for i in range(blocks):
        h = ConvBlock(filters, name=f"block_{i}")(h)
    return kg.Model(x, h)


def _conv(x, kernel, bias):
    out = jax.lax.conv_general_dilated(x, kernel, (1, 1), "SAME",
                                       dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jax.nn.relu(out + bias)


def _hand_steps(params, images):
    """Gradient steps of the blocks as one ``lax.scan`` over their weights stacked, looped
    and unrolled (the same numbers as kgraph's model; ``params``: kgraph's, per block)."""
    names = sorted(params, key=lambda name: int(name.split("_")[1]))
    stacked = jax.tree_util.tree_map(lambda *a: jnp.stack(a), *[params[n] for n in names])

    def block(h, weights):
        out = h
        for layer in ("conv2d", "conv2d_1", "conv2d_2"):
            out = _conv(out, weights[layer]["kernel"], weights[layer]["bias"])
        return h + out, None

    def step(unroll):
        def loss(stacked):
            return jax.lax.scan(block, images, stacked, unroll=unroll)[0].sum()
        return jax.jit(lambda w: jax.grad(loss)(w)), stacked

    return step(1), step(True)


def _kgraph_step(model, scan_blocks, images):
    program = compiler.compile(model, scan_blocks=scan_blocks)
    params, state = program.init(jax.random.PRNGKey(0))

    def loss(p):
        return program.apply(p, state, images)[0].sum()

    return jax.jit(jax.grad(loss)), params


def forms(blocks, filters, size):
    """``{form: (jitted gradient step, its weights)}`` (see the module docstring)."""
    model = _model(blocks, filters, size)
    images = np.random.default_rng(0).normal(size=(16, size, size, filters)).astype(np.float32)
    found = {"kgraph": _kgraph_step(model, True, images),
             "kgraph scan_blocks=False": _kgraph_step(model, False, images)}
    (loop, stacked), (unrolled, _) = _hand_steps(found["kgraph"][1], images)
    found["lax.scan loop"] = (loop, stacked)
    found["lax.scan unrolled"] = (unrolled, stacked)
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few rounds")
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--results", action="store_true", help="keep the table in "
                        "benchmarks/results/conv_blocks.json (the docs show it)")
    args = parser.parse_args(argv)
    filters, size, rounds = (16, 8, 3) if args.quick else (128, 28, 3)
    steps = forms(args.blocks, filters, size)
    for fn, weights in steps.values():  # compile, outside the timing
        jax.block_until_ready(fn(weights))
    times = {name: [] for name in steps}
    for _ in range(rounds):
        for name, (fn, weights) in steps.items():
            start = time.perf_counter()
            jax.block_until_ready(fn(weights))
            times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(values) for name, values in times.items()}
    reference = medians["kgraph scan_blocks=False"]
    from benchmarks.results import Table, command

    made = Table("conv_blocks", command(__file__, argv),
                 [f"{args.blocks} blocks of {filters} channels on {size}x{size}, batch 16",
                  "s / step", "x unrolled walk"],
                 [[name, f"{value:.3f}", f"{value / reference:.2f}"]
                  for name, value in medians.items()], ["---", "---:", "---:"])
    print(f"backend {jax.default_backend()}\n{made.markdown()}")
    if args.results:
        print(f"kept in {made.write()}")
    return medians


if __name__ == "__main__":
    main()
