"""Layers run inside ``lax.scan`` (an RNN's cell) may add losses and assign state: each
step runs in a fresh scope and its effects are carried out of the loop, eagerly and
under ``program.apply`` / ``jax.jit``, as if the steps had been unrolled."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers

STEPS = 5


class CountingCell(kg.Layer):
    """Adds a loss and increments a counter at every step."""

    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = [units]
        self.output_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight((input_shape[-1], self.units))
        self.steps = self.add_weight((), initializer="zeros", trainable=False)

    def call(self, x, states, training=None):
        self.add_loss(jnp.mean(x ** 2))
        self.steps = self.steps + 1.0
        h = jnp.tanh(x @ self.kernel + states[0])
        return h, [h]


def _inputs():
    return jnp.asarray(np.random.default_rng(0).normal(size=(2, STEPS, 3)), jnp.float32)


def _expected_loss(x):
    return float(sum(jnp.mean(x[:, t] ** 2) for t in range(STEPS)))


@pytest.mark.parametrize("jit", [False, True])
def test_losses_and_state_from_a_scanned_cell_reach_apply(jit, key):
    x_in = kg.Input(shape=(STEPS, 3))
    model = kg.Model(x_in, layers.RNN(CountingCell(name="cell"), name="rnn")(x_in))
    program = compiler.compile(model)
    params, state = program.init(key)
    run = jax.jit(program.apply, static_argnames=("return_losses",)) if jit else program.apply
    x = _inputs()
    out, new_state, loss = run(params, state, x, return_losses=True)
    assert out.shape == (2, 2)
    np.testing.assert_allclose(loss, _expected_loss(x), rtol=1e-5)
    assert float(new_state["rnn"]["cell"]["steps"]) == STEPS
    _, again, _ = run(params, new_state, x, return_losses=True)  # state carries on
    assert float(again["rnn"]["cell"]["steps"]) == 2 * STEPS


def test_losses_and_state_from_a_scanned_cell_in_an_eager_call():
    rnn = layers.RNN(CountingCell())
    x = _inputs()
    rnn(x)
    np.testing.assert_allclose(sum(rnn.losses), _expected_loss(x), rtol=1e-5)
    assert float(rnn.cell.steps) == STEPS


def test_gradients_flow_through_a_scanned_add_loss(key):
    class Penalised(CountingCell):
        def call(self, x, states, training=None):
            self.add_loss(jnp.sum(self.kernel ** 2))
            return super().call(x, states, training)

    x_in = kg.Input(shape=(STEPS, 3))
    program = compiler.compile(kg.Model(x_in, layers.RNN(Penalised(name="cell"), name="rnn")(x_in)))
    params, state = program.init(key)

    def aux_loss(p):
        return program.apply(p, state, _inputs(), return_losses=True)[2]

    grads = jax.grad(aux_loss)(params)["rnn"]["cell"]["kernel"]
    kernel = params["rnn"]["cell"]["kernel"]
    np.testing.assert_allclose(grads, 2 * STEPS * kernel, rtol=1e-5)
