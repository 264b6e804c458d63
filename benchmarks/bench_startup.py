"""Time to first output: kgraph against Keras 3 (JAX backend), each run in a fresh process.

    python benchmarks/bench_startup.py                  # 200 Dense(64) layers, 5 repeats
    python benchmarks/bench_startup.py --layers 50 --repeats 9
    python benchmarks/bench_startup.py --quick          # 10 layers, 1 repeat
    python benchmarks/bench_startup.py --no-keras       # kgraph only

The model is a chain of ``--layers`` ``Dense(64)`` layers on a ``(64,)`` input; the first
call is on a ``(8, 64)`` batch of ones. Every measurement starts a new Python process, so
each phase pays what a user's script pays: imports, first traces and XLA compiles. Phases:

- import: ``import jax, kgraph, compiler`` / ``import jax, keras``;
- build: ``Input`` + the layer calls + ``Model`` (Keras creates and initialises its weights
  here; kgraph only records the graph);
- init: kgraph ``compiler.compile(model)``, ``jax.random.PRNGKey(0)`` and
  ``program.init(key)`` (also shown alone); Keras has no separate step;
- first eager call: ``model(x)`` until the result is ready (kgraph makes the weights'
  eager values here, from ``kgraph.random``'s seed);
- total: from the first import to the first output.

Processes alternate between the systems (order reversed every repeat); the tables show
medians and the ratios kgraph / Keras of the medians. The machine is shared and noisy:
compare ratios from one run, not absolute times across runs. Ends with a markdown table
(kept for the docs with ``--results``).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)

PHASES = ["import", "build", "init", "first eager call", "total"]
TARGET_INIT_S = 0.5        # program.init of the 200-layer chain
TARGET_TOTAL_RATIO = 1.0   # kgraph total / Keras total


# ------------------------------------------------------------------ child processes
def _child_kgraph(layers):
    started = time.perf_counter()
    import jax
    import numpy as np

    import compiler
    import kgraph as kg
    times = {"import": time.perf_counter() - started}

    t = time.perf_counter()
    x = kg.Input(shape=(64,))
    h = x
    for _ in range(layers):
        h = kg.layers.Dense(64)(h)
    model = kg.Model(x, h)
    times["build"] = time.perf_counter() - t

    t = time.perf_counter()
    program = compiler.compile(model)
    key = jax.random.PRNGKey(0)
    t_init = time.perf_counter()
    params, state = program.init(key)
    jax.block_until_ready((params, state))
    times["program.init"] = time.perf_counter() - t_init
    times["init"] = time.perf_counter() - t

    t = time.perf_counter()
    out = jax.block_until_ready(model(np.ones((8, 64), np.float32)))
    times["first eager call"] = time.perf_counter() - t
    times["total"] = time.perf_counter() - started
    assert out.shape == (8, 64) and len(params) == layers
    return times


def _child_keras(layers):
    started = time.perf_counter()
    os.environ["KERAS_BACKEND"] = "jax"
    import jax
    import keras
    import numpy as np
    times = {"import": time.perf_counter() - started}
    if keras.backend.backend() != "jax":
        raise RuntimeError(f"Keras runs on {keras.backend.backend()!r}, not JAX")

    t = time.perf_counter()
    x = keras.Input(shape=(64,))
    h = x
    for _ in range(layers):
        h = keras.layers.Dense(64)(h)
    model = keras.Model(x, h)
    times["build"] = time.perf_counter() - t
    times["init"] = 0.0  # Keras initialises its weights in build

    t = time.perf_counter()
    out = jax.block_until_ready(model(np.ones((8, 64), np.float32)))
    times["first eager call"] = time.perf_counter() - t
    times["total"] = time.perf_counter() - started
    assert out.shape == (8, 64) and len(model.weights) == 2 * layers
    return times


_CHILDREN = {"kgraph": _child_kgraph, "keras": _child_keras}


def measure(system, layers) -> dict:
    """Run one measurement in a fresh process; its phase times in seconds."""
    env = dict(os.environ, KERAS_BACKEND="jax",
               PYTHONPATH=os.pathsep.join([_ROOT, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", system,
                           "--layers", str(layers)], capture_output=True, text=True, env=env,
                          cwd=_ROOT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the {system} measurement failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------ parent
def _version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "n/a"


def machine_line():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    return (f"{cpu}, {os.cpu_count()} cores; JAX {_version('jax')}, Keras {_version('keras')}, "
            f"Python {platform.python_version()}")


def keras_available():
    try:
        importlib.metadata.version("keras")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def run(layers, repeats, with_keras):
    """``{system: [times, ...]}``, the systems alternating process by process."""
    systems = ["kgraph", "keras"] if with_keras else ["kgraph"]
    samples = {name: [] for name in systems}
    for r in range(repeats):
        for name in (systems if r % 2 == 0 else systems[::-1]):
            samples[name].append(measure(name, layers))
            times = samples[name][-1]
            print(f"  repeat {r + 1}/{repeats} {name:<7} "
                  + "  ".join(f"{phase} {times[phase]:.3f}" for phase in PHASES), flush=True)
    return samples


def medians(samples) -> dict:
    return {name: {phase: statistics.median(t[phase] for t in runs) for phase in runs[0]}
            for name, runs in samples.items()}


def _ratio(a, b):
    return f"{a / b:.2f}" if b > 0 else "-"


def print_table(med, layers, repeats):
    kgraph, keras = med["kgraph"], med.get("keras")
    print(f"\nMedian seconds over {repeats} fresh processes per system, chain of {layers} "
          "Dense(64):")
    print(f"{'phase':<20}{'kgraph':>10}{'Keras':>12}{'kgraph/Keras':>14}")
    for phase in PHASES:
        k = keras[phase] if keras else None
        ks = "-" if k is None else ("(in build)" if phase == "init" else f"{k:.3f}")
        ratio = "-" if k is None or phase == "init" else _ratio(kgraph[phase], k)
        print(f"{phase:<20}{kgraph[phase]:>10.3f}{ks:>12}{ratio:>14}")
    if keras:
        both = kgraph["build"] + kgraph["init"]
        print(f"{'build + init':<20}{both:>10.3f}{keras['build']:>12.3f}"
              f"{_ratio(both, keras['build']):>14}")
    print(f"{'program.init alone':<20}{kgraph['program.init']:>10.3f}")


def targets(med, layers) -> list[str]:
    lines = []
    init = med["kgraph"]["program.init"]
    if layers == 200:
        lines.append(f"program.init of the 200-layer chain {init:.3f} s <= {TARGET_INIT_S} s: "
                     f"{'PASS' if init <= TARGET_INIT_S else 'FAIL'}")
    if "keras" in med:
        ratio = med["kgraph"]["total"] / med["keras"]["total"]
        lines.append(f"total kgraph / Keras {ratio:.2f} <= {TARGET_TOTAL_RATIO}: "
                     f"{'PASS' if ratio <= TARGET_TOTAL_RATIO else 'FAIL'}")
    return lines


def table(med, argv=None):
    """The medians as the benchmark's table (``benchmarks.results``)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.results import Table, command

    kgraph, keras = med["kgraph"], med.get("keras")
    rows = []
    for phase in PHASES:
        if keras is None:
            rows.append([phase, f"{kgraph[phase]:.2f} s", "n/a", "-"])
        elif phase == "init":
            rows.append(["init (compile + `program.init`)", f"{kgraph[phase]:.2f} s",
                         "in build", "-"])
        else:
            rows.append([phase, f"{kgraph[phase]:.2f} s", f"{keras[phase]:.2f} s",
                         _ratio(kgraph[phase], keras[phase]).strip()])
    rows.append(["`program.init` alone", f"{kgraph['program.init']:.2f} s", "-", "-"])
    return Table("startup", command(__file__, argv), ["phase", "kgraph", "Keras 3 (JAX)", "kgraph / Keras"],
                 rows, ["---", "---:", "---:", "---:"], against=[] if keras is None else ["keras"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=None, help="chain depth (default 200)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="fresh processes per system (default 5)")
    parser.add_argument("--quick", action="store_true", help="10 layers, 1 repeat")
    parser.add_argument("--no-keras", action="store_true", help="measure kgraph only")
    parser.add_argument("--results", action="store_true",
                        help="keep the table in benchmarks/results/startup.json (the docs show it)")
    parser.add_argument("--child", choices=sorted(_CHILDREN), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    layers = args.layers or (10 if args.quick else 200)
    if args.child:
        print(json.dumps(_CHILDREN[args.child](layers)))
        return None
    repeats = args.repeats or (1 if args.quick else 5)
    with_keras = not args.no_keras and keras_available()
    if not args.no_keras and not with_keras:
        print("Keras is not installed; measuring kgraph only.")

    print(f"kgraph startup benchmark: chain of {layers} Dense(64), {repeats} repeat(s); "
          f"{machine_line()}")
    started = time.perf_counter()
    med = medians(run(layers, repeats, with_keras))
    print_table(med, layers, repeats)
    lines = targets(med, layers)
    if lines:
        print("\nTargets:\n" + "\n".join(f"  {line}" for line in lines))
    made = table(med, argv)
    print(f"\nTable (markdown): chain of {layers} Dense(64), median of {repeats} fresh "
          f"processes each; {machine_line()}.\n\n{made.markdown()}")
    if args.results:
        print(f"kept in {made.write()}")
    print(f"\nTotal benchmark time: {time.perf_counter() - started:.1f} s")
    return med


if __name__ == "__main__":
    main()
