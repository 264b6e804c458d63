"""The progress display: tqdm bars, per-epoch lines, silence, and throttled log reads."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping

import jax.numpy as jnp
import pytest

from kgraph.callbacks import CallbackList, EarlyStopping, History
from kgraph.callbacks.progress import ProgressBar, format_duration, format_logs, format_value

EPOCH_LOGS = {"loss": 0.5, "accuracy": 0.9, "val_loss": 1e-5, "val_accuracy": 1.0}


class Scalar:
    """A device-scalar stand-in that counts how often it is read."""

    def __init__(self, value, ready=True):
        self.value, self.ready, self.reads = value, ready, 0

    def is_ready(self):
        return self.ready

    def __float__(self):
        self.reads += 1
        return self.value


class TTY(io.StringIO):
    def isatty(self):
        return True


def run_fit(callbacks, epochs=2, steps=4, verbose=1, logs=EPOCH_LOGS, steps_param="same"):
    callbacks = CallbackList(callbacks, add_history=False, verbose=verbose, epochs=epochs,
                             steps=steps if steps_param == "same" else steps_param)
    callbacks.on_train_begin()
    for epoch in range(epochs):
        callbacks.on_epoch_begin(epoch)
        for batch in range(steps):
            callbacks.on_train_batch_end(batch, {"loss": jnp.asarray(0.25 + batch)})
        callbacks.on_test_begin()  # validation inside fit is silent
        callbacks.on_test_batch_end(0, {"loss": jnp.asarray(9.0)})
        callbacks.on_test_end({"loss": 9.0})
        callbacks.on_epoch_end(epoch, logs)
    callbacks.on_train_end()
    return callbacks


def test_format_value_and_logs_follow_keras():
    assert format_value(0.123456) == "0.1235"
    assert format_value(-2.5) == "-2.5000"
    assert format_value(1e-5) == "1.0000e-05"
    assert format_value(0.0) == "0.0000e+00"
    assert format_value(float("nan")) == "nan"
    assert format_value(jnp.asarray(0.5)) == "0.5000"
    assert format_logs({"loss": 0.5, "acc": 1}) == "loss: 0.5000 - acc: 1.0000"
    assert (format_duration(3.4), format_duration(0.25)) == ("3s", "250ms")


def test_verbose_2_prints_one_line_per_epoch():
    out = io.StringIO()
    run_fit([ProgressBar(file=out)], epochs=2, verbose=2)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    for epoch, line in enumerate(lines, 1):
        assert re.fullmatch(rf"Epoch {epoch}/2 - \d+m?s - loss: 0\.5000 - accuracy: 0\.9000 - "
                            r"val_loss: 1\.0000e-05 - val_accuracy: 1\.0000", line), line


def test_verbose_0_prints_nothing(capsys):
    out = io.StringIO()
    callbacks = run_fit([ProgressBar(file=out)], verbose=0)
    assert out.getvalue() == ""
    run_fit([], verbose=0)
    assert capsys.readouterr() == ("", "")
    assert not callbacks.needs_batch_logs


def test_verbose_1_without_a_terminal_prints_lines(capsys):
    run_fit([], verbose=1)  # pytest's captured stdout is not a terminal
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" - ")[0] for line in lines] == ["Epoch 1/2", "Epoch 2/2"]
    assert "\r" not in "".join(lines)
    assert not CallbackList(verbose=1).needs_batch_logs


def test_verbose_1_on_a_terminal_draws_a_bar_per_epoch():
    out = TTY()
    callbacks = run_fit([ProgressBar(file=out)], epochs=2, steps=4, verbose="auto")
    assert callbacks.needs_batch_hooks("train") and callbacks.batch_hook_interval() == 0.15
    screens = [s for s in re.split(r"[\r\n]", out.getvalue()) if s.strip()]
    finals = [s for s in screens if "4/4" in s]
    assert any(s.startswith("Epoch 1/2: 100%") for s in finals)
    assert any(s.startswith("Epoch 2/2: 100%") for s in finals)
    # the closed bar shows every epoch log, validation included, and no validation bar
    assert "loss: 0.5000 - accuracy: 0.9000 - val_loss: 1.0000e-05 - val_accuracy: 1.0000" \
        in finals[-1]
    assert "9.0000" not in out.getvalue() and "Evaluate" not in out.getvalue()
    assert out.getvalue().endswith("\n")


class CountingLogs(Mapping):
    """Batch logs that count every access (the fit loop computes them on first access)."""

    def __init__(self, values):
        self.values_, self.accesses = values, 0

    def __getitem__(self, name):
        self.accesses += 1
        return self.values_[name]

    def __iter__(self):
        self.accesses += 1
        return iter(self.values_)

    def __len__(self):
        self.accesses += 1
        return len(self.values_)


def test_bar_reads_batch_logs_at_most_every_refresh_interval():
    bar = ProgressBar(file=TTY(), refresh_interval=60.0)
    bar.set_params({"epochs": 1, "steps": 1000, "verbose": 1})
    bar.on_train_begin()
    bar.on_epoch_begin(0)
    loss = Scalar(0.5)
    logs = CountingLogs({"loss": loss})
    for batch in range(1000):
        bar.on_train_batch_end(batch, logs)
    assert (logs.accesses, loss.reads) == (0, 0)  # no interval passed yet: never touched
    bar.refresh_interval = 0.0
    bar.on_train_batch_end(1000, logs)
    assert loss.reads == 1
    bar.on_epoch_end(0, {"loss": 0.5})
    bar.on_train_end()


def test_bar_shows_logs_kept_at_the_previous_refresh_while_a_step_runs():
    out = TTY()
    bar = ProgressBar(file=out, refresh_interval=0.0)
    bar.set_params({"epochs": 1, "steps": 4, "verbose": 1})
    bar.on_train_begin()
    bar.on_epoch_begin(0)
    first, second = Scalar(0.75, ready=False), Scalar(2.0, ready=False)
    bar.on_train_batch_end(0, {"loss": first})
    assert first.reads == 0  # not computed yet: kept for the next refresh, no wait
    bar.on_train_batch_end(1, {"loss": second})
    assert (first.reads, second.reads) == (1, 0)
    assert bar._bar.postfix == "loss: 0.7500"
    ready = Scalar(1.5)
    bar.on_train_batch_end(2, {"loss": ready})
    assert (second.reads, ready.reads) == (0, 1)  # the latest logs, when computed
    assert bar._bar.postfix == "loss: 1.5000"
    bar.on_epoch_end(0, {"loss": 2.0})
    assert "loss: 2.0000" in out.getvalue()


class SealedLogs(Mapping):
    """Batch logs that are only valid during the hook call (as the fit loop passes)."""

    def __init__(self, values):
        self.values_, self.sealed = values, False

    def __getitem__(self, name):
        if self.sealed:
            raise RuntimeError("read after the hook returned")
        return self.values_[name]

    def __iter__(self):
        if self.sealed:
            raise RuntimeError("read after the hook returned")
        return iter(self.values_)

    def __len__(self):
        return len(self.values_)


def test_bar_never_reads_batch_logs_after_the_hook_returns():
    bar = ProgressBar(file=TTY(), refresh_interval=0.0)
    bar.set_params({"epochs": 1, "steps": 3, "verbose": 1})
    bar.on_train_begin()
    bar.on_epoch_begin(0)
    for batch in range(3):
        logs = SealedLogs({"loss": Scalar(0.5 + batch, ready=batch == 2)})
        bar.on_train_batch_end(batch, logs)
        logs.sealed = True
    assert bar._bar.postfix == "loss: 2.5000"
    bar.on_epoch_end(0, {"loss": 2.5})


def test_unknown_steps_are_learnt_from_the_first_epoch():
    out = TTY()
    run_fit([ProgressBar(file=out)], epochs=2, steps=5, steps_param=None)
    screens = re.split(r"[\r\n]", out.getvalue())
    assert any(s.startswith("Epoch 1/2: 5step") or "5/5" in s for s in screens)
    assert any(s.startswith("Epoch 2/2:") and "5/5" in s for s in screens)


def test_evaluate_prints_its_final_line_and_predict_its_steps():
    out = io.StringIO()
    callbacks = CallbackList([ProgressBar(file=out)], add_history=False, verbose=2, steps=3)
    callbacks.on_test_begin()
    callbacks.on_test_end({"loss": 0.125, "accuracy": 0.5})
    callbacks.on_predict_begin()
    callbacks.on_predict_end()
    evaluate, predict = out.getvalue().splitlines()
    assert re.fullmatch(r"Evaluate - \d+m?s - loss: 0\.1250 - accuracy: 0\.5000", evaluate)
    assert re.fullmatch(r"Predict - \d+m?s - 3 steps", predict)


def test_evaluate_and_predict_bars():
    out = TTY()
    callbacks = CallbackList([ProgressBar(file=out)], add_history=False, verbose=1, steps=2)
    assert callbacks.needs_batch_hooks("test") and callbacks.needs_batch_hooks("predict")
    callbacks.on_test_begin()
    for batch in range(2):
        callbacks.on_test_batch_end(batch, {"loss": jnp.asarray(0.5)})
    callbacks.on_test_end({"loss": 0.5})
    callbacks.on_predict_begin()
    for batch in range(2):
        callbacks.on_predict_batch_end(batch, {"outputs": jnp.ones(3)})
    callbacks.on_predict_end()
    screens = [s for s in re.split(r"[\r\n]", out.getvalue()) if s.strip()]
    assert any(s.startswith("Evaluate: 100%") and "2/2" in s and "loss: 0.5000" in s
               for s in screens)
    assert any(s.startswith("Predict: 100%") and "2/2" in s for s in screens)


def test_needs_batch_logs_false_for_history_and_early_stopping_with_lines():
    assert not CallbackList([History(), EarlyStopping()], verbose=2).needs_batch_logs


def test_invalid_verbose_is_refused():
    with pytest.raises(ValueError, match=r"verbose must be 0 \(silent\), 1 .* received 3"):
        CallbackList(verbose=3)
