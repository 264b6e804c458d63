"""TPU plans from this machine: real models on real pods, with kgraph's automatic choice.

    python benchmarks/bench_plan.py                       # every case below (about 4 minutes)
    python benchmarks/bench_plan.py --cases cnn-v5e-8 bert-base-v5e-8
    python benchmarks/bench_plan.py --quick               # the two v5e-8 cases
    python benchmarks/bench_plan.py --out plan.json       # also write the figures as JSON
    python benchmarks/bench_plan.py --results             # keep the table for the docs

Each case builds its model from shapes (KerasHub's classes at their published sizes,
through ``kgraph.compat``; no weight value is made), then ``runtime.plan`` compiles its
training step for the topology with XLA's TPU compiler (libtpu) and chooses the remat
(``remat="auto"``) and, when the batch does not fit whole, micro-batches
(``gradient_accumulation_steps="auto"``): see ``runtime.planning.search``. The LLMs train
as MaxText's ``train_compile`` does: float32 weights and optimizer state (AdamW), bfloat16
compute, FSDP over every chip, one 2,048-token sequence per chip, cross-entropy over the
vocabulary. Each case runs in a process of its own (the host memory it needs is measured).
Ends with a markdown table (kept for the docs with ``--results``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)

# name -> (model, topology, rows per chip, sequence length)
CASES = {
    "llama2-7b-v5e-256": ("llama2-7b", "v5e-256", 1, 2048),
    "llama2-7b-v5p-128": ("llama2-7b", "v5p-128", 1, 2048),
    "gemma-7b-v5e-256": ("gemma-7b", "v5e-256", 1, 2048),
    "gemma-7b-v5p-128": ("gemma-7b", "v5p-128", 1, 2048),
    "bert-base-v5e-8": ("bert-base", "v5e-8", 32, 512),
    "cnn-v5e-8": ("cnn", "v5e-8", 256, None),
}
QUICK = ("cnn-v5e-8", "bert-base-v5e-8")


def _llm(name):
    import keras_hub

    if name == "llama2-7b":
        backbone = keras_hub.models.LlamaBackbone(
            vocabulary_size=32000, num_layers=32, num_query_heads=32, num_key_value_heads=32,
            hidden_dim=4096, intermediate_dim=11008, dtype="mixed_bfloat16")
        return keras_hub.models.LlamaCausalLM(backbone=backbone, preprocessor=None)
    backbone = keras_hub.models.GemmaBackbone(
        vocabulary_size=256000, num_layers=28, num_query_heads=16, num_key_value_heads=16,
        hidden_dim=3072, intermediate_dim=49152, head_dim=256, dtype="mixed_bfloat16")
    return keras_hub.models.GemmaCausalLM(backbone=backbone, preprocessor=None)


def _bert():
    import keras_hub

    backbone = keras_hub.models.BertBackbone(
        vocabulary_size=30522, num_layers=12, num_heads=12, hidden_dim=768,
        intermediate_dim=3072, max_sequence_length=512, dtype="mixed_bfloat16")
    return keras_hub.models.BertTextClassifier(backbone=backbone, num_classes=2,
                                                preprocessor=None)


def _cnn():
    import kgraph as kg

    x = kg.Input((32, 32, 3))
    h = x
    for filters in (64, 128, 256):
        for _ in range(2):
            h = kg.layers.Conv2D(filters, 3, padding="same", use_bias=False)(h)
            h = kg.layers.BatchNormalization()(h)
            h = kg.layers.Activation("relu")(h)
        h = kg.layers.MaxPooling2D()(h)
    h = kg.layers.GlobalAveragePooling2D()(h)
    return kg.Model(x, kg.layers.Dense(10)(h), name="cnn")


def run_case(name: str, remat="auto", accumulate="auto") -> dict:
    """Plan one case in this process (``remat``: "auto", or one policy for every layer;
    ``accumulate``: "auto", or None for the whole batch in one step): its figures and the
    table of candidates."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp

    import kgraph.compat

    kgraph.compat.install()
    import kgraph as kg
    from runtime import plan
    from runtime.planning import topology

    kind, where, per_chip, length = CASES[name]
    chips = topology(where).chips
    rows = per_chip * chips
    start = time.perf_counter()
    loss = kg.losses.SparseCategoricalCrossentropy(from_logits=True)
    if kind in ("llama2-7b", "gemma-7b"):
        model = _llm(kind)
        tokens = jax.ShapeDtypeStruct((rows, length), jnp.int32)
        batch = ({"token_ids": tokens, "padding_mask": tokens}, tokens)
        optimizer = kg.optimizers.AdamW(weight_decay=0.1)
    elif kind == "bert-base":
        model = _bert()
        tokens = jax.ShapeDtypeStruct((rows, length), jnp.int32)
        batch = ({"token_ids": tokens, "segment_ids": tokens, "padding_mask": tokens},
                 jax.ShapeDtypeStruct((rows,), jnp.int32))
        optimizer = kg.optimizers.AdamW()
    else:
        model = _cnn()
        batch = ((rows, 32, 32, 3), jax.ShapeDtypeStruct((rows,), jnp.int32))
        optimizer = kg.optimizers.SGD(0.1, momentum=0.9)
    built = time.perf_counter() - start
    chosen = plan(model, topology=where, batch=batch, optimizer=optimizer, loss=loss,
                  sharding="fsdp", remat=remat, gradient_accumulation_steps=accumulate)
    figures = chosen.as_dict()
    figures.update(case=name, model=kind, parameters=int(sum(
        int(jnp.prod(jnp.asarray(w.shape))) for w in model.weights)),
        build_seconds=built, search_seconds=time.perf_counter() - start,
        peak_host_gib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
        table=str(chosen))
    return figures


HEADER = ["model", "topology", "parameters", "batch", "chosen", "fits", "GiB per chip",
          "weights / optimizer / temporaries GiB", "step ms (roofline)", "bound", "MFU",
          "candidates / search", "host GiB"]
ALIGN = ["---", "---", "---:", "---", "---", "---", "---:", "---", "---:", "---", "---:", "---:",
         "---:"]


def _row(f: dict) -> list:
    gib = lambda n: "-" if n is None else f"{n / 2**30:.2f}"  # noqa: E731
    step = "-" if f["step_seconds"] is None else f"{f['step_seconds'] * 1e3:.0f}"
    mfu = "-" if f["mfu"] is None else f"{f['mfu']:.0%}"
    settings = f["settings"]
    chosen = f"remat={settings['remat']}" + (
        f", {settings['gradient_accumulation_steps']} micro-batches"
        if settings.get("gradient_accumulation_steps") else "")
    return [f["model"], f["topology"], f"{f['parameters'] / 1e9:.2f} B",
            f"{settings['batch'][0]} x {'x'.join(map(str, settings['batch'][1:]))}", chosen,
            "yes" if f["fits"] else "no", gib(f["total"]),
            f"{gib(f['weights'])} / {gib(f['optimizer_state'])} / {gib(f['temporaries'])}",
            step, f["step_parts"].get("bound", "-"), mfu,
            f"{len(f['candidates'])} / {f['search_seconds']:.0f} s", f"{f['peak_host_gib']:.1f}"]


def table(figures: list, argv=None):
    """The cases' figures as the benchmark's table (``benchmarks.results``)."""
    from benchmarks.results import Table, command

    return Table("plan", command(__file__, argv, options=("--out",)), HEADER, [_row(f) for f in figures], ALIGN,
                 against=["libtpu", "keras-hub"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", nargs="*", default=None, choices=sorted(CASES))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=None, help="write the figures as JSON here")
    parser.add_argument("--results", action="store_true",
                        help="keep the table in benchmarks/results/plan.json (the docs show it)")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--remat", default="auto", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        remat = False if args.remat == "none" else args.remat
        print(json.dumps(run_case(args.child, remat, None if args.remat != "auto" else "auto"),
                         default=str))
        return
    names = args.cases or (QUICK if args.quick else tuple(CASES))
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": _ROOT}
    results = []
    for name in names:
        done = subprocess.run([sys.executable, __file__, "--child", name], env=env,
                              capture_output=True, text=True)
        if done.returncode:
            print(f"{name}: failed\n{done.stderr[-3000:]}", flush=True)
            continue
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        results.append(figures)
        print(f"\n== {name}\n{figures['table']}", flush=True)
    sys.path.insert(0, _ROOT)
    made = table(results)
    print("\n" + made.markdown())
    if args.results:
        print(f"kept in {made.write()}")
    if args.out:
        with open(args.out, "w") as file:
            json.dump([{k: v for k, v in f.items() if k != "table"} for f in results], file,
                      indent=1, default=str)


if __name__ == "__main__":
    main()
