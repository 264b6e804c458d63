"""CheckpointManager, BackupAndRestore and ModelCheckpoint, in one process."""

import os
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import kgraph as kg
from runtime import Trainer
from kgraph.callbacks import (BackupAndRestore, Callback, EarlyStopping, ModelCheckpoint,
                               ReduceLROnPlateau)
from runtime.checkpoints import CheckpointManager


def _model(units=4, names=("hidden", "out")):
    x = kg.Input(shape=(3,))
    h = kg.layers.Dense(units, name=names[0])(x)
    h = kg.layers.BatchNormalization()(h)
    return kg.Model(x, kg.layers.Dense(1, name=names[1])(h))


def _trained_state(model, steps=3):
    trainer = Trainer(model, optax.adam(1e-2), "mse", metrics=["mae"])
    ts = trainer.reset_metrics(trainer.init(jax.random.key(0)))  # a typed key
    batch = (jnp.arange(24.0).reshape(8, 3) / 10, jnp.ones((8, 1)))
    for _ in range(steps):
        ts = trainer.fit_batches(ts, jax.tree_util.tree_map(
            lambda a: a[None], (*batch, jnp.ones(8), jnp.ones(8))))
    return trainer, ts


def _leaves_equal(a, b):
    a, b = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
            x, y = jax.random.key_data(x), jax.random.key_data(y)
        assert x.dtype == y.dtype and np.array_equal(np.asarray(x), np.asarray(y))


def test_round_trip_is_bitwise_with_loop_state_and_extras(tmp_path):
    model = _model()
    trainer, ts = _trained_state(model)
    extras = {"ema": {"w": jnp.ones(3, jnp.bfloat16)}}
    with CheckpointManager(tmp_path / "ck", model=model) as checkpoints:
        assert checkpoints.save(3, ts, loop_state={"epoch": 2, "best": 0.5}, extras=extras)
        assert not checkpoints.save(3, ts)  # that step exists: nothing written
        fresh = trainer.reset_metrics(trainer.init(jax.random.key(1)))
        restored = checkpoints.restore(fresh)
    assert restored.step == 3 and restored.loop_state == {"epoch": 2, "best": 0.5}
    assert type(restored.train_state) is type(ts)
    _leaves_equal(restored.train_state, ts)
    _leaves_equal(restored.extras, extras)


def test_restore_against_an_abstract_target_in_a_rebuilt_model(tmp_path):
    trainer, ts = _trained_state(_model())
    with CheckpointManager(tmp_path, model=trainer.model) as checkpoints:
        checkpoints.save(1, trainer.pack(ts))  # packed train states save as their tree
    rebuilt = _model(names=("h2", "o2"))  # same architecture, other layer names
    trainer2 = Trainer(rebuilt, optax.adam(1e-2), "mse", metrics=["mae"])
    abstract = jax.eval_shape(lambda: trainer2.reset_metrics(
        trainer2.init(jax.random.key(0))))
    restored = CheckpointManager(tmp_path, model=rebuilt).restore(abstract)
    params = restored.train_state.params
    assert sorted(params) == ["batch_normalization", "h2", "o2"]
    assert np.array_equal(params["h2"]["kernel"], ts.params["hidden"]["kernel"])
    adam = restored.train_state.opt_state[0]
    assert np.array_equal(adam.mu["o2"]["bias"], ts.opt_state[0].mu["out"]["bias"])
    assert isinstance(params["h2"]["kernel"], jax.Array)


def test_a_checkpoint_of_another_architecture_is_refused(tmp_path):
    trainer, ts = _trained_state(_model())
    with CheckpointManager(tmp_path, model=trainer.model) as checkpoints:
        checkpoints.save(1, ts)
    other = _model(units=5)
    target = Trainer(other, optax.adam(1e-2), "mse").init(jax.random.key(0))
    with pytest.raises(ValueError, match=r"another configuration of model .*\(config hash"):
        CheckpointManager(tmp_path, model=other).restore(target)
    x = kg.Input(shape=(3,))
    shallow = kg.Model(x, kg.layers.Dense(1)(x))
    with pytest.raises(ValueError, match=r"other layers: it has \['InputLayer', 'Dense', "
                                         r"'BatchNormalization', 'Dense'\]"):
        CheckpointManager(tmp_path, model=shallow).restore(ts)


def test_keep_newest_and_keep_best(tmp_path):
    _, ts = _trained_state(_model(), steps=1)
    with CheckpointManager(tmp_path / "newest", max_to_keep=2) as newest:
        for step in range(1, 5):
            newest.save(step, ts)
        newest.wait_until_finished()
        assert newest.all_steps() == [3, 4] and newest.latest_step() == 4
        with pytest.raises(FileNotFoundError, match=r"step 1 .* steps \[3, 4\]"):
            newest.restore(ts, step=1)
    losses = {1: 0.5, 2: 0.2, 3: 0.9, 4: 0.3}
    with CheckpointManager(tmp_path / "best", max_to_keep=2, best_metric="val_loss") as best:
        for step, loss in losses.items():
            best.save(step, ts, metrics={"val_loss": loss})
        with pytest.raises(ValueError, match="pass metrics="):
            best.save(5, ts)
        best.wait_until_finished()
        assert best.all_steps() == [2, 4] and best.best_step() == 2
    assert not os.listdir(tmp_path / "newest" / ".deleted")  # deleted steps really go
    with pytest.raises(FileNotFoundError, match="No checkpoint"):
        CheckpointManager(tmp_path / "empty").restore(ts)


def test_a_damaged_latest_checkpoint_falls_back_to_the_one_before(tmp_path):
    _, ts = _trained_state(_model(), steps=1)
    with CheckpointManager(tmp_path, max_to_keep=2) as checkpoints:
        checkpoints.save(1, ts, loop_state={"n": 1})
        checkpoints.save(2, ts, loop_state={"n": 2})
    (tmp_path / "2" / "train_state" / "_METADATA").unlink()  # damaged outside orbax
    with pytest.warns(RuntimeWarning, match=r"(?s)step 2 .* can.t be read .* restored step 1"):
        restored = CheckpointManager(tmp_path).restore(ts)
    assert restored.step == 1 and restored.loop_state == {"n": 1}
    with pytest.raises(Exception):
        CheckpointManager(tmp_path).restore(ts, step=2)  # asked for: no fallback


def test_relative_paths_are_made_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _, ts = _trained_state(_model(), steps=1)
    checkpoints = CheckpointManager("runs/ck")
    assert checkpoints.directory == str(tmp_path / "runs" / "ck")
    monkeypatch.chdir("/")
    checkpoints.save(1, ts)
    checkpoints.close()
    assert (tmp_path / "runs" / "ck" / "1").is_dir()


def test_a_failed_background_write_raises(tmp_path, monkeypatch):
    _, ts = _trained_state(_model(), steps=1)
    checkpoints = CheckpointManager(tmp_path, async_save=True)
    import orbax.checkpoint as ocp

    def fail(*args, **kwargs):
        raise OSError("disk full")

    # The step folder is renamed into place in the background: make that fail.
    monkeypatch.setattr(ocp.path.atomicity.AtomicRenameTemporaryPath, "finalize", fail,
                        raising=True)
    checkpoints.save(1, ts)
    with pytest.raises(Exception, match="disk full"):
        checkpoints.wait_until_finished()


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 3)).astype("float32")
    return x, (x @ np.ones((3, 1), np.float32)).astype("float32")


def _compiled(seed=1):
    kg.utils.set_random_seed(seed)
    model = _model()
    model.compile(kg.optimizers.Adam(0.05), "mse", seed=2)
    return model


class _Interrupt(Callback):
    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.epoch:
            raise KeyboardInterrupt


class _InterruptAt(Callback):
    def __init__(self, step):
        super().__init__()
        self.step = step

    def on_train_batch_end(self, batch, logs=None):
        if self.loop.global_step >= self.step:
            raise KeyboardInterrupt


class _Steps(Callback):
    """Records the global step of every batch this fit trains."""

    def __init__(self):
        super().__init__()
        self.steps = []

    def on_train_batch_end(self, batch, logs=None):
        self.steps.append(self.loop.global_step)


def test_a_mid_epoch_resume_continues_the_epoch_with_its_learning_rate(tmp_path):
    """A LearningRateScheduler (halving each epoch) and a batch-level ModelCheckpoint
    resumed at step 7 of 4 x 5: the same rates, weights and checkpoint files."""
    from kgraph.callbacks import LearningRateScheduler

    x, y = _data()

    def run(folder, *extra):
        steps = _Steps()
        callbacks = [LearningRateScheduler(lambda epoch, lr: lr * 0.5), steps,
                     ModelCheckpoint(str(folder / "b{epoch}-{batch}.weights.h5"),
                                     save_weights_only=True, save_freq=4), *extra]
        history = _compiled().fit(x, y, batch_size=8, epochs=4, verbose=0,
                                  callbacks=callbacks)
        return history, steps.steps

    (tmp_path / "reference").mkdir()
    expected, _ = run(tmp_path / "reference")
    resumed_dir = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        run(resumed_dir, BackupAndRestore(tmp_path / "b", save_freq=2), _InterruptAt(7))
    history, steps = run(resumed_dir, BackupAndRestore(tmp_path / "b", save_freq=2))
    assert steps[0] == 7 and steps[-1] == 20  # it continued from the backup at step 6
    assert history.history == expected.history  # learning_rate per epoch included
    assert sorted(os.listdir(resumed_dir)) == sorted(os.listdir(tmp_path / "reference"))


def test_backup_resumes_callback_states_and_the_history(tmp_path):
    x, y = _data()
    kwargs = dict(batch_size=8, epochs=6, verbose=0, validation_split=0.25)

    def callbacks():
        return [EarlyStopping(patience=4, restore_best_weights=True),
                ReduceLROnPlateau(factor=0.5, patience=1, min_delta=10.0),
                ModelCheckpoint(str(tmp_path / "best.keras"), save_best_only=True)]

    reference = _compiled()
    expected = reference.fit(x, y, callbacks=callbacks(), **kwargs).history
    model = _compiled()
    with pytest.raises(KeyboardInterrupt):
        model.fit(x, y, callbacks=[*callbacks(), BackupAndRestore(tmp_path / "b"),
                                   _Interrupt(4)], **kwargs)
    first = callbacks()
    epochs = []
    counter = LambdaCallbackEpochs(epochs)
    resumed = _compiled().fit(x, y, callbacks=[*first, counter,
                                               BackupAndRestore(tmp_path / "b")],
                              **kwargs).history
    assert epochs == [4, 5]  # resumed: only the epochs after the backup ran
    assert resumed == expected  # the learning rate halvings and val_loss included
    assert first[0].best == min(expected["val_loss"]) and first[2].best == first[0].best
    assert first[0].best_weights is not None
    assert not (tmp_path / "b").exists()


def test_resuming_with_another_batch_size_warns(tmp_path):
    x, y = _data()
    model = _compiled()
    with pytest.raises(KeyboardInterrupt):
        model.fit(x, y, batch_size=8, epochs=3, verbose=0,
                  callbacks=[BackupAndRestore(tmp_path), _Interrupt(1)])
    with pytest.warns(RuntimeWarning, match=r"other settings .*'steps_per_epoch': 2, .* now, "
                                            r"\{'steps_per_epoch': 5, .* then"):
        history = model.fit(x, y, batch_size=20, epochs=3, verbose=0,
                            callbacks=[BackupAndRestore(tmp_path)])
    assert len(history.history["loss"]) == 3  # resumed at epoch 1: epochs 0, 1, 2


def LambdaCallbackEpochs(epochs):  # noqa: N802 - a callback recording epochs begun
    from kgraph.callbacks import LambdaCallback

    return LambdaCallback(on_epoch_begin=lambda epoch, logs: epochs.append(epoch))


def test_a_damaged_backup_falls_back_and_later_backups_are_written(tmp_path):
    x, y = _data()
    backup = BackupAndRestore(tmp_path, double_checkpoint=True, delete_checkpoint=False)
    _compiled().fit(x, y, epochs=3, verbose=0, callbacks=[backup])
    assert sorted(os.listdir(tmp_path)) == [".deleted", "2", "3"]
    (tmp_path / "3" / "train_state" / "_METADATA").unlink()
    with pytest.warns(RuntimeWarning, match=r"(?s)step 3 .* restored step 2"):
        history = _compiled().fit(x, y, epochs=4, verbose=0, callbacks=[backup])
    assert len(history.history["loss"]) == 4  # epochs 2 and 3 ran again
    assert sorted(os.listdir(tmp_path)) == [".deleted", "4", "5"]


def test_a_run_that_stopped_is_not_resumed_silently(tmp_path):
    x, y = _data()
    stop = EarlyStopping(monitor="loss", patience=0, min_delta=100.0)
    backup = BackupAndRestore(tmp_path, delete_checkpoint=False)
    _compiled().fit(x, y, epochs=5, verbose=0, callbacks=[stop, backup])
    assert stop.stopped_epoch == 1
    with pytest.warns(RuntimeWarning, match="made as training stopped"):
        history = _compiled().fit(x, y, epochs=5, verbose=0, callbacks=[backup])
    assert len(history.history["loss"]) == 2  # the stopped run's epochs; none added


class _FailingExit(Callback):
    def on_run_exit(self):
        raise OSError("the disk went away")


def test_errors_at_the_end_of_fit_are_raised_and_never_hide_fits_own(tmp_path):
    x, y = _data()
    model = _compiled()
    with pytest.raises(OSError, match="disk went away"):
        model.fit(x, y, epochs=1, verbose=0, callbacks=[_FailingExit()])
    before = [np.asarray(w) for w in model.get_weights()]
    with pytest.warns(RuntimeWarning, match="finishing its callbacks failed too: OSError"):
        with pytest.raises(KeyboardInterrupt):
            model.fit(x, y, epochs=3, verbose=0, callbacks=[_FailingExit(), _Interrupt(1)])
    after = model.get_weights()  # epoch 0's weights still reached the model
    assert any(not np.array_equal(a, b) for a, b in zip(before, after))


def test_resuming_a_generator_warns_that_it_starts_over(tmp_path):
    x, y = _data()

    def batches():
        while True:
            yield x[:8], y[:8]

    with pytest.raises(KeyboardInterrupt):
        _compiled().fit(batches(), epochs=3, steps_per_epoch=2, verbose=0,
                        callbacks=[BackupAndRestore(tmp_path), _Interrupt(1)])
    with pytest.warns(RuntimeWarning, match="one-shot iterator"):
        _compiled().fit(batches(), epochs=3, steps_per_epoch=2, verbose=0,
                        callbacks=[BackupAndRestore(tmp_path)])


def test_backup_refuses_bad_arguments_and_custom_train_steps(tmp_path):
    with pytest.raises(ValueError, match="save_freq"):
        BackupAndRestore(tmp_path, save_freq=0)
    with pytest.raises(ValueError, match="Empty `backup_dir`"):
        BackupAndRestore("")
    assert not BackupAndRestore(tmp_path).uses_batch_hooks("train")
    assert BackupAndRestore(tmp_path, save_freq=5).uses_batch_hooks("train")


def test_model_checkpoint_names_files_and_keeps_the_best(tmp_path):
    x, y = _data()
    model = _compiled()
    pattern = str(tmp_path / "m-{epoch:02d}-{val_loss:.3f}.keras")
    every = ModelCheckpoint(pattern)
    best = ModelCheckpoint(str(tmp_path / "best.weights.h5"), save_weights_only=True,
                           save_best_only=True, verbose=1)
    batches = ModelCheckpoint(str(tmp_path / "b{epoch}-{batch}.weights.h5"),
                              save_weights_only=True, save_freq=2)
    history = model.fit(x, y, batch_size=10, epochs=3, verbose=0, validation_split=0.25,
                        callbacks=[every, best, batches]).history
    names = sorted(os.listdir(tmp_path))
    for epoch, loss in enumerate(history["val_loss"], 1):
        assert f"m-{epoch:02d}-{loss:.3f}.keras" in names
    assert [n for n in names if n.startswith("b") and n != "best.weights.h5"] == [
        "b1-2.weights.h5", "b2-1.weights.h5", "b2-3.weights.h5", "b3-2.weights.h5"]
    assert best.best == min(history["val_loss"])
    last = kg.load_model(tmp_path / f"m-03-{history['val_loss'][-1]:.3f}.keras")
    for a, b in zip(last.get_weights(), model.get_weights()):
        assert np.array_equal(a, b)


def test_model_checkpoint_counts_epochs_from_initial_epoch(tmp_path):
    x, y = _data()
    model = _compiled()
    model.fit(x, y, epochs=4, initial_epoch=2, verbose=0, callbacks=[ModelCheckpoint(
        str(tmp_path / "m{epoch}.weights.h5"), save_weights_only=True)])
    assert sorted(os.listdir(tmp_path)) == ["m3.weights.h5", "m4.weights.h5"]


class _OwnLoss(kg.Model):
    def compute_loss(self, *args, **kwargs):  # makes fit drive the model's own steps
        return super().compute_loss(*args, **kwargs)


def test_a_custom_train_step_is_not_backed_up_but_checkpointed_mid_epoch(tmp_path):
    x = kg.Input(shape=(3,))
    model = _OwnLoss(x, kg.layers.Dense(1)(x))
    model.compile("sgd", "mse")
    data = _data()
    with pytest.raises(RuntimeError, match="custom train_step is not supported"):
        model.fit(*data, epochs=1, verbose=0, callbacks=[BackupAndRestore(tmp_path / "b")])
    saved = []

    class Record(kg.callbacks.Callback):  # what the variables say at the last save (batch 9)
        def on_train_batch_end(self, batch, logs=None):
            if batch == 9:
                saved.append(self.model.get_weights())

    path = str(tmp_path / "m.weights.h5")
    model.fit(*data, epochs=1, verbose=0, batch_size=4, shuffle=False, callbacks=[
        ModelCheckpoint(path, save_freq=2, save_weights_only=True), Record()])
    model.load_weights(path)
    for a, b in zip(model.get_weights(), saved[0]):
        np.testing.assert_array_equal(a, b)
    model.fit(*data, epochs=1, verbose=0, callbacks=[ModelCheckpoint(str(tmp_path / "e.keras"))])
    assert (tmp_path / "e.keras").exists()


def test_a_checkpoint_from_a_newer_layout_is_refused(tmp_path):
    _, ts = _trained_state(_model(), steps=1)
    with CheckpointManager(tmp_path) as checkpoints:
        checkpoints.save(1, ts)
    meta = tmp_path / "1" / "meta" / "metadata"
    meta.write_text(meta.read_text().replace('"format": 1', '"format": 99'))
    with pytest.raises(ValueError, match="layout 99, written by a newer kgraph"):
        CheckpointManager(tmp_path).restore(ts)


def test_model_checkpoint_threshold_and_errors(tmp_path):
    x, y = _data()
    model = _compiled()
    never = ModelCheckpoint(str(tmp_path / "never.keras"), save_best_only=True,
                            initial_value_threshold=-1.0)
    model.fit(x, y, epochs=2, verbose=0, validation_split=0.25, callbacks=[never])
    assert not (tmp_path / "never.keras").exists()
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`"):
        ModelCheckpoint(str(tmp_path / "w.keras"), save_weights_only=True)
    with pytest.raises(ValueError, match=r"must end in `\.keras`.*`\.h5`"):
        ModelCheckpoint(str(tmp_path / "m.ckpt"))
    missing = ModelCheckpoint(str(tmp_path / "{nope}.keras"))
    with pytest.raises(KeyError, match="Failed to format"):
        model.fit(x, y, epochs=1, verbose=0, callbacks=[missing])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(x, y, epochs=1, verbose=0, callbacks=[ModelCheckpoint(
            str(tmp_path / "a.keras"), save_best_only=True)])  # no val_loss without validation
    assert any("Can save best model only with val_loss" in str(w.message) for w in caught)
    assert (tmp_path / "a.keras").exists()
