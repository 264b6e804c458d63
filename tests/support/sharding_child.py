"""Checks on 8 simulated CPU devices, run by tests/runtime/test_sharding_mesh.py in a subprocess
(the device count is fixed when JAX starts). Prints one JSON object of measurements."""

from __future__ import annotations

import json
import os
import sys

os.environ["JAX_NUM_CPU_DEVICES"] = "8"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _model(kg):
    kg.utils.set_random_seed(0)
    x = kg.Input(shape=(16,))
    h = kg.layers.Dense(64, activation="relu", name="up")(x)
    h = kg.layers.Dense(64, activation="relu", name="mid")(h)
    return kg.Model(x, kg.layers.Dense(8, name="down")(h))


def main():
    import jax
    import jax.numpy as jnp
    import numpy as np
    import optax
    from jax.sharding import PartitionSpec as P
    from jax.sharding import SingleDeviceSharding

    import compiler
    import kgraph as kg
    from runtime import Trainer
    from runtime.sharding import ShardingRules

    out = {"devices": jax.device_count()}
    rng = np.random.default_rng(0)
    batches = [(rng.normal(size=(32, 16)).astype("f4"), rng.normal(size=(32, 8)).astype("f4"))
               for _ in range(8)]
    megatron = ShardingRules([("up/kernel", P(None, "model")), ("up/bias", P("model")),
                              ("mid/kernel", P("model", None))])
    fsdp = ShardingRules([(r".*/kernel", P("data", None))])
    layouts = {"one device": (None, None),
               "data parallel": (jax.make_mesh((8,), ("data",)), None),
               "tensor parallel": (jax.make_mesh((2, 4), ("data", "model")), megatron),
               "fully sharded": (jax.make_mesh((8,), ("data",)), fsdp)}

    def train(mesh, rules, optimizer):
        trainer = Trainer(_model(kg), optimizer, "mse", mesh=mesh, sharding=rules)
        ts = trainer.init(jax.random.PRNGKey(0))
        first = jax.tree_util.tree_map(lambda a: a.sharding, ts)
        losses = []
        for batch in batches:
            ts, logs = trainer.train_step(ts, batch)
            losses.append(float(logs["loss"]))
        same = jax.tree_util.tree_all(jax.tree_util.tree_map(
            lambda s, a: s.is_equivalent_to(a.sharding, a.ndim), first, ts))
        return trainer, ts, np.array(losses), same

    _, ref, ref_losses, _ = train(None, None, optax.sgd(0.05))
    out["sgd"] = {}
    for name, (mesh, rules) in layouts.items():
        _, ts, losses, stable = train(mesh, rules, optax.sgd(0.05))
        out["sgd"][name] = {
            "loss": float(np.abs(losses - ref_losses).max()),
            "params": max(float(jnp.abs(a - b).max()) for a, b in zip(
                jax.tree_util.tree_leaves(ts.params), jax.tree_util.tree_leaves(ref.params))),
            "stable": bool(stable),
            "specs": {k: str(getattr(v["kernel"].sharding, "spec", None))
                      for k, v in ts.params.items()}}

    # Adam, fully sharded: the moments are sharded like their weights; nothing sits on
    # one device; each device holds an eighth of the kernels and of their moments.
    trainer, ts, _, stable = train(*layouts["fully sharded"], optax.adam(1e-3))
    adam = ts.opt_state[0]
    kernels = [ts.params[n]["kernel"] for n in ("up", "mid", "down")]
    moments = [adam.mu[n]["kernel"] for n in ("up", "mid", "down")]
    out["adam"] = {
        "stable": bool(stable),
        "single_device_leaves": sum(isinstance(a.sharding, SingleDeviceSharding)
                                    for a in jax.tree_util.tree_leaves(ts)),
        "moments_like_weights": all(m.sharding == k.sharding for m, k in zip(moments, kernels)),
        "kernel_bytes_per_device": [a.addressable_shards[0].data.nbytes for a in kernels],
        "kernel_bytes": [a.nbytes for a in kernels],
        "moment_bytes_per_device": [a.addressable_shards[0].data.nbytes for a in moments],
    }
    report = trainer.placement.rules.report(ts.params, trainer.placement.mesh)

    # A packed train state on the mesh: the replicated small arrays share buffers, the
    # sharded kernels stay loose with their shardings; the same numbers as unpacked.
    trainer = Trainer(_model(kg), optax.adam(1e-3), "mse", mesh=layouts["fully sharded"][0],
                      sharding=fsdp)
    plain = trainer.init(jax.random.PRNGKey(0))
    packed = trainer.pack(jax.tree_util.tree_map(jnp.copy, plain))
    for batch in batches[:3]:
        plain, _ = trainer.train_step(plain, batch)
        packed, _ = trainer.train_step(packed, batch)
    unpacked = packed.unpack()
    out["packed"] = {
        "buffers": len(packed.buffers),
        "equal": all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(
            jax.tree_util.tree_leaves(unpacked), jax.tree_util.tree_leaves(plain))),
        "kernel_spec": str(unpacked.params["up"]["kernel"].sharding.spec),
        "buffers_replicated": all(b.sharding.is_fully_replicated for b in packed.buffers)}
    out["report"] = {"bytes_per_device": report.bytes_per_device, "total": report.total_bytes}

    # The model's own arrays survive training from them (they are copied, never donated).
    model = _model(kg)
    trainer = Trainer(model, optax.sgd(0.1), "mse", mesh=layouts["data parallel"][0])
    before = [np.asarray(a) for a in jax.tree_util.tree_leaves(compiler.variables(model))]
    ts = trainer.init_from_model(jax.random.PRNGKey(0))
    for batch in batches[:2]:
        ts, _ = trainer.train_step(ts, batch)
    after = jax.tree_util.tree_leaves(compiler.variables(model))
    out["user_arrays_intact"] = all(not a.is_deleted() and np.array_equal(np.asarray(a), b)
                                    for a, b in zip(after, before))

    # The same key gives bitwise the same initial weights on 1, 2, 4 and 8 devices.
    inits = []
    for count in (1, 2, 4, 8):
        mesh = jax.make_mesh((count,), ("data",), devices=jax.devices()[:count])
        ts = Trainer(_model(kg), optax.adam(1e-3), "mse", mesh=mesh, sharding=fsdp).init(
            jax.random.PRNGKey(3))
        inits.append([np.asarray(a) for a in jax.tree_util.tree_leaves(ts.params)])
    out["init_bitwise"] = all(all(np.array_equal(a, b) for a, b in zip(inits[0], other))
                              for other in inits[1:])

    # A batch that doesn't split over the data axis is an error that says so.
    trainer = Trainer(_model(kg), optax.sgd(0.1), "mse", mesh=layouts["data parallel"][0])
    try:
        trainer.train_step(trainer.init(jax.random.PRNGKey(0)),
                           (batches[0][0][:12], batches[0][1][:12]))
        out["indivisible"] = None
    except ValueError as error:
        out["indivisible"] = str(error)
    # Optimizers whose state is not shaped like the params, on a fully-sharded mesh.
    out["optimizers"] = {}
    for name, optimizer in [("adafactor", "adafactor"), ("sm3", optax.sm3(0.1)),
                            ("multi_transform", optax.multi_transform(
                                {"a": optax.adam(1e-3), "s": optax.sgd(0.1)},
                                lambda params: {k: jax.tree_util.tree_map(
                                    lambda _: "a" if k == "up" else "s", v)
                                    for k, v in params.items()}))]:
        trainer = Trainer(_model(kg), optimizer, "mse", mesh=layouts["fully sharded"][0],
                          sharding=fsdp)
        ts = trainer.init(jax.random.PRNGKey(0))
        ts, logs = trainer.train_step(ts, batches[0])
        out["optimizers"][name] = {
            "loss": float(logs["loss"]),
            "single_device_leaves": sum(isinstance(a.sharding, SingleDeviceSharding)
                                        for a in jax.tree_util.tree_leaves(ts))}

    # model.fit on a mesh (BatchNormalization, Dropout, shuffling, validation, k steps per
    # dispatch) against fit on one device.
    xs = rng.normal(size=(96, 16)).astype("f4")
    ys = rng.normal(size=(96, 8)).astype("f4")
    fits = {}

    class Batches:  # a re-iterable of host batches: fit's host path, one step ahead
        def __init__(self, rows):
            self.rows = rows

        def __iter__(self):
            return iter([(xs[i:i + 16], ys[i:i + 16]) for i in range(0, self.rows, 16)])

    for name, kwargs in [("one device", {}),
                         ("data parallel", dict(mesh=layouts["data parallel"][0])),
                         ("tensor parallel", dict(mesh=layouts["tensor parallel"][0],
                                                  sharding=ShardingRules([
                                                      ("up/kernel", P(None, "model")),
                                                      ("up/bias", P("model")),
                                                      ("down/kernel", P("model", None))]))),
                         ("fully sharded", dict(mesh=layouts["fully sharded"][0],
                                                sharding=fsdp, steps_per_execution=3))]:
        kg.utils.set_random_seed(0)
        x = kg.Input(shape=(16,))
        h = kg.layers.Dense(64, activation="relu", name="up")(x)
        h = kg.layers.Dropout(0.2)(kg.layers.BatchNormalization()(h))
        model = kg.Model(x, kg.layers.Dense(8, name="down")(h))
        model.compile("sgd", "mse", seed=1, **kwargs)
        predicted_first = model.predict(xs, batch_size=16, verbose=0)  # before any fit
        history = model.fit(xs, ys, batch_size=16, epochs=2, verbose=0, validation_split=0.25)
        trainer = model._training_setup.trainer
        first_traces = trainer.traces["train"]
        history = model.fit(xs, ys, batch_size=16, epochs=3, initial_epoch=2, verbose=0,
                            validation_split=0.25)  # a second fit: no new compile
        out.setdefault("traces", {})[name] = trainer.traces["train"] - first_traces
        out.setdefault("predict_placed", {})[name] = (
            model._training_setup._predictor.placement.mesh is not None, float(np.abs(
                predicted_first).sum()))
        fits[name] = (history.history, model.get_weights(),
                      model.predict(xs, batch_size=16, verbose=0))
        if name != "fully sharded":  # the same through host batches
            history = model.fit(Batches(64), epochs=1, verbose=0, validation_data=Batches(32))
            fits[name + ", batches"] = (history.history, model.get_weights(),
                                        model.predict(iter([xs[i:i + 16] for i in range(
                                            0, 96, 16)]), verbose=0))
    # A BackupAndRestore resume inside an epoch, on a mesh, ends where an uninterrupted run
    # ends.
    import tempfile

    from kgraph.callbacks import BackupAndRestore, Callback

    class Interrupt(Callback):
        def on_train_batch_end(self, batch, logs=None):
            if self.loop.global_step >= 7:
                raise KeyboardInterrupt

    def backed_up(*extra, folder):
        kg.utils.set_random_seed(0)
        x = kg.Input(shape=(16,))
        model = kg.Model(x, kg.layers.Dense(8)(kg.layers.Dense(32, activation="relu")(x)))
        model.compile("adam", "mse", seed=1, mesh=layouts["fully sharded"][0], sharding=fsdp)
        model.fit(xs, ys, batch_size=16, epochs=3, verbose=0,
                  callbacks=[BackupAndRestore(folder, save_freq=2), *extra])
        return model.get_weights()

    folder = tempfile.mkdtemp()
    expected = backed_up(folder=tempfile.mkdtemp())
    try:
        backed_up(Interrupt(), folder=folder)
    except KeyboardInterrupt:
        pass
    out["backup_resumed"] = all(np.array_equal(a, b) for a, b in zip(
        backed_up(folder=folder), expected))

    def differences(name):
        (h, w, p), (h1, w1, p1) = fits[name], fits[
            "one device, batches" if name.endswith("batches") else "one device"]
        return {"loss": max(abs(a - b) for a, b in zip(h["loss"] + h["val_loss"],
                                                       h1["loss"] + h1["val_loss"])),
                "weights": max(float(np.abs(a - b).max()) for a, b in zip(w, w1)),
                "predict": float(np.abs(p - p1).max())}

    out["fit"] = {name: differences(name) for name in fits}
    out["stacked"] = _stacked_blocks(jax, jnp, np, optax, P, kg, Trainer, ShardingRules,
                                     batches, layouts["fully sharded"][0])
    print(json.dumps(out))


def _stacked_blocks(jax, jnp, np, optax, P, kg, Trainer, ShardingRules, batches, mesh):
    """Repeated blocks kept stacked in the train state, fully sharded: each stacked kernel
    split like one block's (its block axis whole), Adam's moments alike, and the numbers
    of a one-device run of the unrolled model."""
    def model():
        kg.utils.set_random_seed(0)
        x = kg.Input(shape=(16,))
        h = x
        for i in range(4):
            h = kg.layers.Dense(16, activation="tanh", name=f"block{i}")(h)
        return kg.Model(x, kg.layers.Dense(8, name="head")(h))

    rules = ShardingRules([(r".*/kernel", P("data", None))])
    sharded = Trainer(model(), optax.adam(1e-2), "mse", mesh=mesh, sharding=rules,
                      stack_blocks=True)
    reference = Trainer(model(), optax.adam(1e-2), "mse", scan_blocks=False)
    ts, ref = sharded.init(jax.random.PRNGKey(0)), reference.init(jax.random.PRNGKey(0))
    for batch in batches[:4]:
        ts, logs = sharded.train_step(ts, batch)
        ref, ref_logs = reference.train_step(ref, batch)
    stacked = ts.params["block0..block3"]["kernel"]
    unstacked = sharded.program.unstack(ts.params, ts.state)[0]
    try:  # blocks split differently cannot share one stacked leaf
        Trainer(model(), "sgd", "mse", mesh=mesh, sharding=ShardingRules(
            [("block2/kernel", P(None, "data"))])).init(jax.random.PRNGKey(0))
        odd = None
    except ValueError as error:
        odd = str(error)
    return {"spec": str(stacked.sharding.spec), "shape": list(stacked.shape),
            "moment_spec": str(ts.opt_state[0].mu["block0..block3"]["kernel"].sharding.spec),
            "loss": abs(float(logs["loss"]) - float(ref_logs["loss"])),
            "params": max(float(jnp.abs(unstacked[name]["kernel"] - ref.params[name]["kernel"])
                                .max()) for name in ref.params),
            "odd_rules": odd}


if __name__ == "__main__":
    main()
