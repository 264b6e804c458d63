"""Programs the checkpoint tests run in subprocesses, and kill.

``python tests/support/checkpoint_child.py fit OUT BACKUP SAVE_FREQ SPE KILL_AT ASYNC``
  trains a small model (Dense, BatchNormalization, Dropout; Adam; shuffled; validation;
  EarlyStopping and ModelCheckpoint(save_best_only)) with ``BackupAndRestore(BACKUP)``,
  SIGKILLing itself after global step KILL_AT (-1: never), backups written in the
  background if ASYNC is 1; at the end writes the
  weights, the optimizer state and the history to OUT (.npz).
``python tests/support/checkpoint_child.py crash DIRECTORY FUNCTION N WHEN KEEP``
  saves checkpoints 1, 2, 3 ... in the background (every array of checkpoint s filled
  with s), printing
  ``done s`` once s is written, and SIGKILLs itself at the N-th call of FUNCTION
  (os.rename, os.replace, os.unlink, os.remove, shutil.rmtree) made from the third save
  on, just before the call (WHEN=before) or just after it (after); FUNCTION=timer
  kills it N milliseconds after the third save starts. KEEP checkpoints are kept.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _die():
    os.kill(os.getpid(), signal.SIGKILL)


def fit_main(out, backup, save_freq, spe, kill_at, async_save):
    import jax
    import numpy as np

    import kgraph as kg
    from kgraph.callbacks import (BackupAndRestore, Callback, EarlyStopping,
                                   ModelCheckpoint)
    from runtime.training_setup import TrainingSetup

    trained = []  # the global step after each batch this process trains

    class Kill(Callback):
        def on_train_batch_end(self, batch, logs=None):
            trained.append(self.loop.global_step)
            if 0 <= kill_at <= self.loop.global_step:
                _die()

    kg.utils.set_random_seed(7)
    x = kg.Input(shape=(6,))
    h = kg.layers.Dense(16, activation="relu")(x)
    h = kg.layers.BatchNormalization()(h)
    h = kg.layers.Dropout(0.3)(h)
    model = kg.Model(x, kg.layers.Dense(1)(h))
    model.compile("adam", "mse", steps_per_execution=spe, seed=3)
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(100, 6)).astype("float32")
    ys = (xs[:, :1] * 2 + rng.normal(size=(100, 1))).astype("float32")
    best = os.path.join(os.path.dirname(out), "best.weights.h5")
    history = model.fit(xs, ys, batch_size=10, epochs=4, verbose=0, validation_split=0.2,
                        callbacks=[Kill(), EarlyStopping(patience=10),
                                   ModelCheckpoint(best, save_best_only=True,
                                                   save_weights_only=True),
                                   BackupAndRestore(backup, save_freq=save_freq,
                                                    async_save=async_save)])
    opt_state = jax.tree_util.tree_leaves(TrainingSetup.of(model).opt_state)
    arrays = {f"w{i}": np.asarray(w) for i, w in enumerate(model.get_weights())}
    arrays.update({f"o{i}": np.asarray(a) for i, a in enumerate(opt_state)})
    np.savez(out, history=json.dumps(history.history), trained=np.array(trained), **arrays)


def crash_main(directory, function, n, when, keep):
    import jax
    import jax.numpy as jnp

    from runtime import TrainState
    from runtime.checkpoints import CheckpointManager

    armed = threading.Event()
    calls = [0]
    if function == "timer":
        threading.Thread(target=lambda: (armed.wait(), threading.Event().wait(n / 1000),
                                         _die()), daemon=True).start()
    else:
        module = shutil if function == "rmtree" else os
        real = getattr(module, function)

        def wrapped(*args, **kwargs):
            if armed.is_set():
                calls[0] += 1
                if calls[0] == n and when == "before":
                    _die()
            result = real(*args, **kwargs)
            if armed.is_set() and calls[0] == n and when == "after":
                _die()
            return result

        setattr(module, function, wrapped)
    checkpoints = CheckpointManager(directory, max_to_keep=keep, async_save=True)
    for step in range(1, 50):
        if step == 3:
            armed.set()
        value = jnp.full((256, 256), step, jnp.float32)
        state = TrainState({"dense": {"kernel": value}}, {}, (value,), jnp.int32(step),
                           jax.random.PRNGKey(step))
        checkpoints.save(step, state, loop_state={"step": step})
        checkpoints.wait_until_finished()
        print(f"done {step}", flush=True)
    print("not killed", flush=True)


if __name__ == "__main__":
    mode, *rest = sys.argv[1:]
    if mode == "fit":
        out, backup, save_freq, spe, kill_at, async_save = rest
        fit_main(out, backup, save_freq if save_freq == "epoch" else int(save_freq),
                 int(spe), int(kill_at), async_save == "1")
    else:
        directory, function, n, when, keep = rest
        crash_main(directory, function, int(n), when, int(keep))
