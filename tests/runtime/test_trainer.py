"""runtime.Trainer: pure jitted steps, donation, parity with a hand-written optax step."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import compiler
from runtime import Trainer, TrainState, losses
from tests.support.helpers import classification_data as _data, classifier as _classifier


_LOGITS_LOSS = losses.SparseCategoricalCrossentropy(from_logits=True)


def test_init_returns_train_state_pytree():
    trainer = Trainer(_classifier(), optax.adam(1e-3), _LOGITS_LOSS)
    ts = trainer.init(jax.random.PRNGKey(0))
    assert isinstance(ts, TrainState)
    assert ts.params["out"]["kernel"].shape == (16, 3)
    assert int(ts.step) == 0
    assert len(jax.tree_util.tree_leaves(ts.opt_state)) > 0


@pytest.mark.slow
def test_train_step_matches_hand_written_optax_step():
    model = _classifier()
    trainer = Trainer(model, optax.adam(1e-2), _LOGITS_LOSS)
    ts = trainer.init(jax.random.PRNGKey(0))
    x, y = _data()
    program = compiler.compile(model)
    opt = optax.adam(1e-2)
    params, state = jax.tree_util.tree_map(jnp.copy, (ts.params, ts.state))
    opt_state = opt.init(params)

    def hand_loss(p):
        logits, _ = program.apply(p, state, x)
        return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, y))

    for _ in range(3):
        expected_loss, grads = jax.jit(jax.value_and_grad(hand_loss))(params)
        updates, opt_state = opt.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        ts, logs = trainer.train_step(trainer.reset_metrics(ts), (x, y))
        np.testing.assert_allclose(logs["loss"], expected_loss, rtol=1e-6, atol=1e-6)
    for a, b in zip(jax.tree_util.tree_leaves(ts.params), jax.tree_util.tree_leaves(params)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert int(ts.step) == 3


def test_train_step_donates_the_old_state():
    trainer = Trainer(_classifier(), "adam", _LOGITS_LOSS)
    ts = trainer.init(jax.random.PRNGKey(0))
    old_kernel = ts.params["hidden"]["kernel"]
    trainer.train_step(ts, _data())
    assert old_kernel.is_deleted()


def test_any_optax_transformation_works():
    opt = optax.chain(optax.clip_by_global_norm(1.0), optax.sgd(optax.exponential_decay(0.1, 10, 0.5)))
    trainer = Trainer(_classifier(), opt, _LOGITS_LOSS)
    ts = trainer.init(jax.random.PRNGKey(1))
    before = np.asarray(ts.params["out"]["kernel"]).copy()
    ts, _ = trainer.train_step(ts, _data())
    assert not np.allclose(before, ts.params["out"]["kernel"])


def test_batchnorm_state_updates_in_train_step_not_in_eval_step():
    trainer = Trainer(_classifier(batchnorm=True), "sgd", _LOGITS_LOSS)
    ts = trainer.init(jax.random.PRNGKey(0))
    assert "bn" in ts.state and "moving_mean" not in ts.params["bn"]
    mean0 = np.asarray(ts.state["bn"]["moving_mean"]).copy()
    trainer.eval_step(ts, _data())
    np.testing.assert_array_equal(ts.state["bn"]["moving_mean"], mean0)
    ts, _ = trainer.train_step(ts, _data())
    assert not np.allclose(ts.state["bn"]["moving_mean"], mean0)


def test_dropout_gets_a_new_key_every_step():
    trainer = Trainer(_classifier(dropout=0.5), optax.sgd(0.0), _LOGITS_LOSS)
    ts = trainer.init(jax.random.PRNGKey(0))
    x, y = _data()
    ts, logs1 = trainer.train_step(ts, (x, y))
    logs1 = float(logs1["loss"])
    ts, logs2 = trainer.train_step(trainer.reset_metrics(ts), (x, y))
    assert logs1 != float(logs2["loss"])  # same weights, different masks
    eval1 = trainer.eval_step(ts, (x, y))[1]["loss"]
    eval2 = trainer.eval_step(ts, (x, y))[1]["loss"]
    assert float(eval1) == float(eval2)  # inference is deterministic


def test_sample_weights_follow_keras_reduction():
    """Keras divides weighted losses by the number of samples (sum_over_batch_size);
    weighted metrics divide by the sum of weights, plain metrics ignore the weights."""
    trainer = Trainer(_classifier(), "sgd", _LOGITS_LOSS, ["accuracy"],
                      weighted_metrics=["accuracy"])
    ts = trainer.init(jax.random.PRNGKey(0))
    x, y = _data(16)
    w = np.r_[np.ones(10), np.zeros(6)].astype(np.float32)
    _, weighted = trainer.eval_step(ts, (x, y, w))
    _, plain = trainer.eval_step(ts, (x[:10], y[:10]))
    _, everything = trainer.eval_step(ts, (x, y))
    np.testing.assert_allclose(weighted["loss"], plain["loss"] * 10 / 16, rtol=1e-6)
    np.testing.assert_allclose(weighted["weighted_accuracy"], plain["accuracy"], rtol=1e-6)
    np.testing.assert_allclose(weighted["accuracy"], everything["accuracy"], rtol=1e-6)


def test_bad_batch_structure_is_a_clear_error():
    trainer = Trainer(_classifier(), "sgd", "mse")
    ts = trainer.init(jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match=r"\(x, y\) or \(x, y, sample_weight\)"):
        trainer.eval_step(ts, (_data()[0],))


@pytest.mark.parametrize("bad, match", [({"optimizer": "adamx"}, "Unknown optimizer"),
                                        ({"loss": "msee"}, "Unknown loss"),
                                        ({"metrics": ["acuracy"]}, "Unknown metric")])
def test_unknown_names_are_clear_errors(bad, match):
    kwargs = {"optimizer": "adam", "loss": "mse", "metrics": (), **bad}
    with pytest.raises(ValueError, match=match):
        Trainer(_classifier(), **kwargs)
