"""Long attention by blocks of query rows against all rows at once, on this machine.

    python benchmarks/bench_attention.py                 # 4 x 2,048 tokens, 8 heads of 64
    python benchmarks/bench_attention.py --tokens 4096 --rounds 5

Times the jitted gradient (queries, keys, values) of a causal, masked attention through
``kgraph.ops.dot_product_attention`` (by blocks of query rows at this length) and through
``jax.nn.dot_product_attention`` (all rows at once), interleaved round by round, and prints
the median ratio, the scratch memory XLA assigns each program, and the largest difference
of their outputs and gradients.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=2048)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--depth", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--results", action="store_true",
                        help="keep the table in benchmarks/results/attention.json (the docs show it)")
    args = parser.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    import numpy as np

    from kgraph import ops
    from kgraph.ops.nn_attention import _query_rows_per_block

    shape = (args.batch, args.tokens, args.heads, args.depth)
    rng = np.random.default_rng(0)
    q, k, v = (jnp.asarray(rng.normal(size=shape), jnp.float32) for _ in range(3))
    mask = jnp.asarray(rng.random((args.batch, 1, 1, args.tokens)) > 0.1)

    def gradient(attention):
        loss = lambda q, k, v: jnp.sum(jnp.sin(attention(q, k, v, mask=mask, is_causal=True)))  # noqa: E731
        return jax.jit(jax.value_and_grad(loss, argnums=(0, 1, 2)))

    programs = {"blocks": gradient(ops.dot_product_attention),
                "whole": gradient(jax.nn.dot_product_attention)}
    results = {name: jax.block_until_ready(f(q, k, v)) for name, f in programs.items()}
    times = {name: [] for name in programs}
    for _ in range(args.rounds):
        for name, f in programs.items():
            start = time.perf_counter()
            jax.block_until_ready(f(q, k, v))
            times[name].append(time.perf_counter() - start)
    scratch = {name: f.lower(q, k, v).compile().memory_analysis().temp_size_in_bytes
               for name, f in programs.items()}
    diff = max(float(jnp.max(jnp.abs(a - b))) for a, b in zip(
        jax.tree.leaves(results["blocks"]), jax.tree.leaves(results["whole"])))
    ratio = statistics.median(b / w for b, w in zip(times["blocks"], times["whole"]))
    print(f"attention gradient, {args.batch} x {args.tokens} tokens, {args.heads} heads of "
          f"{args.depth}, causal and padded; query rows per block: "
          f"{_query_rows_per_block(args.tokens, args.tokens)}")
    print(f"  all rows at once (jax.nn):  {statistics.median(times['whole']) * 1e3:8.1f} ms, "
          f"scratch {scratch['whole'] / 2**20:8.1f} MiB")
    print(f"  blocks (kgraph.ops):        {statistics.median(times['blocks']) * 1e3:8.1f} ms, "
          f"scratch {scratch['blocks'] / 2**20:8.1f} MiB")
    print(f"  time ratio (median of {args.rounds} interleaved rounds): {ratio:.2f}; scratch "
          f"ratio {scratch['blocks'] / scratch['whole']:.3f}; largest difference {diff:.1e}")
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.results import Table, command

    made = Table("attention", command(__file__),
        ["attention gradient", "ms (median)", "scratch MiB", "time ratio", "scratch ratio",
         "largest difference"],
        [["all rows at once (`jax.nn`)", f"{statistics.median(times['whole']) * 1e3:.0f}",
          f"{scratch['whole'] / 2**20:.0f}", "1", "1", "-"],
         [f"blocks of {_query_rows_per_block(args.tokens, args.tokens)} query rows "
          "(`kgraph.ops`)", f"{statistics.median(times['blocks']) * 1e3:.0f}",
          f"{scratch['blocks'] / 2**20:.0f}", f"{ratio:.2f}",
          f"{scratch['blocks'] / scratch['whole']:.3f}", f"{diff:.1e}"]],
        ["---", "---:", "---:", "---:", "---:", "---:"])
    print("\n" + made.markdown())
    if args.results:
        print(f"kept in {made.write()}")


if __name__ == "__main__":
    main()
