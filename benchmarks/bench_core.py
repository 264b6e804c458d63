"""Core kgraph benchmarks: graph construction, ordering/compile, and the jitted train step.

    python benchmarks/bench_core.py            # full run (a few minutes)
    python benchmarks/bench_core.py --quick    # smaller, faster run

Prints, in one run:

1. graph construction time per layer call (only the calls are timed; layers are created
   beforehand) for 1,000- and 10,000-layer chains of ``Dense(8)`` and a ladder of 60 diamonds
   (``x -> Dense a, Dense b -> Add``);
2. the time of ``kg.Model(x, y)`` (discovers and orders the graph), of
   ``kgraph.interpreter.walk.topological_order`` alone, and of ``compiler.compile(model)``, with
   ``len(program.nodes)``;
3. the jitted train step (784-512-512-10 ReLU MLP, batch 128, Adam(1e-3), softmax
   cross-entropy on integer labels) of kgraph vs the same model hand-written in JAX + optax:
   same initial weights, a loss/params equality check, interleaved timing rounds (medians,
   ratio of medians), and a comparison of the compiled XLA programs (instruction histograms,
   cost-analysis flops/bytes).

The kgraph side is measured twice: through ``runtime.Trainer.train_step`` and through a
step written directly over ``program.apply``. The XLA program comparison lives in
``hlo_compare.py``. Everything ends with a markdown table (kept for the docs with ``--results``).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
for _path in (_ROOT, _HERE):  # runnable as a script from anywhere
    if _path not in sys.path:
        sys.path.insert(0, _path)

import compiler  # noqa: E402
import kgraph as kg  # noqa: E402
from hlo_compare import compare_hlo  # noqa: E402
from kgraph.interpreter import walk as kg_graph  # noqa: E402
from runtime import Trainer, losses as rt_losses  # noqa: E402

TARGET_MS_PER_CALL = 0.3
TARGET_ORDER_S_10K = 1.0
TARGET_RATIO = 1.02


# --------------------------------------------------------------------------- helpers
def _fmt_ms(seconds):
    return f"{seconds * 1e3:.3f}"


def _verdict(ok):
    return "PASS" if ok else "FAIL"


def _timed(fn):
    gc.collect()
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _median(xs):
    return statistics.median(xs)


def _header(title):
    print()
    print("=" * 100)
    print(title)
    print("=" * 100)


# ------------------------------------------------------------- 1 & 2: graph benchmarks
def _build_chain(n):
    """A chain of n Dense(8) layers; returns (x, y, seconds_for_calls, seconds_for_ctors)."""
    kg.reset_names()
    x = kg.Input(shape=(8,))
    gc.collect()
    t0 = time.perf_counter()
    layers = [kg.layers.Dense(8) for _ in range(n)]
    t1 = time.perf_counter()
    h = x
    for layer in layers:
        h = layer(h)
    t2 = time.perf_counter()
    return x, h, n, t2 - t1, t1 - t0


def _build_ladder(n_diamonds):
    """x -> (Dense a, Dense b) -> Add, repeated; 3 layer calls per diamond."""
    kg.reset_names()
    x = kg.Input(shape=(8,))
    gc.collect()
    t0 = time.perf_counter()
    layers = [(kg.layers.Dense(8), kg.layers.Dense(8), kg.layers.Add())
              for _ in range(n_diamonds)]
    t1 = time.perf_counter()
    h = x
    for a, b, add in layers:
        h = add([a(h), b(h)])
    t2 = time.perf_counter()
    return x, h, 3 * n_diamonds, t2 - t1, t1 - t0


def bench_graph(name, builder, size, reps):
    calls_ms, ctor_ms, model_s, order_s, compile_s = [], [], [], [], []
    n_nodes = None
    for _ in range(reps):
        x, y, n_calls, t_calls, t_ctor = builder(size)
        calls_ms.append(t_calls / n_calls * 1e3)
        ctor_ms.append(t_ctor / n_calls * 1e3)
        t_model, model = _timed(lambda: kg.Model(x, y))
        t_order, order = _timed(lambda: kg_graph.topological_order(model.inputs, model.outputs))
        t_comp, program = _timed(lambda: compiler.compile(model))
        assert len(order) == len(program.nodes)
        n_nodes = len(program.nodes)
        model_s.append(t_model)
        order_s.append(t_order)
        compile_s.append(t_comp)
        del x, y, model, order, program
    return {
        "name": name, "calls": n_calls, "reps": reps,
        "call_ms": _median(calls_ms), "call_ms_min": min(calls_ms),
        "ctor_ms": _median(ctor_ms),
        "model_s": _median(model_s), "order_s": _median(order_s),
        "compile_s": _median(compile_s), "nodes": n_nodes,
    }


def run_graph_benchmarks(quick):
    reps = {"1k": 3, "10k": 1, "ladder": 5} if quick else {"1k": 7, "10k": 3, "ladder": 15}
    results = [
        bench_graph("chain 1,000 x Dense(8)", _build_chain, 1000, reps["1k"]),
        bench_graph("chain 10,000 x Dense(8)", _build_chain, 10000, reps["10k"]),
        bench_graph("ladder of 60 diamonds", _build_ladder, 60, reps["ladder"]),
    ]

    _header(f"1. Graph construction: time per layer call (calls only; median over reps)   "
            f"target <= {TARGET_MS_PER_CALL} ms/call")
    print(f"{'graph':<26}{'calls':>8}{'reps':>6}{'ms/call':>10}{'min':>9}"
          f"{'(ctor ms/layer)':>17}   target")
    for r in results:
        ok = r["call_ms"] <= TARGET_MS_PER_CALL
        print(f"{r['name']:<26}{r['calls']:>8}{r['reps']:>6}{r['call_ms']:>10.4f}"
              f"{r['call_ms_min']:>9.4f}{r['ctor_ms']:>17.4f}   <= {TARGET_MS_PER_CALL} "
              f"{_verdict(ok)}")
    print("(ctor = Layer constructor time per layer, not included in ms/call)")

    _header(f"2. Ordering and compile (median over reps)   target: 10,000-layer chain ordered "
            f"in < {TARGET_ORDER_S_10K} s")
    print(f"{'graph':<26}{'kg.Model s':>12}{'topo_order s':>14}{'compile s':>12}"
          f"{'Model+compile s':>17}{'nodes':>8}   target")
    for r in results:
        total = r["model_s"] + r["compile_s"]
        target = ""
        if "10,000" in r["name"]:
            target = f"< {TARGET_ORDER_S_10K} s {_verdict(total < TARGET_ORDER_S_10K)}"
        print(f"{r['name']:<26}{r['model_s']:>12.4f}{r['order_s']:>14.4f}{r['compile_s']:>12.4f}"
              f"{total:>17.4f}{r['nodes']:>8}   {target}")
    print("(kg.Model = Functional construction incl. topological_order; topo_order = "
          "kgraph.interpreter.walk.topological_order alone)")
    return results


# ------------------------------------------------------------------ 3: train step
BATCH, IN, HID, OUT = 128, 784, 512, 10


def build_mlp(n_in=IN, hid=HID, out=OUT):
    kg.reset_names()
    x = kg.Input(shape=(n_in,), name="pixels")
    h = kg.layers.Dense(hid, activation="relu", name="dense_1")(x)
    h = kg.layers.Dense(hid, activation="relu", name="dense_2")(h)
    y = kg.layers.Dense(out, name="logits")(h)
    return kg.Model(x, y)


def setup_systems(n_in=IN, hid=HID, out=OUT, batch=BATCH):
    """The model, shared initial weights, one fixed batch, and every train-step System."""
    tx = optax.adam(1e-3)
    model = build_mlp(n_in, hid, out)
    program = compiler.compile(model)
    params0, state0 = program.init(jax.random.PRNGKey(0))
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((batch, n_in), dtype=np.float32))
    y = jnp.asarray(rng.integers(0, out, size=(batch,), dtype=np.int32))
    return make_systems(model, program, params0, state0, (x, y), tx)


def run_overhead_benchmark(quick):
    """Per-step fixed cost on a tiny MLP, where dispatch and bookkeeping dominate the math."""
    n_in, hid, out, batch = 4, 4, 3, 8
    rounds, steps = (10, 100) if quick else (30, 200)
    systems = setup_systems(n_in, hid, out, batch)
    time_systems(systems, rounds, steps)
    hand = next(s for s in systems if s.name == "hand-written JAX")
    hand_med = float(np.median(hand.times))
    print(f"\n3b. Fixed per-step cost: tiny {n_in}-{hid}-{hid}-{out} MLP, batch {batch} (dispatch-"
          f"bound; {rounds} interleaved rounds x {steps} steps)")
    print(f"{'system':<24}{'median us/step':>16}{'min us/step':>13}{'extra vs hand (median)':>25}")
    for sysm in systems:
        med = float(np.median(sysm.times))
        print(f"{sysm.name:<24}{med * 1e6:>16.1f}{min(sysm.times) * 1e6:>13.1f}"
              f"{(med - hand_med) * 1e6:>+22.1f} us")
    return {s.name: float(np.median(s.times)) - hand_med for s in systems}


def make_raw_kgraph_step(program, tx):
    """A train step written directly over ``program.apply`` (no runtime)."""

    def loss_fn(params, state, x, y):
        logits, new_state = program.apply(params, state, x, training=True)
        loss = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        return loss, new_state

    def step(params, state, opt_state, x, y):
        (loss, state), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, state, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        return params, state, opt_state, loss

    return jax.jit(step, donate_argnums=(0, 1, 2))


def hand_forward(p, x):
    h = jax.nn.relu(x @ p["l1"]["w"] + p["l1"]["b"])
    h = jax.nn.relu(h @ p["l2"]["w"] + p["l2"]["b"])
    return h @ p["l3"]["w"] + p["l3"]["b"]


def make_hand_step(tx):
    def loss_fn(p, x, y):
        return optax.softmax_cross_entropy_with_integer_labels(hand_forward(p, x), y).mean()

    def step(p, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(p, x, y)
        updates, opt_state = tx.update(grads, opt_state, p)
        return optax.apply_updates(p, updates), opt_state, loss

    return jax.jit(step, donate_argnums=(0, 1))


def kg_to_hand(params):
    return {"l1": {"w": params["dense_1"]["kernel"], "b": params["dense_1"]["bias"]},
            "l2": {"w": params["dense_2"]["kernel"], "b": params["dense_2"]["bias"]},
            "l3": {"w": params["logits"]["kernel"], "b": params["logits"]["bias"]}}


def _copy(tree):
    return jax.tree_util.tree_map(lambda a: jnp.array(a, copy=True), tree)


class System:
    """One train-step implementation: init a carry from shared weights, step it, block."""

    def __init__(self, name, init, step, loss_of, params_of, lower):
        self.name, self.init, self.step = name, init, step
        self.loss_of, self.params_of, self.lower = loss_of, params_of, lower
        self.times = []

    def run(self, carry, n):
        out = None
        for _ in range(n):
            carry, out = self.step(carry)
        jax.block_until_ready((carry, out))
        return carry, out


def _trainer_system(model, params0, x, y):
    """``Trainer.train_step`` with the same loss as the hand-written step (softmax CE on logits)."""
    trainer = Trainer(model, optax.adam(1e-3),
                      rt_losses.SparseCategoricalCrossentropy(from_logits=True))
    template = trainer.init(jax.random.PRNGKey(0))
    if jax.tree_util.tree_structure(template.params) != jax.tree_util.tree_structure(params0):
        raise ValueError("Trainer params pytree differs from program.init's: "
                         f"{jax.tree_util.tree_structure(template.params)}")

    def t_init():  # the Trainer's own opt_state/step/key, the shared initial weights
        ts = trainer.init(jax.random.PRNGKey(0))
        return ts._replace(params=_copy(params0))

    def t_step(ts):
        ts, logs = trainer.train_step(ts, (x, y))
        return ts, logs["loss"]

    return System("kgraph Trainer", t_init, t_step, lambda out: out, lambda ts: ts.params,
                  lambda ts: trainer.train_step.lower(ts, (x, y)))


def make_systems(model, program, params0, state0, batch, tx):
    x, y = batch

    # (a) kgraph via runtime.Trainer ---------------------------------------------------
    systems = [_trainer_system(model, params0, x, y)]

    # (b) kgraph via program.apply (raw) -------------------------------------------------
    raw = make_raw_kgraph_step(program, tx)
    opt0 = tx.init(params0)

    def r_init():
        return (_copy(params0), _copy(state0), _copy(opt0))

    def r_step(c):
        p, s, o, loss = raw(*c, x, y)
        return (p, s, o), loss

    systems.append(System("kgraph program.apply", r_init, r_step, lambda out: out,
                          lambda c: c[0], lambda c: raw.lower(*c, x, y)))

    # (c) hand-written JAX + optax --------------------------------------------------------
    hand = make_hand_step(tx)
    hp0 = kg_to_hand(params0)
    hopt0 = tx.init(hp0)

    def h_init():
        return (_copy(hp0), _copy(hopt0))

    def h_step(c):
        p, o, loss = hand(*c, x, y)
        return (p, o), loss

    systems.append(System("hand-written JAX", h_init, h_step, lambda out: out,
                          lambda c: kg_to_hand_inverse(c[0]), lambda c: hand.lower(*c, x, y)))
    return systems


def kg_to_hand_inverse(hp):
    return {"dense_1": {"kernel": hp["l1"]["w"], "bias": hp["l1"]["b"]},
            "dense_2": {"kernel": hp["l2"]["w"], "bias": hp["l2"]["b"]},
            "logits": {"kernel": hp["l3"]["w"], "bias": hp["l3"]["b"]}}


def check_equal(systems, n_steps=5):
    print(f"\nEquality check: same initial weights, same batch, {n_steps} steps each "
          "(reference: hand-written JAX)")
    rows, ref = [], None
    for sysm in systems:
        carry = sysm.init()
        losses = []
        for _ in range(n_steps):
            carry, out = sysm.step(carry)
            losses.append(float(sysm.loss_of(out)))
        params = jax.tree_util.tree_map(np.asarray, sysm.params_of(carry))
        rows.append((sysm, losses, params))
        if sysm.name == "hand-written JAX":
            ref = (losses, params)
    ok_all = True
    for sysm, losses, params in rows:
        dl = max(abs(a - b) for a, b in zip(losses, ref[0]))
        dp = max(jax.tree_util.tree_leaves(jax.tree_util.tree_map(
            lambda a, b: float(np.max(np.abs(a - b))), params, ref[1])))
        ok = dl < 1e-4 and dp < 1e-4
        ok_all &= ok
        verdict = "OK" if ok else "MISMATCH"
        sysm.equal = ok
        print(f"  {sysm.name:<22} losses {' '.join(f'{v:.6f}' for v in losses)}"
              f"   max|dloss| {dl:.2e}  max|dparams| {dp:.2e}  {verdict}")
    return ok_all


def time_systems(systems, rounds, steps):
    carries = {}
    for sysm in systems:  # warm-up: compile + a few steps
        carry = sysm.init()
        carry, _ = sysm.run(carry, 3)
        carries[sysm.name] = carry
        sysm.times = []
    n = len(systems)
    for r in range(rounds):
        # rotate the order every round so that no system always goes first
        order = systems[r % n:] + systems[:r % n]
        if (r // n) % 2:
            order = order[::-1]
        for sysm in order:
            carry = carries[sysm.name]
            t0 = time.perf_counter()
            carry, _ = sysm.run(carry, steps)
            sysm.times.append((time.perf_counter() - t0) / steps)
            carries[sysm.name] = carry


def run_train_benchmark(quick, rounds, steps, dump_dir=None):
    _header(f"3. Jitted train step: {IN}-{HID}-{HID}-{OUT} ReLU MLP, batch {BATCH}, Adam(1e-3), "
            f"softmax CE (integer labels)   target ratio <= {TARGET_RATIO}")
    systems = setup_systems()
    equal = check_equal(systems)

    print(f"\nTiming: warm-up, then {rounds} rounds x {steps} steps per system, order rotated/"
          "reversed each round, block_until_ready after each block")
    t0 = time.perf_counter()
    time_systems(systems, rounds, steps)
    print(f"(timing took {time.perf_counter() - t0:.1f} s)")
    hand = next(s for s in systems if s.name == "hand-written JAX")
    hand_t = np.asarray(hand.times)
    hand_med = float(np.median(hand_t))
    boot = np.random.default_rng(1)
    ratios = {}
    for sysm in systems:  # ratio of medians, with a 95% CI from resampling rounds in pairs
        t = np.asarray(sysm.times)
        ratios[sysm.name] = float(np.median(t)) / hand_med
        idx = boot.integers(0, len(t), size=(2000, len(t)))
        dist = np.median(t[idx], axis=1) / np.median(hand_t[idx], axis=1)
        sysm.ci = tuple(np.percentile(dist, [2.5, 97.5]))
        pdist = np.median((t / hand_t)[idx], axis=1)
        sysm.paired = float(np.median(t / hand_t))
        sysm.paired_ci = tuple(np.percentile(pdist, [2.5, 97.5]))
    ratios.pop(hand.name)

    print(f"\n{'system':<24}{'median ms/step':>15}{'min':>8}{'p25':>8}{'p75':>8}"
          f"{'ratio of medians':>17}{'95% CI':>17}   target {TARGET_RATIO}")
    for sysm in systems:
        t = np.asarray(sysm.times)
        q = np.percentile(t, [25, 75])
        target = ""
        if sysm is not hand:
            ratio, (lo, hi) = ratios[sysm.name], sysm.ci
            if hi <= TARGET_RATIO:
                target = "PASS"
            elif lo > TARGET_RATIO:
                target = "FAIL"
            else:
                target = (f"{'pass' if ratio <= TARGET_RATIO else 'fail'} (CI spans the target: "
                          "not resolved at this noise level)")
        ci = f"[{sysm.ci[0]:.3f}, {sysm.ci[1]:.3f}]" if sysm is not hand else ""
        print(f"{sysm.name:<24}{np.median(t) * 1e3:>15.3f}{t.min() * 1e3:>8.3f}"
              f"{q[0] * 1e3:>8.3f}{q[1] * 1e3:>8.3f}"
              f"{ratios.get(sysm.name, 1.0):>17.3f}{ci:>17}   {target}")
    print("\nOther views of the same samples (less sensitive to load changes between rounds):")
    print(f"{'system':<24}{'median of per-round ratios':>28}{'95% CI':>18}{'ratio of mins':>15}")
    for sysm in systems:
        if sysm is hand:
            continue
        t = np.asarray(sysm.times)
        print(f"{sysm.name:<24}{sysm.paired:>28.3f}"
              f"{f'[{sysm.paired_ci[0]:.3f}, {sysm.paired_ci[1]:.3f}]':>18}"
              f"{t.min() / hand_t.min():>15.3f}")
    control = next((s for s in systems if s.name == "kgraph program.apply"), None)
    if control is not None:
        print(f"Noise floor: 'kgraph program.apply' compiles to the same XLA program as the "
              f"hand-written step (see 3c),\nso its ratio of medians {ratios[control.name]:.3f} "
              f"(95% CI [{control.ci[0]:.3f}, {control.ci[1]:.3f}]) and per-round ratio "
              f"{control.paired:.3f} show this run's measurement resolution.")

    overhead = run_overhead_benchmark(quick)

    _header("3c. XLA program comparison (optimized HLO after XLA passes; StableHLO before)")
    info, same = compare_hlo(systems)
    if dump_dir:
        os.makedirs(dump_dir, exist_ok=True)
        for name, d in info.items():
            stem = name.replace(" ", "_").replace(".", "_")
            with open(os.path.join(dump_dir, f"{stem}.hlo.txt"), "w") as f:
                f.write(d["text"])
            with open(os.path.join(dump_dir, f"{stem}.stablehlo.mlir"), "w") as f:
                f.write(d["mlir_text"])
        print(f"(HLO dumped to {dump_dir})")
    return {"systems": systems, "hand_med": hand_med, "ratios": ratios, "equal": equal,
            "same_hlo": same, "overhead": overhead}


# --------------------------------------------------------------------------- summary
def core_table(graph_results, train, argv=None):
    """The benchmark's table (``benchmarks.results``): graph construction, model + compile,
    and the train step against the hand-written reference."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.results import Table, command

    rows = []
    for r in graph_results:
        ok = "✅" if r["call_ms"] <= TARGET_MS_PER_CALL else "❌"
        rows.append([f"graph construction, {r['name']}", f"{r['call_ms']:.3f} ms / layer call",
                     f"<= {TARGET_MS_PER_CALL} ms {ok}"])
    for r in graph_results:
        total = r["model_s"] + r["compile_s"]
        target = "-"
        if "10,000" in r["name"]:
            target = f"< {TARGET_ORDER_S_10K} s {'✅' if total < TARGET_ORDER_S_10K else '❌'}"
        rows.append([f"`kg.Model` + `compiler.compile`, {r['name']} ({r['nodes']} nodes)",
                     f"{r['model_s']:.3f} s + {r['compile_s']:.3f} s = {total:.3f} s", target])
    for sysm in train["systems"]:
        med = _median(sysm.times) * 1e3
        if sysm.name == "hand-written JAX":
            rows.append([f"train step, MLP {IN}-{HID}-{HID}-{OUT}, batch {BATCH}, {sysm.name} "
                         "(JAX + optax)", f"{med:.3f} ms", "reference"])
        else:
            ratio = train["ratios"][sysm.name]
            same = "same XLA program" if train["same_hlo"].get(sysm.name) else "XLA program differs"
            lo, hi = sysm.ci
            rows.append([f"train step, same MLP, {sysm.name}",
                         f"{med:.3f} ms (ratio {ratio:.3f}, 95% CI [{lo:.3f}, {hi:.3f}]; "
                         f"per-round ratio {sysm.paired:.3f}; {same})",
                         f"<= {TARGET_RATIO} {'✅' if ratio <= TARGET_RATIO else '❌'}"])
    overhead = train.get("overhead") or {}
    if overhead:
        rows.append(["fixed per-step cost vs hand-written (tiny 4-4-4-3 MLP, dispatch-bound)",
                     "; ".join(f"{name}: {extra * 1e6:+.1f} us" for name, extra in
                               overhead.items() if name != "hand-written JAX"), "-"])
    return Table("core", command(__file__, argv, options=("--dump-hlo",)),
                 ["benchmark", "result", "target"], rows, against=["optax"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and rounds")
    parser.add_argument("--rounds", type=int, default=None, help="timing rounds (default 120; quick 20)")
    parser.add_argument("--steps", type=int, default=None, help="steps per round (default 8; quick 5)")
    parser.add_argument("--skip-graph", action="store_true", help="only the train-step part")
    parser.add_argument("--dump-hlo", default=None, metavar="DIR",
                        help="write each system's compiled HLO and StableHLO to DIR")
    parser.add_argument("--results", action="store_true",
                        help="keep the table in benchmarks/results/core.json (the docs show it)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (20 if args.quick else 120)
    steps = args.steps or (5 if args.quick else 8)

    print(f"kgraph core benchmark ({'quick' if args.quick else 'full'}): JAX {jax.__version__} "
          f"on {jax.devices()[0].platform} ({os.cpu_count()} cores), optax {optax.__version__}, "
          f"Python {platform.python_version()}")
    t_start = time.perf_counter()
    graph_results = [] if args.skip_graph else run_graph_benchmarks(args.quick)
    train = run_train_benchmark(args.quick, rounds, steps, args.dump_hlo)
    if graph_results:
        made = core_table(graph_results, train, argv)
        _header("Table (markdown)")
        print(made.markdown())
        if args.results:
            print(f"kept in {made.write()}")
    print(f"\nTotal benchmark time: {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":
    main()
