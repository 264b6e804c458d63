"""The callback protocol and the standard callbacks, driven by a small stand-in fit loop."""

from __future__ import annotations

import math
import warnings

import jax.numpy as jnp
import numpy as np
import pytest

import runtime
from kgraph.callbacks import (CSVLogger, Callback, CallbackList, EarlyStopping, History,
                               LambdaCallback, ProgressBar, ReduceLROnPlateau, TerminateOnNaN)
from tests.support.helpers import STEPS, FakeLoop, drive_fit


class FakeModel:
    stop_training = False


def kernel(loop):
    return np.asarray(loop.train_state.params["dense"]["kernel"])


# ------------------------------------------------------------------- protocol
def test_base_callback_has_no_batch_hooks_and_subclass_overrides_count():
    class OnBatchEnd(Callback):
        def on_batch_end(self, batch, logs=None):
            self.seen = batch

    assert not any(Callback().uses_batch_hooks(m) for m in ("train", "test", "predict"))
    callback = OnBatchEnd()
    assert callback.uses_batch_hooks("train") and not callback.uses_batch_hooks("test")
    callback.on_train_batch_end(4)  # the Keras alias is called by the default hook
    assert callback.seen == 4
    with pytest.raises(ValueError, match="mode must be one of .* received 'fit'"):
        callback.uses_batch_hooks("fit")


def test_callback_list_adds_history_and_progress_and_configures_each():
    loop, model = FakeLoop(), FakeModel()
    mine = LambdaCallback()
    cbs = CallbackList([mine], model=model, loop=loop, verbose=2, epochs=5, steps=7)
    assert [type(c) for c in cbs] == [LambdaCallback, History, ProgressBar]
    assert model.history is cbs.history
    for callback in cbs:
        assert callback.model is model and callback.loop is loop
        assert callback.params == {"epochs": 5, "steps": 7, "verbose": 2}
    assert [type(c) for c in CallbackList(verbose=0)] == [History]
    history = History()
    cbs = CallbackList([history], add_progbar=False)
    assert cbs.callbacks == [history] and cbs.history is history
    assert runtime.History is History


def test_callback_list_rejects_non_callbacks():
    with pytest.raises(TypeError, match=r"callbacks\[1\] must be a kgraph.callbacks.Callback, "
                                        r"received function"):
        CallbackList([History(), lambda: None])


def test_needs_batch_logs_only_for_overridden_batch_hooks():
    assert not CallbackList([EarlyStopping(), CSVLogger("unused.csv")], verbose=0
                            ).needs_batch_logs
    assert not CallbackList([EarlyStopping()], verbose=2).needs_batch_logs  # lines only
    with_batch = CallbackList([LambdaCallback(on_train_batch_end=lambda b, logs: None)],
                              verbose=0)
    assert with_batch.needs_batch_logs and with_batch.batch_hook_interval("train") == 0.0
    only_test = CallbackList([LambdaCallback(on_test_batch_end=lambda b, logs: None)], verbose=0)
    assert only_test.needs_batch_logs
    assert only_test.needs_batch_hooks("test") and not only_test.needs_batch_hooks("train")
    assert only_test.batch_hook_interval("train") is None
    assert CallbackList([TerminateOnNaN()], verbose=0).needs_batch_hooks("train")


def test_batch_hook_interval_takes_the_most_demanding_callback():
    bar = ProgressBar(dynamic=True, refresh_interval=0.2)
    assert CallbackList([bar], verbose=1).batch_hook_interval("train") == 0.2
    both = CallbackList([bar, LambdaCallback(on_train_batch_end=print)], verbose=1)
    assert both.batch_hook_interval("train") == 0.0


def test_epoch_logs_become_one_shared_dict_of_floats():
    seen = []
    cbs = CallbackList([LambdaCallback(on_epoch_end=lambda e, logs: logs.update(extra=1.0)),
                        LambdaCallback(on_epoch_end=lambda e, logs: seen.append(logs))],
                       verbose=0)
    cbs.on_train_begin()
    cbs.on_epoch_end(0, {"loss": jnp.asarray(0.25), "name": "x"})
    assert seen == [{"loss": 0.25, "name": "x", "extra": 1.0}]
    assert type(seen[0]["loss"]) is float
    assert cbs.history.history == {"loss": [0.25], "name": ["x"], "extra": [1.0]}


def test_batch_logs_reach_callbacks_unchanged():
    seen = []
    cbs = CallbackList([LambdaCallback(on_train_batch_end=lambda b, logs: seen.append(logs))],
                       verbose=0)
    logs = {"loss": jnp.asarray(0.5)}
    cbs.on_train_batch_end(0, logs)
    assert seen[0] is logs


def test_history_records_epochs_and_restarts_epoch_list_per_fit():
    model = FakeModel()
    history = History()
    drive_fit([history], FakeLoop(), [{"loss": 1.0}, {"loss": 0.5}], model=model)
    assert history.epoch == [0, 1] and history.history == {"loss": [1.0, 0.5]}
    assert model.history is history
    drive_fit([history], FakeLoop(), [{"loss": 0.25}], model=model)
    assert history.epoch == [0] and history.history == {"loss": [1.0, 0.5, 0.25]}


# ------------------------------------------------------------- EarlyStopping
def test_early_stopping_stops_after_patience_and_restores_best_weights():
    loop, model = FakeLoop(), FakeModel()
    val_losses = [1.0, 0.8, 0.9, 0.85, 0.7, 0.6]
    stop = EarlyStopping(patience=2, restore_best_weights=True)
    epochs = drive_fit([stop], loop, [{"loss": 1.0, "val_loss": v} for v in val_losses],
                       model=model)
    assert epochs == 4 and stop.stopped_epoch == 3 and stop.best_epoch == 1
    assert stop.best == 0.8 and loop.stop_training and model.stop_training
    # Each step adds 1 to every weight: after epoch 1 (0-based) they are 2 * STEPS.
    np.testing.assert_array_equal(kernel(loop), np.full((2, 2), 2.0 * STEPS))
    np.testing.assert_array_equal(loop.train_state.state["norm"]["moving_mean"],
                                  np.full((2,), 2.0 * STEPS))


def test_early_stopping_without_restore_keeps_last_weights():
    loop = FakeLoop()
    stop = EarlyStopping(monitor="loss", patience=0)
    assert drive_fit([stop], loop, [{"loss": v} for v in [1.0, 1.0, 0.5]]) == 2
    np.testing.assert_array_equal(kernel(loop), np.full((2, 2), 2.0 * STEPS))


def test_early_stopping_modes_min_delta_baseline_and_warm_up():
    def run(values, **kwargs):
        stop = EarlyStopping(**kwargs)
        monitor = kwargs.get("monitor", "val_loss")
        return drive_fit([stop], FakeLoop(), [{monitor: v} for v in values]), stop

    # accuracy is maximized in auto mode
    assert run([0.5, 0.6, 0.7, 0.65], monitor="val_accuracy")[0] == 4
    assert run([0.5, 0.6, 0.55, 0.7], monitor="val_accuracy")[0] == 3
    # improvements smaller than min_delta don't count
    assert run([1.0, 0.95, 0.9], min_delta=0.1)[0] == 2
    # improvements that don't beat the baseline don't reset patience
    assert run([1.0, 0.9, 0.95, 0.97], patience=2)[0] == 4
    epochs, stop = run([1.0, 0.9, 0.95, 0.97], baseline=0.5, patience=2)
    assert epochs == 3 and stop.stopped_epoch == 2 and stop.best == 0.9
    # no stopping during warm-up
    assert run([1.0, 2.0, 3.0, 4.0], start_from_epoch=2)[0] == 4
    assert run([1.0, 2.0, 3.0, 4.0, 5.0], start_from_epoch=2)[0] == 4
    # max mode on a loss
    assert run([1.0, 2.0, 1.5], mode="max")[0] == 3


def test_early_stopping_warns_about_a_missing_monitor_and_unknown_mode():
    stop = EarlyStopping(monitor="val_loss")
    with pytest.warns(UserWarning, match="Early stopping conditioned on metric `val_loss` which "
                                         "is not available. Available metrics are: loss,acc"):
        stop.on_epoch_end(0, {"loss": 1.0, "acc": 0.5})
    with pytest.warns(UserWarning, match="EarlyStopping mode 'lowest' is unknown"):
        EarlyStopping(mode="lowest")
    stop = EarlyStopping(monitor="val_widgets")  # decided at the first epoch end, as Keras
    with pytest.raises(ValueError, match="monitor=val_widgets, but can't tell whether"):
        stop.on_epoch_end(0, {"val_widgets": 1.0})


def test_early_stopping_messages(capsys):
    stop = EarlyStopping(monitor="loss", verbose=1, restore_best_weights=True)
    drive_fit([stop], FakeLoop(), [{"loss": v} for v in [1.0, 0.5, 0.6]])
    assert capsys.readouterr().out == ("Epoch 3: early stopping\nRestoring model weights from "
                                       "the end of the best epoch: 2.\n")


# --------------------------------------------------------- ReduceLROnPlateau
def run_plateau(epochs, **kwargs):
    """Learning rate after each epoch (and as logged) for a val_loss that never improves."""
    loop = FakeLoop(learning_rate=1.0)
    rates, history = [], History()
    record = LambdaCallback(on_epoch_end=lambda e, logs: rates.append(loop.learning_rate))
    drive_fit([ReduceLROnPlateau(**kwargs), record, history], loop, [{"val_loss": 1.0}] * epochs)
    return rates, history.history["learning_rate"]


def test_reduce_lr_on_plateau_reduces_after_patience_with_cooldown_and_floor(capsys):
    rates, logged = run_plateau(9, factor=0.5, patience=2, min_lr=0.2, verbose=1)
    # epoch 0 sets the best; then a reduction every `patience` epochs, floored at min_lr
    assert rates == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.2, 0.2, 0.2]
    assert logged == [1.0, 1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.2, 0.2]  # before the change
    assert capsys.readouterr().out == "".join(
        f"\nEpoch {e}: ReduceLROnPlateau reducing learning rate to {lr}.\n"
        for e, lr in [(3, 0.5), (5, 0.25), (7, 0.2)])
    # cooldown=2: after a reduction, 2 epochs where nothing counts, then patience again
    rates, _ = run_plateau(9, factor=0.5, patience=2, cooldown=2)
    assert rates == [1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125]


def test_reduce_lr_on_plateau_resets_wait_on_improvement_and_stops_at_min_lr():
    loop = FakeLoop(learning_rate=0.1)
    reduce = ReduceLROnPlateau(monitor="loss", patience=1, min_lr=0.1)
    drive_fit([reduce], loop, [{"loss": v} for v in [1.0, 0.5, 0.6, 0.7]])
    assert loop.learning_rate == 0.1  # already at min_lr: never reduced
    loop = FakeLoop(learning_rate=0.1)
    reduce = ReduceLROnPlateau(monitor="loss", patience=2, factor=0.1)
    drive_fit([reduce], loop, [{"loss": v} for v in [1.0, 1.0, 0.5, 0.5]])
    assert loop.learning_rate == 0.1  # the improvement at epoch 2 reset the wait
    assert reduce.wait == 1


def test_reduce_lr_on_plateau_errors():
    with pytest.raises(ValueError, match="does not support a factor >= 1.0. Received factor=2"):
        ReduceLROnPlateau(factor=2)
    with pytest.raises(ValueError, match="inject_hyperparams"):
        drive_fit([ReduceLROnPlateau()], FakeLoop(injectable=False), [{"val_loss": 1.0}])
    reduce = ReduceLROnPlateau()
    reduce.on_train_begin()  # resets, as Keras's; the learning rate is needed at epoch end
    with pytest.raises(RuntimeError, match="or of its model's optimizer, but it has neither"):
        reduce.on_epoch_end(0, {"val_loss": 1.0})


# ----------------------------------------------------------------- CSVLogger
def test_csv_logger_writes_keras_format(tmp_path):
    path = tmp_path / "log.csv"
    logs = [{"loss": 0.5, "accuracy": 0.75, "val_loss": 0.625, "val_accuracy": 0.5},
            {"loss": 0.25, "accuracy": 1.0, "val_loss": 0.5, "val_accuracy": 0.75}]
    drive_fit([CSVLogger(path)], FakeLoop(), logs)
    assert path.read_bytes() == (b"epoch,accuracy,loss,val_accuracy,val_loss\r\n"
                                 b"0,0.75,0.5,0.5,0.625\r\n"
                                 b"1,1.0,0.25,0.75,0.5\r\n")


def test_csv_logger_adds_val_columns_appends_and_separator(tmp_path):
    path = tmp_path / "log.tsv"
    drive_fit([CSVLogger(path, separator="\t")], FakeLoop(), [{"loss": 0.5}])
    drive_fit([CSVLogger(path, separator="\t", append=True)], FakeLoop(), [{"loss": 0.25}])
    assert path.read_text().splitlines() == ["epoch\tloss\tval_loss", "0\t0.5\tNA",
                                             "0\t0.25\tNA"]


# ------------------------------------------------------------ LambdaCallback
def test_lambda_callback_calls_given_hooks_with_keras_arguments():
    calls = []
    callback = LambdaCallback(
        on_train_begin=lambda logs: calls.append("train_begin"),
        on_epoch_end=lambda epoch, logs: calls.append(("epoch_end", epoch, logs["loss"])),
        on_train_batch_end=lambda batch, logs: calls.append(("batch", batch, float(logs["loss"]))),
        on_train_end=lambda logs: calls.append("train_end"))
    drive_fit([callback], FakeLoop(), [{"loss": 2.0}], batch_losses=[[1.0, 2.0, 3.0]])
    assert calls == ["train_begin", ("batch", 0, 1.0), ("batch", 1, 2.0), ("batch", 2, 3.0),
                     ("epoch_end", 0, 2.0), "train_end"]


def test_lambda_callback_rejects_unknown_hooks():
    with pytest.raises(TypeError, match="unknown hook 'on_epoch_ends'; expected one of"):
        LambdaCallback(on_epoch_ends=print)
    with pytest.raises(TypeError, match="on_epoch_end must be callable, received int"):
        LambdaCallback(on_epoch_end=3)


# ------------------------------------------------------------ TerminateOnNaN
def test_terminate_on_nan_names_epoch_batch_and_step(capsys):
    loop, model = FakeLoop(), FakeModel()
    losses = [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, math.nan, math.inf], [1.0] * 3]
    epochs = drive_fit([TerminateOnNaN()], loop, [{"loss": 1.0}] * 4, batch_losses=losses,
                       model=model)
    assert epochs == 3 and loop.stop_training and model.stop_training
    # printed once, for the first bad batch: epoch index 2, batch 1, step 2 * STEPS + 1
    assert capsys.readouterr().out == ("Epoch 3, batch 1 (step 7): invalid loss nan, "
                                       "terminating training.\n")


def test_terminate_on_nan_can_raise_and_ignores_finite_losses():
    assert drive_fit([TerminateOnNaN()], FakeLoop(), [{"loss": 1.0}] * 2,
                     batch_losses=[[1.0] * 3, [1e30] * 3]) == 2
    with pytest.raises(RuntimeError, match=r"Epoch 1, batch 2 \(step 2\). Loss value: inf"):
        drive_fit([TerminateOnNaN(raise_error=True)], FakeLoop(), [{"loss": 1.0}],
                  batch_losses=[[1.0, 1.0, math.inf]])


def test_no_warnings_in_a_plain_run():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        drive_fit([EarlyStopping(monitor="loss", restore_best_weights=True)], FakeLoop(),
                  [{"loss": 1.0}, {"loss": 0.5}])
