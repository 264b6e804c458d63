"""A KerasHub decoder's train step, kgraph against Keras 3, shallow and deep.

    python benchmarks/bench_keras_hub.py            # about 4 minutes
    python benchmarks/bench_keras_hub.py --quick    # tiny model, one round

KerasHub's ``LlamaCausalLM`` (its ``LlamaBackbone`` nested inside) is built by KerasHub
itself, unchanged, under Keras 3 (JAX backend) and under kgraph (``kgraph.compat.install()``
makes KerasHub's ``import keras`` give kgraph), at 2 and at 24 decoder blocks. Each
(system, depth) runs in a fresh process, which reports for the jitted train step (Adam,
sparse cross-entropy on logits):

- compile: seconds to trace, lower and compile it (``jit(...).lower(...).compile()``);
  kgraph's ``runtime.Trainer`` step (the one ``fit`` runs), Keras's ``model.train_step``
  jitted with its state donated, as Keras's ``fit`` does;
- step: the median seconds of a step once compiled;
- memory: ``compiled.memory_analysis()``: temporaries (activations and scratch) and
  arguments (weights, optimizer state, batch), in MiB.

kgraph runs the 24 blocks as one ``lax.scan`` over stacked weights (``compiler.scan_blocks``);
Keras unrolls them. kgraph is also timed with the blocks rematerialised
(``remat="nothing_saveable"`` on them) and unrolled (``scan_blocks=False``). The processes of the systems take turns round by round and the table
shows medians. The machine is shared and noisy: compare ratios from one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)

CONFIG = dict(vocabulary_size=2048, hidden_dim=256, intermediate_dim=512, num_query_heads=8,
              num_key_value_heads=4)
QUICK_CONFIG = dict(vocabulary_size=64, hidden_dim=16, intermediate_dim=32, num_query_heads=2,
                    num_key_value_heads=1)
BATCH, SEQUENCE, QUICK_SEQUENCE = 8, 128, 8
STEPS = 6


def _child(system, layers, quick, options):
    """Run in a fresh process: build, compile and time one train step; print JSON."""
    os.environ["KERAS_BACKEND"] = "jax"
    if system == "kgraph":
        sys.path.insert(0, _ROOT)
        import kgraph.compat
        kgraph.compat.install()
    import jax
    import keras
    import keras_hub
    import numpy as np

    config, sequence = (QUICK_CONFIG, QUICK_SEQUENCE) if quick else (CONFIG, SEQUENCE)
    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.LlamaBackbone(num_layers=layers, **config)
    lm = keras_hub.models.LlamaCausalLM(backbone=backbone, preprocessor=None)
    rng = np.random.default_rng(0)
    tokens = rng.integers(1, config["vocabulary_size"], (BATCH, sequence)).astype("int32")
    x = {"token_ids": tokens, "padding_mask": np.ones((BATCH, sequence), "int32")}
    batch = (x, np.roll(tokens, -1, axis=1), np.ones((BATCH, sequence), "float32"))
    lm.compile(optimizer=keras.optimizers.Adam(1e-4),
               loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
               weighted_metrics=[], **options)
    if system == "kgraph":
        from runtime.training_setup import TrainingSetup
        trainer = TrainingSetup.of(lm).trainer_for(lm, x)
        state = trainer.init_from_model(jax.random.PRNGKey(0))
        step, new_state = trainer.train_step, lambda out: out[0]
        scanned = sum(len(run.nodes) for run in trainer.program.block_runs)
    else:
        lm._symbolic_build(data_batch=batch)
        state = lm._get_jax_state(trainable_variables=True, non_trainable_variables=True,
                                  optimizer_variables=True, metrics_variables=True,
                                  purge_model_variables=False)
        step, new_state = jax.jit(lm.train_step, donate_argnums=0), lambda out: out[1]
        scanned = 0
    started = time.perf_counter()
    compiled = step.lower(state, batch).compile()
    compile_seconds = time.perf_counter() - started
    memory = compiled.memory_analysis()
    times = []
    for _ in range(STEPS):
        started = time.perf_counter()
        out = compiled(state, batch)
        jax.block_until_ready(out)
        times.append(time.perf_counter() - started)
        state = new_state(out)
    print(json.dumps({"compile": compile_seconds, "step": statistics.median(times[1:]),
                      "temp": memory.temp_size_in_bytes / 2**20,
                      "arguments": memory.argument_size_in_bytes / 2**20,
                      "parameters": int(lm.count_params()), "scanned": scanned}))


def _run(system, layers, quick, options=None) -> dict:
    command = [sys.executable, os.path.abspath(__file__), "--child", system, str(layers),
               "--options", json.dumps(options or {})]
    command += ["--quick"] if quick else []
    env = {**os.environ, "KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1200)
    if done.returncode:
        raise RuntimeError(f"{system} at {layers} blocks failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# name, system, model.compile options
CASES = [("Keras 3", "keras", {}), ("kgraph", "kgraph", {}),
         ("kgraph, remat", "kgraph",
          {"remat": {r"llama_backbone/transformer_layer_\d+": "nothing_saveable"}}),
         ("kgraph, unrolled", "kgraph", {"scan_blocks": False})]


def measure(depths, rounds, quick) -> dict:
    """``{(case, depth): {figure: median}}``, the cases taking turns round by round."""
    samples: dict = {}
    for _ in range(rounds):
        for depth in depths:
            for name, system, options in CASES:
                samples.setdefault((name, depth), []).append(
                    _run(system, depth, quick, options))
    return {key: {figure: statistics.median(run[figure] for run in runs) if isinstance(
        runs[0][figure], float) else runs[0][figure] for figure in runs[0]}
        for key, runs in samples.items()}


def table(results, depths, argv=None):
    """``measure``'s medians as the benchmark's table (``benchmarks.results``)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.results import Table, command

    shallow, deep = depths
    rows = []
    for name in dict.fromkeys(name for name, _ in results):  # the cases measured
        for depth in depths:
            figures, keras = results[name, depth], results["Keras 3", depth]
            rows.append([name, f"{depth} ({figures['scanned']} scanned)",
                         f"{figures['compile']:.2f} s",
                         f"{figures['compile'] / results[name, shallow]['compile']:.2f}x",
                         f"{figures['compile'] / keras['compile']:.2f}x",
                         f"{figures['step'] * 1000:.0f} ms",
                         f"{figures['step'] / keras['step']:.2f}x",
                         f"{figures['temp']:.1f} MiB", f"{figures['arguments']:.1f} MiB"])
    parameters = results["kgraph", deep]["parameters"]
    return Table("keras_hub", command(__file__, argv),
                 ["system", f"blocks ({parameters / 1e6:.1f}M parameters at {deep})",
                  "train step compile", f"vs {shallow} blocks", "vs Keras", "step", "vs Keras",
                  "temporaries", "arguments"], rows, ["---"] + ["---:"] * 8,
                 against=["keras", "keras-hub"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny model, one round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--depths", type=int, nargs=2, default=(2, 24))
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--options", default="{}", help=argparse.SUPPRESS)
    parser.add_argument("--results", action="store_true",
                        help="keep the table in benchmarks/results/keras_hub.json (the docs show it)")
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child[0], int(args.child[1]), args.quick, json.loads(args.options))
        return None
    depths = tuple(args.depths)
    results = measure(depths, 1 if args.quick else args.rounds, args.quick)
    made = table(results, depths, argv)
    print(made.markdown())
    if args.results:
        print(f"kept in {made.write()}")
    return results


if __name__ == "__main__":
    main()
