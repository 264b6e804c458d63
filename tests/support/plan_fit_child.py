"""The planned step is the step ``fit`` runs: on 8 simulated CPU devices, run by
tests/planning/test_plan_is_fit.py in a subprocess (the device count is fixed when JAX
starts). ``fit`` trains a model compiled on a mesh; every call it makes to the step is
recorded; ``runtime.planning.plan`` on the same mesh, rules and batch shape must lower the
same module from shapes alone. Prints one JSON object."""

from __future__ import annotations

import json
import os
import sys

os.environ["JAX_NUM_CPU_DEVICES"] = "8"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import kgraph as kg  # noqa: E402
from runtime import ShardingRules  # noqa: E402
from runtime.planning import plan  # noqa: E402


def _model():
    x = kg.Input((16,), name="x")
    h = x
    for i in range(3):  # a run of repeated blocks: scanned, its weights stacked
        h = kg.layers.Dense(32, activation="relu", name=f"block_{i}")(h)
    model = kg.Model(x, kg.layers.Dense(8, name="head")(h))
    return model


def main():
    mesh = jax.make_mesh((4, 2), ("fsdp", "model"))
    rules = ShardingRules([(r"block_\d/kernel", P("fsdp", "model")),
                           (r"head/kernel", P(None, "model"))],
                          split_activations=True)  # as the presets: activations split
    model = _model()
    model.compile(optimizer="adamw", loss="mse", metrics=["mae"], mesh=mesh, sharding=rules,
                  remat="dots_saveable")
    trainer = model._training_setup.trainer_for(model)
    calls = []
    step = trainer.fit_batches

    def recording(packed, block):
        calls.append((packed, block))
        return step(packed, block)

    trainer.fit_batches = recording
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(64, 16)).astype("float32"), rng.normal(size=(64, 8)).astype("float32")
    # batches streamed from the host (as a large dataset's are): fit's step on a batch
    model.fit(((x[i:i + 32], y[i:i + 32]) for i in (0, 32)), steps_per_epoch=2, epochs=1,
              verbose=0)
    packed, block = calls[0]
    fit_text = step.lower(packed, block).as_text()

    planned = plan(model, topology=mesh, mesh={"fsdp": 4, "model": 2}, sharding=rules,
                   batch=((32, 16), (32, 8)), hlo=True)
    plan_text = planned.module
    print(json.dumps({"calls": len(calls), "same_module": fit_text == plan_text,
                      "fit_lines": len(fit_text.splitlines()),
                      "plan_lines": len(plan_text.splitlines()), "fits": planned.fits,
                      "diff": [(a, b) for a, b in zip(fit_text.splitlines(),
                                                      plan_text.splitlines()) if a != b][:5]}))


if __name__ == "__main__":
    main()
