"""Repeated blocks run as one lax.scan: the unrolled program's numbers, compiled once."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import compiler
import kgraph as kg
from runtime import Trainer
from tests.helpers import ResidualBlock as Block
from tests.helpers import close_relative as _close


def _model(blocks=5, flips=()):
    kg.utils.set_random_seed(0)
    x = kg.Input(shape=(16,))
    h = kg.layers.Dense(16, name="stem")(x)
    for i in range(blocks):
        h = Block(flip=i in flips)(h)
    return kg.Model(x, kg.layers.Dense(3, name="head")(h))


X = jnp.asarray(np.random.default_rng(0).normal(size=(8, 16)), jnp.float32)


def _runs(program, training):
    params, state = program.init(jax.random.PRNGKey(0))

    def loss(params):
        out, new_state, aux = program.apply(params, state, X, training=training,
                                            key=jax.random.PRNGKey(7), return_losses=True)
        return jnp.sum(out ** 2) + aux, (out, new_state)

    (value, (out, new_state)), grads = jax.value_and_grad(loss, has_aux=True)(params)
    jaxpr = str(jax.make_jaxpr(lambda p: loss(p)[0])(params))
    return params, value, out, new_state, grads, jaxpr


@pytest.mark.parametrize("training", [False, True])
def test_scanned_blocks_compute_the_unrolled_numbers(training):
    model = _model()
    scanned, unrolled = compiler.compile(model), compiler.compile(model, scan_blocks=False)
    assert [len(run.nodes) for run in scanned.block_runs] == [5] and not unrolled.block_runs
    s, u = _runs(scanned, training), _runs(unrolled, training)
    _close(s[0], u[0], 0.0)  # program.init: the same values
    assert abs(float(s[1]) - float(u[1])) <= 1e-5 * max(1.0, abs(float(u[1])))
    _close(s[2], u[2], 1e-5)  # outputs (dropout masks: each block's own keys)
    _close(s[3], u[3], 1e-5)  # BatchNormalization statistics, per block
    _close(s[4], u[4], 1e-5)  # gradients reach each block's own params
    assert "scan[" in s[5] and "length=5" in s[5] and "scan[" not in u[5]


def test_blocks_that_differ_beyond_their_config_stay_unrolled():
    model = _model(flips=(3,))  # one block subtracts: same config, another computation
    program = compiler.compile(model)
    assert [len(run.nodes) for run in program.block_runs] == [5]  # a candidate ...
    s, u = _runs(program, True), _runs(compiler.compile(model, scan_blocks=False), True)
    assert "scan[" not in s[5]  # ... that the traces show is not one computation
    _close(s[2], u[2], 0.0)


def test_capturing_a_node_inside_a_run_sees_it():
    model = _model()
    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    name = model.layers[3].name  # the second block
    _, _, captured = program.apply(params, state, X, capture=[name])
    unrolled = compiler.compile(model, scan_blocks=False)
    _, _, expected = unrolled.apply(params, state, X, capture=[name])
    _close(captured, expected, 0.0)


def test_remat_on_scanned_blocks_saves_memory_with_the_same_numbers():
    class Wide(kg.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.up, self.down = kg.layers.Dense(256, activation="tanh"), kg.layers.Dense(64)

        def call(self, x):
            return x + self.down(self.up(x))

    def model():
        kg.utils.set_random_seed(0)
        x = kg.Input(shape=(64,))
        h = x
        for _ in range(6):
            h = Wide()(h)
        return kg.Model(x, h)

    batch = (jnp.ones((256, 64)), jnp.zeros((256, 64)))
    reports, states = [], []
    for remat in (None, {r"wide.*": "nothing_saveable"}):
        trainer = Trainer(model(), optax.sgd(0.01), "mse", remat=remat)
        ts = trainer.init(jax.random.PRNGKey(0))
        reports.append(trainer.memory_report(ts, batch)["temp"])
        states.append(trainer.train_step(ts, batch)[0])
    assert reports[1] < 0.75 * reports[0], reports
    _close(states[0].params, states[1].params, 1e-6)
