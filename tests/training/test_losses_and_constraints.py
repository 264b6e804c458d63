"""add_loss, activity and weight regularizers, and weight constraints."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import compiler
import kgraph as kg
from kgraph import constraints, regularizers
from runtime import Trainer


class Penalized(kg.Layer):
    """Identity that adds 0.5 * sum(x) to the loss."""

    def call(self, inputs):
        self.add_loss(0.5 * jnp.sum(inputs))
        return inputs


def test_add_loss_is_collected_purely_and_eagerly():
    x = kg.Input(shape=(3,))
    model = kg.Model(x, Penalized(name="pen")(x))
    program = compiler.compile(model)
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    out, state, losses = program.apply({}, {}, data, return_losses=True)
    np.testing.assert_allclose(losses, 0.5 * data.sum())
    assert len(program.apply({}, {}, data)) == 2  # the default contract is unchanged
    layer = model.get_layer("pen")
    layer(data)
    assert len(layer.losses) == 1 and float(layer.losses[0]) == pytest.approx(7.5)


def test_weight_and_activity_regularizers_add_to_losses():
    x = kg.Input(shape=(2,))
    dense = kg.layers.Dense(2, name="d", kernel_initializer="ones",
                            activity_regularizer=regularizers.L1(0.1))
    model = kg.Model(x, dense(x))
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    data = np.ones((3, 2), np.float32)
    _, _, losses = program.apply(params, state, data, return_losses=True)
    np.testing.assert_allclose(losses, 0.1 * 4.0, rtol=1e-6)  # |[2, 2]| per sample, as Keras


def test_regularized_weight_penalty_and_gradient():
    class Scale(kg.Layer):
        def build(self, input_shape):
            self.w = self.add_weight((input_shape[-1],), "ones", regularizer="l2")

        def call(self, inputs):
            return inputs * self.w

    x = kg.Input(shape=(3,))
    program = compiler.compile(kg.Model(x, Scale(name="s")(x)))
    params, state = program.init(jax.random.PRNGKey(0))
    _, _, losses = program.apply(params, state, np.ones((1, 3), np.float32), return_losses=True)
    np.testing.assert_allclose(losses, 0.01 * 3.0, rtol=1e-6)
    grad = jax.grad(lambda p: program.apply(p, state, np.zeros((1, 3), np.float32),
                                            return_losses=True)[2])(params)
    np.testing.assert_allclose(grad["s"]["w"], 0.02 * np.ones(3), rtol=1e-6)


def test_trainer_minimizes_the_aux_loss_and_applies_constraints():
    class Bounded(kg.Layer):
        def build(self, input_shape):
            self.w = self.add_weight((input_shape[-1],), "ones", regularizer=regularizers.L2(1.0),
                                     constraint=constraints.NonNeg())

        def call(self, inputs):
            return inputs * self.w

    x = kg.Input(shape=(2,))
    model = kg.Model(x, Bounded(name="b")(x))
    trainer = Trainer(model, optax.sgd(0.3), "mse")
    ts = trainer.init(jax.random.PRNGKey(0))
    data = np.zeros((4, 2), np.float32)  # the data loss is 0: only the penalty moves w
    for _ in range(10):
        ts, logs = trainer.train_step(ts, (data, data))
    w = np.asarray(ts.params["b"]["w"])
    assert np.all(w >= 0) and np.all(w < 0.05)
    assert float(logs["loss"]) == pytest.approx(float(np.sum(w ** 2)) / (1 - 0.6) ** 2, rel=1e-5)


def test_constraints_by_name():
    w = jnp.array([[3.0, -4.0]])
    np.testing.assert_allclose(constraints.get("non_neg")(w), [[3.0, 0.0]])
    np.testing.assert_allclose(jnp.linalg.norm(constraints.get("unit_norm")(w), axis=0),
                               [1.0, 1.0], rtol=1e-5)
    clipped = constraints.MaxNorm(2.0, axis=1)(w)
    np.testing.assert_allclose(jnp.linalg.norm(clipped), 2.0, rtol=1e-5)
    with pytest.raises(ValueError, match="Unknown constraint"):
        constraints.get("nope")


def test_regularizer_configs_round_trip():
    reg = regularizers.L1L2(0.1, 0.2)
    again = regularizers.get(regularizers.serialize(reg))
    assert isinstance(again, regularizers.L1L2) and again.get_config() == reg.get_config()
    layer = kg.layers.Dense(2, activity_regularizer="l2")
    assert layer.get_config()["activity_regularizer"] == {"class_name": "L2",
                                                          "config": {"l2": 0.01}}
