"""Rematerialisation by layer path: the same numbers, jax.checkpoint where asked."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import kgraph as kg
from runtime import Trainer


def _model():
    """Three nested blocks (BatchNormalization state, Dropout keys, an activity loss)."""
    kg.utils.set_random_seed(0)
    x = kg.Input(shape=(8,))
    h = x
    for i in range(3):
        inner = kg.Input(shape=(8,))
        b = kg.layers.Dense(16, activation="tanh", activity_regularizer="l2")(inner)
        b = kg.layers.Dropout(0.3)(b)
        b = kg.layers.BatchNormalization()(kg.layers.Dense(8)(b))
        h = kg.Model(inner, b, name=f"block{i}")(h)
    return kg.Model(x, kg.layers.Dense(2, name="head")(h))


BATCH = (jnp.arange(64.0).reshape(8, 8) / 64, jnp.ones((8, 2)))


@functools.lru_cache(maxsize=None)
def _plain():
    return _steps(None)


def _steps(remat, steps=2):
    # Unrolled: remat alone changes nothing (scanned blocks: tests/interpreter/test_scan_blocks.py).
    trainer = Trainer(_model(), optax.adam(1e-2), "mse", remat=remat, scan_blocks=False)
    ts = trainer.init(jax.random.PRNGKey(0))
    jaxpr = str(jax.make_jaxpr(trainer._train_step)(ts, BATCH))  # remat2: jax.checkpoint
    losses = []
    for _ in range(steps):
        ts, logs = trainer.train_step(ts, BATCH)
        losses.append(float(logs["loss"]))
    return ts, losses, jaxpr.count("remat2[")


@pytest.mark.parametrize("remat, checkpointed", [
    ({r"block\d": "nothing_saveable"}, 3),
    ({"block1": "dots_saveable"}, 1),
    ("dots_with_no_batch_dims_saveable", None),  # every layer, inside the blocks too
])
def test_rematerialised_training_gives_the_same_numbers(remat, checkpointed):
    plain, plain_losses, none = _plain()
    ts, losses, count = _steps(remat)
    assert none == 0
    assert count == checkpointed if checkpointed else count > 4 + 3 * 4
    assert losses == plain_losses  # the activity losses and dropout masks included
    for a, b in zip(jax.tree_util.tree_leaves(ts), jax.tree_util.tree_leaves(plain)):
        assert np.array_equal(np.asarray(a), np.asarray(b))  # BatchNorm statistics too


def test_bad_remat_arguments_are_refused_at_compile():
    model = _model()
    with pytest.raises(ValueError, match="Unknown rematerialisation policy 'dots'"):
        model.compile("sgd", "mse", remat={"block0": "dots"})
    with pytest.raises(TypeError, match="remat must be a policy name"):
        Trainer(model, "sgd", "mse", remat=["block0"])
    with pytest.raises(ValueError, match="not a regular expression"):
        Trainer(model, "sgd", "mse", remat={"block(": "dots_saveable"})
    with pytest.raises(ValueError, match=r"remat patterns \['blok0'\] match no layer"):
        Trainer(model, "sgd", "mse", remat={"blok0": "dots_saveable"})  # before any step


def test_memory_report_and_compile_with_remat():
    model = _model()
    model.compile("sgd", "mse", remat={r"block\d": "nothing_saveable"})
    model.fit(*BATCH, epochs=1, verbose=0)
    trainer = model._training_setup.trainer
    assert trainer.remat is not None
    report = trainer.memory_report(trainer.init(jax.random.PRNGKey(0)), BATCH)
    assert set(report) == {"temp", "arguments", "outputs", "aliased"}
    assert report["arguments"] > 0 and report["temp"] >= 0
