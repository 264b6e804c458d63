"""``model.predict`` against a hand-written jitted loop and Keras 3, in one run.

    python benchmarks/bench_predict.py                 # about 2 minutes
    python benchmarks/bench_predict.py --quick         # fewer rounds
    python benchmarks/bench_predict.py --no-keras

Networks: VGG16 without its top on 32x32x3 images, average-pooled (``keras.applications``,
``weights=None``), and the ``mlp`` workload of ``workloads.py`` (784-512-512-10). For each,
and for a few numbers of samples (fewer than one batch, a few batches), it times:

- hand-written: ``jax.jit(program.apply)`` on each batch of 32 rows (a last, smaller batch
  compiled at its own size, as Keras does), outputs copied to NumPy: what a user writes
  without ``predict``;
- kgraph ``model.predict(x, verbose=0)`` (the model compiled, its first call excluded);
- Keras 3 ``model.predict(x, verbose=0)`` on its JAX backend (first call excluded).

Systems take turns round by round; the table shows median seconds per call and the ratio
to the hand-written loop. The machine is shared and noisy: compare ratios from one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("KERAS_BACKEND", "jax")

import jax  # noqa: E402
import numpy as np  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
for _path in (_ROOT, _HERE):  # runnable as a script from anywhere
    if _path not in sys.path:
        sys.path.insert(0, _path)

import compiler  # noqa: E402
import kgraph as kg  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

BATCH = 32


def _vgg(library):
    return library.applications.VGG16(weights=None, include_top=False,
                                      input_shape=(32, 32, 3), pooling="avg")


NETWORKS = {
    "vgg16 32x32": (_vgg, _vgg, (32, 32, 3)),
    "mlp": (lambda _kg: WORKLOADS["mlp"].build_kgraph(),
            lambda keras: WORKLOADS["mlp"].build_keras(keras), (784,)),
}


def _hand_predict(model):
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    apply = jax.jit(lambda p, s, x: program.apply(p, s, x, training=False)[0])

    def run(x):
        return np.concatenate([np.asarray(apply(params, state, x[start:start + BATCH]))
                               for start in range(0, len(x), BATCH)])
    return run


def _timed(run, x):
    started = time.perf_counter()
    out = run(x)
    return time.perf_counter() - started, out


def table(rows, argv=None):
    """``(network, samples, medians)`` rows as the benchmark's table (``benchmarks.results``):
    seconds, and each system's ratio to the hand-written loop."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.results import Table, command

    def seconds(t):
        return f"{t:.2f} s" if t >= 1 else f"{t * 1e3:.3g} ms"

    cells = []
    for name, samples, medians in rows:
        hand = medians["hand-written"]
        row = [name, samples, seconds(hand)]
        for system in ("kgraph predict", "Keras predict"):
            t = medians.get(system)
            row.append("n/a" if t is None else f"{seconds(t)} ({t / hand:.2f}x)")
        cells.append(row)
    return Table("predict", command(__file__, argv),
                 ["network", "samples", "hand-written", "kgraph predict", "Keras predict"],
                 cells, ["---", "---:", "---:", "---:", "---:"],
                 against=["keras"] if any("Keras predict" in m for *_, m in rows) else [])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--networks", default=",".join(NETWORKS),
                        help="comma-separated: " + ", ".join(NETWORKS))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-keras", action="store_true")
    parser.add_argument("--results", action="store_true",
                        help="keep the table in benchmarks/results/predict.json (the docs show it)")
    args = parser.parse_args(argv)
    rounds = 2 if args.quick else args.rounds
    keras = None
    if not args.no_keras:
        try:
            import keras
        except ImportError:
            print("Keras is not installed: its column is n/a")
    rows = []
    for name in args.networks.split(","):
        build_kgraph, build_keras, shape = NETWORKS[name]
        model = build_kgraph(kg)
        model.compile(loss="mse")
        systems = {"hand-written": _hand_predict(model),
                   "kgraph predict": lambda x, m=model: m.predict(x, verbose=0)}
        if keras is not None:
            keras_model = build_keras(keras)
            systems["Keras predict"] = lambda x, m=keras_model: m.predict(x, verbose=0)
        for samples in (2, 64, 256):
            x = np.random.default_rng(samples).random((samples, *shape), np.float32)
            times = {system: [] for system in systems}
            reference = systems["hand-written"](x)  # first calls (compiles) excluded
            np.testing.assert_allclose(systems["kgraph predict"](x), reference,
                                       rtol=1e-4, atol=1e-5)
            for system, run in systems.items():
                assert run(x).shape[0] == samples
            for _ in range(rounds):
                for system, run in systems.items():
                    times[system].append(_timed(run, x)[0])
            medians = {system: statistics.median(t) for system, t in times.items()}
            rows.append((name, samples, medians))
            print(name, samples, {s: f"{t:.3f} s" for s, t in medians.items()}, flush=True)
    made = table(rows, argv)
    print("\n" + made.markdown())
    if args.results:
        print(f"kept in {made.write()}")
    return rows


if __name__ == "__main__":
    main()
