"""runtime.packing: small arrays packed into one buffer per dtype, and packed train states
in the Trainer and in fit (same numbers as unpacked, fewer arrays per dispatch)."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import kgraph as kg
from runtime import Callback, Trainer, TrainState, losses, packing as packing_lib
from tests.support.helpers import classification_data as _data, classifier as _model, tree_equal


def _mixed_tree():
    return {"bias": jnp.arange(3, dtype=jnp.float32),
            "count": jnp.asarray(7, jnp.int32),
            "flags": jnp.asarray([True, False]),
            "half": jnp.ones((2, 2), jnp.bfloat16),
            "key": jax.random.PRNGKey(3),
            "kernel": jnp.full((2, 3), 2.0, jnp.float32),
            "big": jnp.ones((packing_lib.PACK_MAX_LEAF_SIZE + 1,), jnp.float32),
            "steps": jnp.zeros((4,), jnp.int32),
            "typed_key": jax.random.key(1),
            "weak": jnp.asarray(1.5)}  # weakly typed (from a Python float)


def test_pack_unpack_round_trip_keeps_values_dtypes_and_weak_types():
    tree = _mixed_tree()
    packing = packing_lib.Packing(tree)
    packed = packing.pack(tree)
    # float32: bias + kernel; int32: count + steps. Alone in their dtype, too big, a
    # typed key or weakly typed: loose.
    assert sorted(str(b.dtype) for b in packed.buffers) == ["float32", "int32"]
    assert packing.packed_leaves == 4
    back = packed.unpack()
    for name, leaf in tree.items():
        if name == "typed_key":
            assert jax.random.key_data(back[name]).tolist() == \
                jax.random.key_data(leaf).tolist()
            continue
        assert back[name].dtype == leaf.dtype and back[name].shape == leaf.shape, name
        assert np.array_equal(np.asarray(back[name]), np.asarray(leaf)), name
    assert back["weak"].weak_type
    # Under jit, unpack/pack trace to slices and one concatenation.
    doubled = jax.jit(lambda p: packing.pack(jax.tree_util.tree_map(
        lambda a: a * 2 if a.dtype == jnp.float32 else a, packing.unpack(p))))(packed)
    assert np.array_equal(np.asarray(doubled.unpack()["kernel"]), np.full((2, 3), 4.0))


def test_packed_reads_fields_through_and_is_a_pytree():
    tree = TrainState(params={"w": jnp.ones(3), "b": jnp.zeros(2)}, state={},
                      opt_state=(), step=jnp.asarray(5, jnp.int32), key=jax.random.PRNGKey(0))
    packed = packing_lib.Packing(tree).pack(tree)
    assert int(packed.step) == 5 and packed.params["w"].shape == (3,)
    assert isinstance(packed.unpack(), TrainState)
    assert "2 arrays in buffers" in repr(packed)
    copied = jax.tree_util.tree_map(jnp.copy, packed)  # maps over buffers and loose arrays
    assert tree_equal(copied.unpack(), tree)
    with pytest.raises(AttributeError):
        packed.no_such_field


@pytest.mark.slow
def test_trainer_steps_on_a_packed_state_equal_unpacked_steps_bitwise():
    trainer = Trainer(_model(dropout=0.3, batchnorm=True), optax.adam(1e-2),
                      "sparse_categorical_crossentropy", metrics=["accuracy"])
    ts = trainer.init(jax.random.PRNGKey(0))
    packed = trainer.pack(jax.tree_util.tree_map(jnp.copy, ts))
    assert isinstance(packed, packing_lib.Packed) and packed.packing.packed_leaves > 4
    x, y = _data()
    for _ in range(3):
        ts, logs = trainer.train_step(ts, (x, y))
        packed, packed_logs = trainer.train_step(packed, (x, y))
        assert tree_equal(logs, packed_logs)
    assert isinstance(packed, packing_lib.Packed)
    assert tree_equal(packed.unpack(), ts)
    assert trainer.traces["train"] == 2  # one program per form, none per step
    stacked = (np.stack([x, x]), np.stack([y, y]))
    ts, logs = trainer.train_steps(ts, stacked)
    packed, packed_logs = trainer.train_steps(packed, stacked)
    assert tree_equal(packed.unpack(), ts) and tree_equal(logs, packed_logs)
    assert tree_equal(trainer.eval_step(packed, (x, y))[1], trainer.eval_step(ts, (x, y))[1])
    assert tree_equal(trainer.predict_step(packed, x), trainer.predict_step(ts, x))
    assert trainer.pack(packed) is packed


def _fit_weights(monkeypatch, max_leaf_size):
    monkeypatch.setattr(packing_lib, "PACK_MAX_LEAF_SIZE", max_leaf_size)
    model = _model(dropout=0.2, batchnorm=True)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"], seed=1)
    x, y = _data(30)
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    return model.get_weights(), history.history, model._trainer


@pytest.mark.slow
def test_fit_gives_the_same_weights_packed_or_not(monkeypatch):
    unpacked_weights, unpacked_history, trainer = _fit_weights(monkeypatch, 0)
    assert all(p.packed_leaves == 0 for p in trainer._packings.values())
    kg.reset_names()
    kg.random.set_seed(0)  # the same initial weights again
    packed_weights, packed_history, trainer = _fit_weights(monkeypatch, 4096)
    assert all(p.packed_leaves > 0 for p in trainer._packings.values())
    assert unpacked_history == packed_history
    for a, b in zip(unpacked_weights, packed_weights):
        assert np.array_equal(a, b)


class _Recorder(Callback):
    """Reads the running train state after every batch; zeroes the weights once."""

    def __init__(self):
        super().__init__()
        self.steps = []

    def on_train_batch_end(self, batch, logs=None):
        self.steps.append(int(self.loop.train_state.step))
        if batch == 1:
            ts = self.loop.train_state
            zero = jax.tree_util.tree_map(jnp.zeros_like, ts.params)
            self.loop.train_state = ts._replace(params=zero)


def test_callbacks_read_and_replace_the_packed_train_state():
    model = _model()
    model.compile(optimizer=optax.sgd(0.0),
                  loss=losses.SparseCategoricalCrossentropy(from_logits=True))
    recorder = _Recorder()
    x, y = _data(32)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[recorder])
    assert recorder.steps == [1, 2, 3, 4]
    # Learning rate 0: the only change is the callback's; it reached the last steps.
    assert all(not np.any(w) for w in model.get_weights())
