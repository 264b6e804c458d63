"""Loading and saving a ``.keras`` file: kgraph against Keras 3 (JAX backend), one process.

    python benchmarks/bench_saving.py                   # DenseNet121, 224x224, 5 repeats
    python benchmarks/bench_saving.py --network ResNet50 --repeats 9
    python benchmarks/bench_saving.py --quick           # MobileNetV2 (alpha 0.35), 1 repeat

Keras builds the network (random weights) and saves it; then, alternately and after one
warm-up each, ``kg.load_model`` and ``keras.saving.load_model`` read that same file, and
each system saves the model it loaded (garbage collected before each timing, so that neither
pays for collecting the other's objects). The loaded models' predictions on two random images
are compared first (normalized max difference, must be <= 1e-3). Medians and the ratios kgraph / Keras of the medians
are printed, with the table the docs show (kept with ``--results``). The machine is shared
and noisy: compare ratios from one run. Target: load ratio <= 1.0.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("KERAS_BACKEND", "jax")

TARGET_LOAD_RATIO = 1.0


def _timed(fn):
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def measure(network="DenseNet121", size=224, repeats=5, folder=None):
    """``{"kgraph": {"load", "save"}, "keras": {...}, "params", "megabytes"}`` (medians, s)."""
    import keras

    import kgraph as kg

    kwargs = {"alpha": 0.35} if network.startswith("MobileNet") else {}
    model = getattr(keras.applications, network)(weights=None, input_shape=(size, size, 3),
                                                 **kwargs)
    folder = folder or tempfile.mkdtemp()
    path = os.path.join(folder, "model.keras")
    model.save(path)
    loaders = {"kgraph": kg.load_model, "keras": keras.saving.load_model}
    times = {name: {"load": [], "save": []} for name in loaders}
    images = np.random.default_rng(0).uniform(0, 255, (2, size, size, 3)).astype("float32")
    reference = model.predict(images, verbose=0)
    for name, load in loaders.items():  # warm-up (imports, first-use costs) and a check
        got = load(path).predict(images, verbose=0)
        error = float(np.max(np.abs(got - reference))) / max(float(np.max(np.abs(reference))), 1)
        if error > 1e-3:
            raise AssertionError(f"{name}'s loaded {network} differs from Keras's by {error}")
    for repeat in range(repeats):
        order = list(loaders) if repeat % 2 == 0 else list(reversed(loaders))
        for name in order:
            gc.collect()  # the other system's garbage is not collected on this one's time
            seconds, loaded = _timed(lambda: loaders[name](path))
            times[name]["load"].append(seconds)
            out = os.path.join(folder, f"{name}.keras")
            times[name]["save"].append(_timed(lambda: loaded.save(out))[0])
            del loaded
    medians = {name: {phase: statistics.median(values) for phase, values in phases.items()}
               for name, phases in times.items()}
    medians["params"] = model.count_params()
    medians["megabytes"] = os.path.getsize(path) / 2 ** 20
    return medians


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--network", default="DenseNet121")
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true",
                        help="MobileNetV2 (alpha 0.35) at 32x32, one repeat")
    parser.add_argument("--results", action="store_true",
                        help="keep the table in benchmarks/results/saving.json (the docs show it)")
    args = parser.parse_args(argv)
    if args.quick:
        args.network, args.size, args.repeats = "MobileNetV2", 32, 1
    medians = measure(args.network, args.size, args.repeats)
    made = table(args.network, args.repeats, medians, argv)
    ratio = medians["kgraph"]["load"] / medians["keras"]["load"]
    print(f"{made.markdown()}\nload ratio {ratio:.2f} (target <= {TARGET_LOAD_RATIO})")
    if args.results:
        print(f"kept in {made.write()}")
    return medians


def table(network, repeats, medians, argv=None):
    """``measure``'s medians as the benchmark's table (``benchmarks.results``)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.results import Table, command

    rows = []
    for phase in ("load", "save"):
        ours, theirs = medians["kgraph"][phase], medians["keras"][phase]
        rows.append([phase, f"{ours:.2f} s", f"{theirs:.2f} s", f"{ours / theirs:.2f}"])
    return Table("saving", command(__file__, argv),
                 [f"{network} ({medians['params'] / 1e6:.1f} M parameters, "
                  f"{medians['megabytes']:.0f} MB file), medians of {repeats}", "kgraph",
                  "Keras 3 (JAX)", "kgraph / Keras"], rows, ["---", "---:", "---:", "---:"],
                 against=["keras", "h5py"])


if __name__ == "__main__":
    main()
