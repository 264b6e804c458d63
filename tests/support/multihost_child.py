"""One process of a multi-host run, for tests/runtime/test_multihost.py.

``python tests/support/multihost_child.py PORT PROCESS_ID PROCESSES OUT``: 4 CPU devices per
process joined by ``jax.distributed.initialize`` (gloo collectives on CPU) into one mesh;
each process holds its own half of the data and trains data-parallel with model.fit
(global batch 16), then evaluates and predicts its rows. With PROCESSES=1 it is the
reference: one process of 8 devices given the same global batches. Process 0 (or the
reference) writes OUT (JSON).
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def main(port, process_id, processes, out):
    os.environ["JAX_NUM_CPU_DEVICES"] = str(8 // processes)
    import jax

    if processes > 1:
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}",
                                   num_processes=processes, process_id=process_id)
    import numpy as np

    import kgraph as kg

    rng = np.random.default_rng(0)
    xs = rng.normal(size=(2, 48, 6)).astype("float32")  # each process's rows
    ys = (xs.sum(-1, keepdims=True) + rng.normal(size=(2, 48, 1))).astype("float32")
    if processes > 1:
        x, y = xs[process_id], ys[process_id]
    else:  # global batch i = process 0's batch i, then process 1's
        x = np.concatenate([xs[:, i:i + 8].reshape(16, 6) for i in range(0, 48, 8)])
        y = np.concatenate([ys[:, i:i + 8].reshape(16, 1) for i in range(0, 48, 8)])
    kg.utils.set_random_seed(0)
    inputs = kg.Input(shape=(6,))
    model = kg.Model(inputs, kg.layers.Dense(1)(kg.layers.Dense(16, activation="relu")(
        inputs)))
    model.compile("sgd", "mse", seed=1, mesh=jax.make_mesh((8,), ("data",)))
    history = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)
    loss = model.evaluate(x, y, batch_size=16, verbose=0)
    predictions = model.predict(x, batch_size=16, verbose=0)
    weights = [np.asarray(w).tolist() for w in model.get_weights()]

    # Fully sharded: kernels split over all 8 devices of both processes; after fit the
    # model holds them whole on every process (saved, called, read).
    from jax.sharding import PartitionSpec as P

    from runtime.sharding import ShardingRules

    kg.utils.set_random_seed(0)
    inputs = kg.Input(shape=(6,))
    sharded = kg.Model(inputs, kg.layers.Dense(1)(kg.layers.Dense(16, activation="relu")(
        inputs)))
    sharded.compile("sgd", "mse", seed=1, mesh=jax.make_mesh((8,), ("data",)),
                    sharding=ShardingRules([("dense_1/kernel", P(None, "data"))]))  # (6, 16)
    sharded.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    if process_id == 0:
        with open(out, "w") as f:
            json.dump({"processes": jax.process_count(), "devices": jax.device_count(),
                       "history": history.history, "evaluate": loss, "weights": weights,
                       "predictions": np.asarray(predictions).tolist(),
                       "sharded_weights": [np.asarray(w).tolist()
                                           for w in sharded.get_weights()]}, f)


if __name__ == "__main__":
    port, process_id, processes, out = sys.argv[1:]
    main(int(port), int(process_id), int(processes), out)
