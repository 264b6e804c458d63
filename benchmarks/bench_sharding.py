"""Many devices on 8 simulated CPU devices: what each device holds, what initialisation
costs the host, and how compile time grows with depth.

    python benchmarks/bench_sharding.py            # about a minute
    python benchmarks/bench_sharding.py --quick    # smaller models

1. Bytes per device of the weights and of Adam's state, for data parallelism (every
   weight replicated), fully-sharded (every kernel split over 8 devices) and Megatron
   tensor parallelism (2 x 4 mesh: the first Dense of each pair split by columns, the
   second by rows), against the one-device total.
2. Peak host memory of a sharded initialisation (a 1 GiB model, fully sharded), in a
   fresh process, over the parameter bytes.
3. Compile time of a jitted train step against depth (transformer blocks: attention,
   LayerNormalization, a feed-forward pair), with repeated blocks scanned and unrolled.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402


def _mlp(width, hidden, blocks):
    import kgraph as kg

    x = kg.Input(shape=(width,))
    h = x
    for i in range(blocks):
        h = kg.layers.Dense(hidden, activation="relu", name=f"block{i}_up")(h)
        h = kg.layers.Dense(width, name=f"block{i}_down")(h)
    return kg.Model(x, h)


LAYOUTS = {
    "data parallel": ((8,), ("data",), []),
    "fully sharded": ((8,), ("data",), [(r".*/kernel", P("data", None))]),
    "tensor parallel (2 x 4)": ((2, 4), ("data", "model"),
                                [(r".*_up/kernel", P(None, "model")),
                                 (r".*_up/bias", P("model")),
                                 (r".*_down/kernel", P("model", None))]),
}


def _device_bytes(tree) -> int:
    """Bytes device 0 holds of ``tree``'s arrays."""
    device = jax.devices()[0]
    return sum(shard.data.nbytes for leaf in jax.tree_util.tree_leaves(tree)
               for shard in leaf.addressable_shards if shard.device == device)


def bytes_per_device(width=1024, hidden=4096, blocks=4):
    from runtime import Trainer
    from runtime.sharding import ShardingRules

    rows = {}
    total_params = total_opt = None
    for name, (shape, axes, rules) in LAYOUTS.items():
        trainer = Trainer(_mlp(width, hidden, blocks), optax.adam(1e-3), "mse",
                          mesh=jax.make_mesh(shape, axes), sharding=ShardingRules(rules))
        ts = trainer.init(jax.random.PRNGKey(0))
        total_params = sum(a.nbytes for a in jax.tree_util.tree_leaves(ts.params))
        total_opt = sum(a.nbytes for a in jax.tree_util.tree_leaves(ts.opt_state))
        rows[name] = (_device_bytes(ts.params), _device_bytes(ts.opt_state))
    return total_params, total_opt, rows


def init_memory(width=4096, depth=16) -> dict:
    """Run in a fresh process: peak RSS growth of sharded init over parameter bytes."""
    result = subprocess.run([sys.executable, os.path.abspath(__file__), "--init-memory-child",
                             str(width), str(depth)], capture_output=True, text=True,
                            timeout=900)
    if result.returncode:
        raise RuntimeError(result.stderr[-2000:])
    return json.loads(result.stdout.strip().splitlines()[-1])


def _init_memory_child(width, depth):
    from runtime import Trainer
    from runtime.sharding import ShardingRules

    import kgraph as kg

    x = kg.Input(shape=(width,))
    h = x
    for _ in range(depth):
        h = kg.layers.Dense(width, use_bias=False)(h)
    trainer = Trainer(kg.Model(x, h), optax.sgd(0.1), "mse", mesh=jax.make_mesh((8,), ("data",)),
                      sharding=ShardingRules([(r".*kernel", P("data", None))]),
                      stack_blocks=True)
    jax.block_until_ready(jnp.ones(8) + 1)

    def peak():  # this process's peak resident memory (ru_maxrss survives exec: not it)
        with open("/proc/self/status") as status:
            line = next(line for line in status if line.startswith("VmHWM:"))
        return int(line.split()[1]) * 1024

    before = peak()
    abstract = jax.eval_shape(trainer.program.init, jax.random.PRNGKey(0))
    after_abstract, started = peak(), time.perf_counter()
    ts = jax.block_until_ready(trainer.init(jax.random.PRNGKey(0)))
    seconds = time.perf_counter() - started
    nbytes = sum(a.nbytes for a in jax.tree_util.tree_leaves(ts.params))
    print(json.dumps({
        "param_bytes": nbytes, "growth": (peak() - before) / nbytes, "seconds": seconds,
        "abstract_bytes": sum(a.size * a.dtype.itemsize
                              for a in jax.tree_util.tree_leaves(abstract)),
        "eval_shape_growth": after_abstract - before,
        "shard_shape": list(jax.tree_util.tree_leaves(ts.params)[0]
                            .addressable_shards[0].data.shape)}))


def _transformer(blocks, dim=64, heads=4, length=16):
    import kgraph as kg

    class TransformerBlock(kg.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.attention = kg.layers.MultiHeadAttention(heads, dim // heads)
            self.norm1, self.norm2 = kg.layers.LayerNormalization(), kg.layers.LayerNormalization()
            self.up = kg.layers.Dense(dim * 4, activation="gelu")
            self.down = kg.layers.Dense(dim)
            self.dropout = kg.layers.Dropout(0.1)

        def call(self, x, training=None):
            h = self.norm1(x + self.dropout(self.attention(x, x), training=training))
            return self.norm2(h + self.down(self.up(h)))

    x = kg.Input(shape=(length, dim))
    h = x
    for _ in range(blocks):
        h = TransformerBlock()(h)
    return kg.Model(x, h)


def compile_times(depths=(4, 16, 48), dim=64):
    """Seconds to lower and compile a jitted train step, by depth, scanned or unrolled."""
    from runtime import Trainer

    times = {}
    batch = (jnp.ones((8, 16, dim)), jnp.zeros((8, 16, dim)))
    for scan in (True, False):
        for depth in depths:
            trainer = Trainer(_transformer(depth, dim), "adam", "mse",  # Keras's Adam
                              scan_blocks=scan)
            ts = trainer.init(jax.random.PRNGKey(0))
            started = time.perf_counter()
            trainer.train_step.lower(ts, batch).compile()
            times[scan, depth] = time.perf_counter() - started
    return times


def tables(sizes, memory, compiles, argv=None):
    """The figures as the benchmark's three tables (``benchmarks.results``): bytes per device
    by layout, the host memory of a sharded initialisation, and compile time by depth."""
    from benchmarks.results import Table, command

    ran = command(__file__, argv)
    total_params, total_opt, rows = sizes
    layouts = [["one device", f"{total_params / 2**20:.1f} MiB", f"{total_opt / 2**20:.1f} MiB"]]
    layouts += [[name, f"{params / 2**20:.1f} MiB ({params / total_params:.3f})",
                 f"{opt / 2**20:.1f} MiB ({opt / total_opt:.3f})"]
                for name, (params, opt) in rows.items()]
    init = [[f"{memory['param_bytes'] / 2**30:.2f} GiB, fully sharded over 8 devices",
             f"{memory['growth']:.2f}x", f"{memory['seconds']:.1f} s"]]
    depths = sorted({depth for _, depth in compiles})
    by_depth = [[depth, f"{compiles[True, depth]:.2f} s "
                        f"({compiles[True, depth] / compiles[True, depths[0]]:.2f}x)",
                 f"{compiles[False, depth]:.2f} s "
                 f"({compiles[False, depth] / compiles[False, depths[0]]:.2f}x)"]
                for depth in depths]
    return (Table("sharding_layouts", ran,
                  ["layout", "weights per device", "Adam state per device"], layouts,
                  ["---", "---:", "---:"]),
            Table("sharding_init", ran, ["model", "peak host memory growth / parameter bytes",
                                         "time"], init, ["---", "---:", "---:"]),
            Table("sharding_compile", ran, ["transformer blocks",
                                            "train step compile, blocks scanned", "unrolled"],
                  by_depth, ["---:", "---:", "---:"]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small models")
    parser.add_argument("--init-memory-child", nargs=2, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--results", action="store_true", help="keep the tables in "
                        "benchmarks/results/sharding_*.json (the docs show them)")
    args = parser.parse_args(argv)
    if args.init_memory_child:
        _init_memory_child(*args.init_memory_child)
        return
    if args.quick:
        sizes = bytes_per_device(256, 512, 2)
        memory = init_memory(512, 4)
        compiles = compile_times((3,), dim=16)
    else:
        sizes, memory, compiles = bytes_per_device(), init_memory(), compile_times()
    for made in tables(sizes, memory, compiles, argv):
        print(made.markdown() + "\n")
        if args.results:
            print(f"kept in {made.write()}\n")


if __name__ == "__main__":
    main()
