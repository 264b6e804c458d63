"""kgraph's training runtime against hand-written JAX + optax and Keras 3, in one run.

    python benchmarks/bench_runtime.py                # full run (5-15 min on 2 CPU cores)
    python benchmarks/bench_runtime.py --quick        # a few minutes (the CNN is slow on CPU)
    python benchmarks/bench_runtime.py --workloads tiny,mlp --rounds 60 --hlo --no-keras

For each workload in ``workloads.py`` (tiny MLP, MNIST-sized MLP, small CNN, one
transformer encoder block; Adam(1e-3); random float32 data from a fixed seed):

1. Step time: ``runtime.Trainer.train_step`` on a ``TrainState`` and on a packed train
   state (``Trainer.pack``, what ``fit`` trains on) against a hand-written jitted,
   buffer-donating JAX + optax step from the same initial weights on the same batch
   (their first-step losses are checked equal first). Interleaved rounds, medians, ratio
   of medians with a 95% bootstrap interval (rounds resampled in pairs), as in
   ``bench_core.py``.
2. ``fit`` throughput (steps/s over one epoch of in-memory NumPy data, compiling epoch
   excluded): a hand-written Python loop over the jitted step slicing shuffled NumPy
   batches, kgraph ``model.fit`` with ``steps_per_execution`` 1, 8 and 16, and Keras 3
   ``model.fit`` on its JAX backend. A timed ``fit`` epoch is the second epoch of a
   ``fit(..., epochs=2)`` call, timed by an epoch callback: what a ``fit`` call does once
   (e.g. putting the data on the device) is not part of any epoch, as the hand loop has no
   such step. Systems take turns epoch by epoch.

Ends with the table the docs show (kept with ``--results``). Keras is optional ("n/a" without
it).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import time

os.environ.setdefault("KERAS_BACKEND", "jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
for _path in (_ROOT, _HERE):  # runnable as a script from anywhere
    if _path not in sys.path:
        sys.path.insert(0, _path)

import compiler  # noqa: E402
from runtime import Callback, Trainer  # noqa: E402
from workloads import WORKLOADS, make_hand_step  # noqa: E402

LEARNING_RATE = 1e-3
TARGET_STEP_RATIO = 1.02      # kgraph step time / hand-written step time
TARGET_FIT_VS_LOOP = 1.0      # kgraph fit steps/s / hand loop steps/s (tiny, mlp)
TARGET_TINY_FIT_VS_LOOP = 2.0  # kgraph fit, and with steps_per_execution 8 and 16 (tiny)
LOSS_TOLERANCE = 1e-5         # first-step losses of kgraph and hand-written must agree
HAND = "hand-written JAX"
KGRAPH = "kgraph Trainer"
PACKED = "kgraph Trainer, packed"


def load_keras():
    """Keras 3 on its JAX backend, or None if it can't be imported."""
    try:
        import keras
    except Exception as error:  # noqa: BLE001 - any import failure means "not available"
        print(f"Keras not available ({type(error).__name__}: {error}); its columns show n/a.")
        return None
    if keras.backend.backend() != "jax":
        print(f"Keras runs on {keras.backend.backend()!r}, not JAX; its columns show n/a.")
        return None
    return keras


def _copy(tree):
    return jax.tree_util.tree_map(lambda a: jnp.array(a, copy=True), tree)


def ratio_of_medians(numerator, denominator, rng, draws=2000):
    """``median(numerator) / median(denominator)`` and its 95% bootstrap interval.

    Rounds are resampled in pairs (sample ``i`` of both came from the same round).
    """
    num, den = np.asarray(numerator), np.asarray(denominator)
    index = rng.integers(0, len(num), size=(draws, len(num)))
    dist = np.median(num[index], axis=1) / np.median(den[index], axis=1)
    low, high = np.percentile(dist, [2.5, 97.5])
    return float(np.median(num) / np.median(den)), (float(low), float(high))


def interleave(systems, rounds, measure):
    """``{name: [measure(system) per round]}``; the order rotates, and reverses every
    ``len(systems)`` rounds, so that no system always runs first or after the same one."""
    samples = {s.name: [] for s in systems}
    n = len(systems)
    for r in range(rounds):
        order = systems[r % n:] + systems[:r % n]
        if (r // n) % 2:
            order = order[::-1]
        for system in order:
            samples[system.name].append(measure(system))
    return samples


# ------------------------------------------------------------------------ step time
class StepSystem:
    """A train step on a fixed batch: ``init() -> carry``, ``step(carry) -> (carry, loss)``.

    ``lower(carry)`` gives the jitted step's lowering (for ``hlo_compare``).
    """

    def __init__(self, name, init, step, lower):
        self.name, self.init, self.step, self.lower = name, init, step, lower
        self.carry = None

    def run(self, steps):
        """Seconds per step over ``steps`` steps from the current carry (one final sync)."""
        carry, loss = self.carry, None
        start = time.perf_counter()
        for _ in range(steps):
            carry, loss = self.step(carry)
        jax.block_until_ready((carry, loss))
        self.carry = carry
        return (time.perf_counter() - start) / steps


def _trainer_system(workload, model, params0, x, y, packed=False):
    trainer = Trainer(model, optax.adam(LEARNING_RATE), workload.kgraph_loss())

    def init():
        ts = trainer.init(jax.random.PRNGKey(0))
        if jax.tree_util.tree_structure(ts.params) != jax.tree_util.tree_structure(params0):
            raise ValueError(f"{workload.name}: the Trainer's params pytree differs from "
                             "program.init's.")
        ts = ts._replace(params=_copy(params0))
        return trainer.pack(ts) if packed else ts

    def step(ts):
        ts, logs = trainer.train_step(ts, (x, y))
        return ts, logs["loss"]

    return StepSystem(PACKED if packed else KGRAPH, init, step,
                      lambda ts: trainer.train_step.lower(ts, (x, y)))


def _hand_system(workload, params0, x, y):
    optimizer = optax.adam(LEARNING_RATE)
    hand = make_hand_step(workload, optimizer)

    def step(carry):
        params, opt_state, loss = hand(*carry, x, y)
        return (params, opt_state), loss

    return StepSystem(HAND, lambda: (_copy(params0), optimizer.init(_copy(params0))), step,
                      lambda carry: hand.lower(*carry, x, y))


def step_systems(workload, batch=None):
    """kgraph's ``Trainer.train_step`` (on a TrainState, then a packed one) and the
    hand-written step, same weights and batch (of ``batch`` rows, default the workload's)."""
    model = workload.build_kgraph()
    params0, _ = compiler.compile(model).init(jax.random.PRNGKey(0))
    x, y = (jnp.asarray(a) for a in workload.data(batch or workload.batch, seed=1))
    return [_trainer_system(workload, model, params0, x, y),
            _trainer_system(workload, model, params0, x, y, packed=True),
            _hand_system(workload, params0, x, y)]


def first_step(systems):
    """``{name: (loss, params after the step)}`` for one step of each system from its init."""
    out = {}
    for system in systems:
        carry, loss = system.step(system.init())
        params = carry.params if hasattr(carry, "params") else carry[0]
        out[system.name] = (float(loss), jax.tree_util.tree_map(np.asarray, params))
    return out


def max_difference(a, b):
    return max(float(np.max(np.abs(u - v))) for u, v in
               zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)))


def measure_steps(workload, rounds, round_seconds, hlo, rng):
    """Equality check, then interleaved step timing: ``{KGRAPH: result, PACKED: result}``
    with ratio, interval and milliseconds (None if kgraph fails)."""
    try:
        systems = step_systems(workload)
        first = first_step(systems)
    except Exception as error:  # noqa: BLE001 - reported; the fit part still runs
        print(f"  step time: kgraph Trainer unavailable ({type(error).__name__}: {error})")
        return None
    h_loss, h_params = first[HAND]
    for name in (KGRAPH, PACKED):
        k_loss, k_params = first[name]
        same = ("OK" if abs(k_loss - h_loss) <= LOSS_TOLERANCE
                else "MISMATCH: not the same model")
        print(f"  same weights, same batch: first-step loss {name} {k_loss:.7f}, hand "
              f"{h_loss:.7f} (|diff| {abs(k_loss - h_loss):.1e}, {same}); params after it "
              f"differ by <= {max_difference(k_params, h_params):.1e}")
    for system in systems:  # warm-up: compile and a few steps
        system.carry = system.init()
        system.run(3)
    hand = next(s for s in systems if s.name == HAND)
    per_step = min(hand.run(3) for _ in range(3))
    steps = int(np.clip(round(round_seconds / per_step), 1, 500))
    samples = interleave(systems, rounds, lambda s: s.run(steps))
    h_ms = float(np.median(samples[HAND])) * 1e3
    results = {}
    for name in (KGRAPH, PACKED):
        ratio, ci = ratio_of_medians(samples[name], samples[HAND], rng)
        paired = float(np.median(np.asarray(samples[name]) / np.asarray(samples[HAND])))
        k_ms = float(np.median(samples[name])) * 1e3
        print(f"  step time ({rounds} interleaved rounds x {steps} steps): {name} "
              f"{k_ms:.3f} ms, hand-written {h_ms:.3f} ms; ratio {ratio:.3f} "
              f"[{ci[0]:.3f}, {ci[1]:.3f}] (median per-round ratio {paired:.3f})")
        results[name] = {"ratio": ratio, "ci": ci, "kgraph_ms": k_ms, "hand_ms": h_ms,
                         "loss_diff": abs(first[name][0] - h_loss)}
    if hlo:
        from hlo_compare import compare_hlo
        compare_hlo([s for s in systems if s.name != PACKED], reference=HAND)
    return results


# ------------------------------------------------------------------- fit throughput
class HandLoop:
    """A user's training loop: shuffle, slice NumPy batches, call the jitted step."""

    name = "hand loop"

    def __init__(self, workload, x, y, params):
        self.optimizer = optax.adam(LEARNING_RATE)
        self.step = make_hand_step(workload, self.optimizer)
        self.x, self.y, self.batch = x, y, workload.batch
        self.params, self.opt_state = _copy(params), self.optimizer.init(_copy(params))
        self.rng = np.random.default_rng(0)

    def epoch(self):
        params, opt_state, loss, b = self.params, self.opt_state, None, self.batch
        index = self.rng.permutation(len(self.x))
        for i in range(len(self.x) // b):
            rows = index[i * b:(i + 1) * b]
            params, opt_state, loss = self.step(params, opt_state, self.x[rows], self.y[rows])
        jax.block_until_ready((params, opt_state, loss))
        self.params, self.opt_state = params, opt_state


def _epoch_clock(callback_base):
    """A callback (of ``callback_base``, kgraph's or Keras's) timing each epoch."""
    class EpochClock(callback_base):
        def __init__(self):
            super().__init__()
            self.seconds = []

        def on_epoch_begin(self, epoch, logs=None):
            self._start = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            self.seconds.append(time.perf_counter() - self._start)

    return EpochClock()


def _second_epoch(model, callback_base, x, y, batch):
    """Seconds of the second epoch of ``model.fit(x, y, epochs=2)``."""
    clock = _epoch_clock(callback_base)
    model.fit(x, y, batch_size=batch, epochs=2, verbose=0, shuffle=True, callbacks=[clock])
    return clock.seconds[-1]


class KgraphFit:
    """kgraph ``model.compile(optax.adam, ..., steps_per_execution=k)`` + ``model.fit``."""

    def __init__(self, workload, x, y, steps_per_execution):
        self.name = "kgraph fit" + (f" spe={steps_per_execution}"
                                    if steps_per_execution > 1 else "")
        self.model = workload.build_kgraph()
        self.model.compile(optimizer=optax.adam(LEARNING_RATE), loss=workload.kgraph_loss(),
                           steps_per_execution=steps_per_execution, seed=0)
        self.x, self.y, self.batch = x, y, workload.batch

    def epoch(self):
        return _second_epoch(self.model, Callback, self.x, self.y, self.batch)


class KerasFit:
    """Keras 3 ``model.compile(keras.optimizers.Adam, ...)`` + ``model.fit`` (JAX backend)."""

    name = "Keras fit"

    def __init__(self, keras, workload, x, y):
        keras.utils.set_random_seed(0)
        self.keras = keras
        self.model = workload.build_keras(keras)
        self.model.compile(optimizer=keras.optimizers.Adam(LEARNING_RATE),
                           loss=workload.keras_loss(keras))
        self.x, self.y, self.batch = x, y, workload.batch

    def epoch(self):
        return _second_epoch(self.model, self.keras.callbacks.Callback, self.x, self.y,
                             self.batch)


def _timed_epoch(system):
    """Seconds of one epoch: what ``system.epoch()`` returns, else its wall time."""
    gc.collect()
    start = time.perf_counter()
    seconds = system.epoch()
    return time.perf_counter() - start if seconds is None else seconds


def fit_systems(workload, x, y, keras):
    """Every fit system that can be built: ``([systems], {name: reason unavailable})``."""
    params, _ = compiler.compile(workload.build_kgraph()).init(jax.random.PRNGKey(0))
    makers = [("hand loop", lambda: HandLoop(workload, x, y, params)),
              ("kgraph fit", lambda: KgraphFit(workload, x, y, 1)),
              ("kgraph fit spe=8", lambda: KgraphFit(workload, x, y, 8)),
              ("kgraph fit spe=16", lambda: KgraphFit(workload, x, y, 16))]
    if keras is not None:
        makers.append(("Keras fit", lambda: KerasFit(keras, workload, x, y)))
    systems, missing = [], {}
    for name, make in makers:
        try:
            system = make()
            start = time.perf_counter()
            system.epoch()  # compiles
            seconds = time.perf_counter() - start
        except Exception as error:  # noqa: BLE001 - reported, the others still run
            if name == "hand loop":
                raise
            missing[name] = f"{type(error).__name__}: {error}"
            print(f"  {name}: unavailable ({missing[name]})")
            continue
        print(f"  {name}: first call, compiling, {seconds:.2f} s")
        systems.append(system)
    return systems, missing


def measure_fit(workload, steps, rounds, keras, rng):
    """Interleaved timed epochs; returns ``{name: (steps/s, ratio vs hand loop, ci)}``."""
    x, y = workload.data(steps * workload.batch, seed=2)
    systems, missing = fit_systems(workload, x, y, keras)
    samples = interleave(systems, rounds, _timed_epoch)
    loop = samples["hand loop"]
    results = {}
    print(f"  fit throughput ({rounds} interleaved epochs of {steps} steps, batch "
          f"{workload.batch}):")
    for name, seconds in samples.items():
        rate = steps / float(np.median(seconds))
        speedup, ci = ratio_of_medians(loop, seconds, rng)  # loop time / system time
        results[name] = (rate, speedup, ci)
        extra = "" if name == "hand loop" else f"  x{speedup:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"
        print(f"    {name:<18}{rate:>10.1f} steps/s{extra}")
    results.update({name: None for name in missing})
    return results


# ---------------------------------------------------------------------------- report
def machine_line(keras):
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    keras_version = keras.__version__ if keras is not None else "n/a"
    return (f"{cpu}, {os.cpu_count()} cores; JAX {jax.__version__} "
            f"({jax.devices()[0].platform}), optax {optax.__version__}, Keras {keras_version}, "
            f"NumPy {np.__version__}, Python {platform.python_version()}")


def _rate(steps_per_second):
    """Three significant figures, e.g. ``11,556``, ``78.7``, ``1.85``."""
    if steps_per_second >= 100:
        return f"{steps_per_second:,.0f}"
    return f"{steps_per_second:.1f}" if steps_per_second >= 10 else f"{steps_per_second:.2f}"


def _fit_cell(result, name):
    value = result["fit"].get(name)
    if value is None:
        return "n/a"
    rate, speedup, _ = value
    return f"{_rate(rate)} ({speedup:.2f}x)"


def _step_cell(result, name):
    if result["step"] is None:
        return "n/a"
    s = result["step"][name]
    return (f"{s['ratio']:.3f} [{s['ci'][0]:.3f}, {s['ci'][1]:.3f}] "
            f"({s['kgraph_ms']:.3f} vs {s['hand_ms']:.3f} ms)")


def table(results, argv=None):
    """The results as the benchmark's table (``benchmarks.results``): step ratios with their
    95% intervals, and fit columns in steps/s with their ratio to the hand loop."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.results import Table, command

    rows = [[name, _step_cell(r, KGRAPH), _step_cell(r, PACKED), _rate(r["fit"]["hand loop"][0]),
             *(_fit_cell(r, system) for system in ("kgraph fit", "kgraph fit spe=8",
                                                   "kgraph fit spe=16", "Keras fit"))]
            for name, r in results.items()]
    return Table("runtime", command(__file__, argv),
                 ["workload", "step ratio vs hand JAX [95% CI]", "packed step ratio [95% CI]",
                  "hand loop steps/s", "kgraph fit", "kgraph fit spe=8", "kgraph fit spe=16",
                  "Keras fit"], rows, ["---"] + ["---:"] * 7,
                 against=["optax"] + (["keras"] if any(
                     r["fit"].get("Keras fit") for r in results.values()) else []))


def target_lines(results):
    """PASS/FAIL against the targets (undecided where the 95% interval spans it)."""
    def verdict(value, ci, target, higher_is_better):
        low, high = ci
        if higher_is_better:
            low, high, value, target = -high, -low, -value, -target
        if high <= target:
            return "PASS"
        if low > target:
            return "FAIL"
        return f"{'pass' if value <= target else 'fail'} (95% CI spans the target)"

    lines = []
    for name, r in results.items():
        for system in (KGRAPH, PACKED):
            if r["step"] is None:
                lines.append(f"{name}: {system} step ratio <= {TARGET_STEP_RATIO}: n/a")
                continue
            s = r["step"][system]
            lines.append(f"{name}: {system} step ratio {s['ratio']:.3f} <= "
                         f"{TARGET_STEP_RATIO}: "
                         f"{verdict(s['ratio'], s['ci'], TARGET_STEP_RATIO, False)}")
        checks = []
        if name == "tiny":
            checks += [(system, TARGET_TINY_FIT_VS_LOOP)
                       for system in ("kgraph fit", "kgraph fit spe=8", "kgraph fit spe=16")]
        elif name == "mlp":
            checks.append(("kgraph fit", TARGET_FIT_VS_LOOP))
        for system, target in checks:
            value = r["fit"].get(system)
            if value is None:
                lines.append(f"{name}: {system} >= {target}x hand loop: n/a")
                continue
            _, speedup, ci = value
            lines.append(f"{name}: {system} {speedup:.2f}x >= {target}x hand loop: "
                         f"{verdict(speedup, ci, target, True)}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="short epochs and few rounds")
    parser.add_argument("--workloads", default=",".join(WORKLOADS),
                        help=f"comma-separated subset of {','.join(WORKLOADS)}")
    parser.add_argument("--rounds", type=int, default=None,
                        help="interleaved step-time rounds (default 40; quick 6)")
    parser.add_argument("--fit-rounds", type=int, default=None,
                        help="timed fit epochs per system (default 7; quick 2)")
    parser.add_argument("--no-keras", action="store_true", help="skip the Keras columns")
    parser.add_argument("--results", action="store_true",
                        help="keep the table in benchmarks/results/runtime.json (the docs show it)")
    parser.add_argument("--hlo", action="store_true",
                        help="also compare the compiled XLA programs of the two steps")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.workloads.split(",") if n.strip()]
    unknown = sorted(set(names) - set(WORKLOADS))
    if unknown:
        parser.error(f"unknown workloads {unknown}; choose from {sorted(WORKLOADS)}")
    rounds = args.rounds or (6 if args.quick else 40)
    fit_rounds = args.fit_rounds or (2 if args.quick else 7)
    round_seconds = 0.03 if args.quick else 0.1

    keras = None if args.no_keras else load_keras()
    print(f"kgraph runtime benchmark ({'quick' if args.quick else 'full'}): "
          f"{machine_line(keras)}")
    rng = np.random.default_rng(1)
    started = time.perf_counter()
    results = {}
    for name in names:
        workload = WORKLOADS[name]
        steps = workload.quick_fit_steps if args.quick else workload.fit_steps
        print(f"\n== {name}: {workload.description}, batch {workload.batch}, Adam(1e-3)")
        step = measure_steps(workload, rounds, round_seconds, args.hlo, rng)
        fit = measure_fit(workload, steps, fit_rounds, keras, rng)
        results[name] = {"step": step, "fit": fit}
        gc.collect()

    print("\nTargets:")
    print("\n".join(f"  {line}" for line in target_lines(results)))
    print("\nTable (markdown): fit columns are steps/s (ratio to the hand loop); "
          f"measured on {machine_line(keras)}.\n")
    made = table(results, argv)
    print(made.markdown())
    if args.results:
        print(f"kept in {made.write()}")
    print(f"\nTotal benchmark time: {time.perf_counter() - started:.1f} s")
    return results


if __name__ == "__main__":
    main()
