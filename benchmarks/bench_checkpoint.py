"""Training checkpoints: saving and restoring a large train state, and what an async save
costs the step loop. One process; the machine is shared and noisy, so compare ratios.

    python benchmarks/bench_checkpoint.py              # 100M parameters (Adam: 1.2 GB state)
    python benchmarks/bench_checkpoint.py --quick      # 10M parameters

1. Save and restore: ``CheckpointManager.save`` + ``wait_until_finished`` and ``restore``
   (against an abstract target) of a ``TrainState`` with Adam's two moments, against
   ``np.save`` / ``np.load`` of the same bytes to the same disk (the raw floor; neither
   waits for the disk with fsync: both measure writing into the OS page cache).
2. Async save: the time ``save`` blocks the loop (copying off the device), the mean step
   time of training steps that run while the write goes on in the background against
   steps with no save running, and the loop time an async save costs in all (blocking
   part plus the slowdown of the steps) against a synchronous save.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _model(params: int):
    import kgraph as kg

    width, depth = 2048, max(1, round(params / 2048 ** 2))
    x = kg.Input(shape=(width,))
    h = x
    for _ in range(depth):
        h = kg.layers.Dense(width, activation="tanh")(h)
    return kg.Model(x, h), width


def _timed(fn):
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def measure(params=100_000_000, repeats=3, steps=6, folder=None):
    from runtime import Trainer
    from runtime.checkpoints import CheckpointManager

    model, width = _model(params)
    trainer = Trainer(model, optax.adam(1e-4), "mse")
    ts = trainer.init(jax.random.PRNGKey(0))
    count = sum(a.size for a in jax.tree_util.tree_leaves(ts.params))
    nbytes = sum(a.nbytes for a in jax.tree_util.tree_leaves(ts))
    folder = folder or tempfile.mkdtemp(dir=os.environ.get("BENCH_DIR"))
    target = jax.eval_shape(lambda: ts)
    results = {"params": count, "gigabytes": nbytes / 1e9}
    save, restore, raw_save, raw_load = [], [], [], []
    for r in range(repeats):
        directory = os.path.join(folder, f"ck{r}")
        with CheckpointManager(directory, async_save=False) as checkpoints:
            save.append(_timed(lambda: (checkpoints.save(1, ts),
                                        checkpoints.wait_until_finished()))[0])
            restore.append(_timed(lambda: jax.block_until_ready(
                checkpoints.restore(target).train_state))[0])
        shutil.rmtree(directory)
        leaves = [np.asarray(a) for a in jax.tree_util.tree_leaves(ts)]
        raw = os.path.join(folder, "raw")
        os.makedirs(raw, exist_ok=True)

        def write():
            for i, leaf in enumerate(leaves):
                np.save(os.path.join(raw, f"{i}.npy"), leaf)

        raw_save.append(_timed(write)[0])
        raw_load.append(_timed(lambda: [jnp.asarray(np.load(os.path.join(raw, f"{i}.npy")))
                                        for i in range(len(leaves))])[0])
        shutil.rmtree(raw)
    results.update(save=statistics.median(save), restore=statistics.median(restore),
                   raw_save=statistics.median(raw_save), raw_load=statistics.median(raw_load))

    # Async saves against the step loop.
    batch = (jnp.ones((64, width)), jnp.zeros((64, width)))
    ts = trainer.pack(ts)
    ts, _ = trainer.train_step(ts, batch)
    jax.block_until_ready(ts)

    def run_steps(ts):
        times = []
        for _ in range(steps):
            started = time.perf_counter()
            ts, logs = trainer.train_step(ts, batch)
            jax.block_until_ready(logs)
            times.append(time.perf_counter() - started)
        return ts, statistics.mean(times)

    plain, during, blocking = [], [], []
    for r in range(repeats):
        ts, quiet = run_steps(ts)
        directory = os.path.join(folder, f"async{r}")
        checkpoints = CheckpointManager(directory, async_save=True)
        seconds, _ = _timed(lambda: checkpoints.save(1, ts))
        ts, busy = run_steps(ts)
        checkpoints.close()
        shutil.rmtree(directory)
        plain.append(quiet)
        during.append(busy)
        blocking.append(seconds)
    results.update(step=statistics.median(plain), step_during_save=statistics.median(during),
                   save_blocks=statistics.median(blocking))
    results["async_cost"] = results["save_blocks"] + steps * max(
        0.0, results["step_during_save"] - results["step"])
    shutil.rmtree(folder, ignore_errors=True)
    return results


def tables(r, argv=None):
    """``measure``'s figures as the benchmark's two tables (``benchmarks.results``): save and
    restore against the raw floor, and what an asynchronous save costs the loop."""
    from benchmarks.results import Table, command

    gb, ran = r["gigabytes"], command(__file__, argv)
    state = f"train state of {r['params'] / 1e6:.0f}M parameters, Adam: {gb:.2f} GB"
    speeds = Table("checkpoint", ran, [state, "checkpoint", "raw np.save / np.load", "ratio"], [
        ["save", f"{r['save']:.2f} s ({gb / r['save']:.2f} GB/s)", f"{r['raw_save']:.2f} s",
         f"{r['save'] / r['raw_save']:.2f}x"],
        ["restore", f"{r['restore']:.2f} s ({gb / r['restore']:.2f} GB/s)",
         f"{r['raw_load']:.2f} s", f"{r['restore'] / r['raw_load']:.2f}x"]],
        ["---", "---:", "---:", "---:"], against=["orbax-checkpoint"])
    cost = Table("checkpoint_async", ran, ["async save", "seconds", "ratio"], [
        ["one training step, no save running", f"{r['step']:.3f}", "1.00x a step"],
        ["`save` blocks the loop (device-to-host copy)", f"{r['save_blocks']:.3f}",
         f"{r['save_blocks'] / r['step']:.2f}x a step"],
        ["one step while the write runs in the background", f"{r['step_during_save']:.3f}",
         f"{r['step_during_save'] / r['step']:.2f}x a step"],
        ["loop time an async save costs in all (blocking part plus slower steps)",
         f"{r['async_cost']:.3f}", f"{r['async_cost'] / r['save']:.2f}x a synchronous save"]],
        ["---", "---:", "---:"], against=["orbax-checkpoint"])
    return speeds, cost


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", type=int, default=100_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="10M parameters, 1 repeat")
    parser.add_argument("--results", action="store_true", help="keep the tables in "
                        "benchmarks/results/checkpoint*.json (the docs show them)")
    args = parser.parse_args(argv)
    if args.quick:
        args.params, args.repeats = 10_000_000, 1
    for made in tables(measure(args.params, args.repeats), argv):
        print(made.markdown() + "\n")
        if args.results:
            print(f"kept in {made.write()}\n")


if __name__ == "__main__":
    main()
