"""Keras-style ``compile`` / ``fit`` / ``evaluate`` / ``predict``: thin shells over Trainer.

The model keeps its weights in its layers (so eager calls and ``compiler.variables`` see
the trained values after ``fit``); the optimizer state lives in the model's Trainer and
carries over between ``fit`` calls, as in Keras.
"""

from __future__ import annotations

import math
import time

import jax
import numpy as np

import compiler
from runtime import data, losses, metrics as metrics_lib, optimizers
from runtime.history import History
from runtime.trainer import Trainer


def compile_model(model, optimizer="adam", loss=None, metrics=(), seed=None):
    """Configure training (see ``Model.compile``); names are checked now, as in Keras.

    The Trainer is made on first use, once the model is built (a subclassed model builds
    on its first batch).
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    if loss is None:
        raise ValueError("model.compile needs a loss, e.g. loss='mse'.")
    loss = losses.get(loss)
    model._compiled = (optimizers.get(optimizer), loss,
                       [metrics_lib.get(m, loss) for m in metrics])
    model._trainer = None
    model._opt_state = None
    model._train_key = jax.random.PRNGKey(0 if seed is None else seed)


def _trainer(model, x=None) -> Trainer:
    """The model's Trainer, made on first use (building the model on ``x`` if needed)."""
    if getattr(model, "_compiled", None) is None:
        raise RuntimeError(f"You must call model.compile(optimizer, loss, metrics) before "
                           f"training or evaluating model {model.name!r}.")
    if model._trainer is None:
        if not model.built and x is not None:
            model(jax.tree_util.tree_map(lambda a: np.asarray(a)[:1], x))
        model._trainer = Trainer(model, *model._compiled)
    return model._trainer


def _format_logs(logs: dict) -> str:
    return " - ".join(f"{k}: {v:.4f}" for k, v in logs.items())


def _mean_logs(sums: dict, count: int, names) -> dict:
    """Epoch means, in Keras order: loss first, then metrics as compiled."""
    return {k: float(sums[k]) / count for k in names}


def _run_epoch(trainer, ts, arrays, batch_size, order, pad, train):
    """One pass; returns (train_state, mean logs). Sums stay on device until the end."""
    sums, count = {}, 0
    for batch, real in data.prefetch_to_device(data.batches(arrays, batch_size, order, pad)):
        if train:
            ts, logs = trainer.train_step(ts, batch)
        else:
            logs = trainer.eval_step(ts, batch)
        for k, v in logs.items():
            sums[k] = sums.get(k, 0.0) + v * real
        count += real
    return ts, _mean_logs(sums, count, ["loss", *trainer.metric_names])


def _split_xy(x, y, sample_weight=None):
    arrays = (data.as_numpy(x), data.as_numpy(y))
    if sample_weight is not None:
        arrays = (*arrays, np.asarray(sample_weight, np.float32))
    data.num_samples(*arrays)
    return arrays


def fit(model, x, y, batch_size=32, epochs=1, verbose=1, validation_data=None, shuffle=True,
        sample_weight=None, seed=None):
    """Train ``model`` on ``(x, y)``; returns a ``History`` of per-epoch logs."""
    trainer = _trainer(model, x)
    if y is None:
        raise ValueError("fit needs targets: model.fit(x, y, ...).")
    arrays = _split_xy(x, y, sample_weight)
    n = data.num_samples(*arrays)
    val_arrays = _split_xy(*validation_data) if validation_data is not None else None
    rng = np.random.default_rng(seed)
    ts = trainer.init_from_model(model._train_key, model._opt_state)
    history = History()
    steps = math.ceil(n / batch_size)
    for epoch in range(epochs):
        start = time.perf_counter()
        order = rng.permutation(n) if shuffle else None
        ts, logs = _run_epoch(trainer, ts, arrays, batch_size, order, False, True)
        if val_arrays is not None:
            _, val_logs = _run_epoch(trainer, ts, val_arrays, batch_size, None,
                                     True, False)
            logs.update({f"val_{k}": v for k, v in val_logs.items()})
        history.record(epoch, logs)
        if verbose:
            seconds = time.perf_counter() - start
            print(f"Epoch {epoch + 1}/{epochs} - {steps} steps - {seconds:.2f}s - "
                  f"{_format_logs(logs)}", flush=True)
    trainer.write_back(ts)
    model._opt_state = ts.opt_state
    model._train_key = jax.random.fold_in(ts.key, ts.step)  # next fit draws new masks
    return history


def evaluate(model, x, y, batch_size=32, verbose=0, return_dict=False, sample_weight=None):
    """Mean loss and metrics over ``(x, y)`` (padded batches; one compiled step)."""
    trainer = _trainer(model, x)
    ts = trainer.init_from_model(model._train_key, model._opt_state)
    _, logs = _run_epoch(trainer, ts, _split_xy(x, y, sample_weight), batch_size,
                         None, True, False)
    if verbose:
        print(_format_logs(logs), flush=True)
    if return_dict:
        return logs
    values = list(logs.values())
    return values[0] if len(values) == 1 else values


def _predictor(model, x):
    """A jitted inference function for ``model``, compiled once and cached on it."""
    if not model.built:
        model(jax.tree_util.tree_map(lambda a: np.asarray(a)[:1], x))
    fn = getattr(model, "_predictor", None)
    if fn is None:
        program = compiler.compile(model)
        fn = model._predictor = jax.jit(lambda p, s, x: program.apply(p, s, x)[0])
    return fn


def predict(model, x, batch_size=32, verbose=0):
    """Model outputs for ``x`` as NumPy arrays (padded batches; one compiled step)."""
    predict_fn = _predictor(model, x)
    params, state = compiler.variables(model)
    x = data.as_numpy(x)
    pieces = []
    for (xb, _weights), real in data.prefetch_to_device(data.batches((x,), batch_size,
                                                                     pad=True)):
        out = predict_fn(params, state, xb)
        pieces.append(jax.tree_util.tree_map(lambda a, r=real: np.asarray(a[:r]), out))
    result = jax.tree_util.tree_map(lambda *parts: np.concatenate(parts), *pieces)
    if verbose:
        print(f"predicted {data.num_samples(x)} samples", flush=True)
    return result
