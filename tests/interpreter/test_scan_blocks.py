"""Repeated blocks run as one lax.scan: the unrolled program's numbers, compiled once."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import compiler
import kgraph as kg
from runtime import Trainer
from tests.support.helpers import ResidualBlock as Block
from tests.support.helpers import close_relative as _close


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


# ------------------------------------------------ blocks proven equal, or left unrolled
def _both(model, x, training=False):
    """(scanned output, unrolled output, whether the default program scanned)."""
    scanned, unrolled = compiler.compile(model), compiler.compile(model, scan_blocks=False)
    params, state = scanned.init(jax.random.PRNGKey(0))
    compiler.assign(model, params, state)  # eager calls see the same weights
    key = jax.random.PRNGKey(3)

    def run(program):
        return program.apply(params, state, x, training=training, key=key)

    text = str(jax.make_jaxpr(lambda: run(scanned))())
    return run(scanned), run(unrolled), "scan[" in text


def test_dense_blocks_with_different_callable_activations_run_their_own_code():
    x = kg.Input(shape=(1,))
    h = x
    for i in range(4):  # four configs that all say "<lambda>"
        h = kg.layers.Dense(1, activation=lambda t, i=i: t * (i + 1),
                            kernel_initializer="ones", bias_initializer="zeros")(h)
    model = kg.Model(x, h)
    ones = np.ones((1, 1), np.float32)
    assert float(model(ones)[0, 0]) == 24.0
    assert float(model.predict(ones, verbose=0)[0, 0]) == 24.0
    (scanned, _), (unrolled, _), did_scan = _both(model, ones)
    assert float(scanned[0, 0]) == float(unrolled[0, 0]) == 24.0 and not did_scan


def test_equal_callable_activations_still_scan():
    x = kg.Input(shape=(4,))
    h = x
    for _ in range(4):
        h = kg.layers.Dense(4, activation=lambda t: jnp.tanh(t) * 2.0)(h)
    (scanned, _), (unrolled, _), did_scan = _both(kg.Model(x, h), np.ones((2, 4), np.float32))
    assert did_scan
    _close(scanned, unrolled, 1e-6)


class _Tabled(kg.layers.Layer):
    def __init__(self, table, **kwargs):
        super().__init__(**kwargs)
        self.table = table  # a NumPy constant, not in the config

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], input_shape[-1]), initializer="ones")

    def call(self, x):
        return x @ self.w * self.table


@pytest.mark.parametrize("wrapped", [False, True])
def test_blocks_differing_only_in_a_constant_held_as_an_attribute_stay_apart(wrapped):
    tables = [np.full((3,), 0.5, np.float32) for _ in range(4)]
    tables[2] = tables[2] * 3.0  # the same shape, another value
    x = kg.Input(shape=(2, 3) if wrapped else (3,))
    h = x
    for table in tables:
        layer = _Tabled(table)
        h = (kg.layers.TimeDistributed(layer) if wrapped else layer)(h)
    model = kg.Model(x, h)
    data = np.ones((2, 2, 3) if wrapped else (2, 3), np.float32)
    (scanned, _), (unrolled, _), did_scan = _both(model, data)
    assert not did_scan
    _close(scanned, unrolled, 0.0)
    _close(scanned, model(data), 1e-6)


def test_a_call_site_training_flag_yields_to_the_runs_flag_inside_a_scan():
    x = kg.Input(shape=(4,))
    h = x
    for _ in range(4):
        h = Block(units=4)(h, training=True)  # recorded at the call site
    model = kg.Model(x, h)
    data = np.random.default_rng(1).normal(size=(6, 4)).astype(np.float32)
    (scanned, scanned_state), (unrolled, unrolled_state), did_scan = _both(model, data)
    assert did_scan
    _close(scanned, unrolled, 1e-5)  # inference: no dropout, moving statistics
    _close(scanned_state, unrolled_state, 0.0)  # and no statistics updated
    _close(scanned, model(data, training=False), 1e-5)


def test_a_layer_shared_by_every_block_chains_its_updates_as_unrolled():
    norm = kg.layers.BatchNormalization(momentum=0.5)
    x = kg.Input(shape=(4,))
    h = x
    for _ in range(4):
        h = kg.Sequential([kg.layers.Dense(4), norm])(h)
    model = kg.Model(x, h)
    assert compiler.compile(model).block_runs == []  # not candidates: they share state
    data = np.random.default_rng(2).normal(size=(6, 4)).astype(np.float32)
    (scanned, state), (unrolled, expected_state), _ = _both(model, data, training=True)
    _close(scanned, unrolled, 1e-6)
    _close(state, expected_state, 1e-6)  # four updates chained, not the last one alone


def test_a_block_layer_called_again_after_its_run_keeps_its_run_unrolled():
    x = kg.Input(shape=(4,))
    blocks = [kg.layers.Dense(4, activation="tanh") for _ in range(5)]
    h = x
    for block in blocks:
        h = block(h)
    model = kg.Model(x, blocks[0](h))
    runs = compiler.compile(model).block_runs
    assert all(blocks[0] not in run.layers for run in runs)
    assert [len(run.nodes) for run in runs] == [4]  # blocks 1..4 still run as one scan


class _Sampling(kg.layers.Layer):
    """A user block holding Dropout: it draws keys in training."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense, self.drop = kg.layers.Dense(4), kg.layers.Dropout(0.5)

    def call(self, x, training=None):
        return x + self.drop(self.dense(x), training=training)


def test_user_blocks_holding_dropout_scan_with_the_unrolled_keys_in_training():
    x = kg.Input(shape=(4,))
    h = x
    for _ in range(5):
        h = _Sampling()(h)
    model = kg.Model(x, h)
    data = np.ones((3, 4), np.float32)
    (scanned, _), (unrolled, _), did_scan = _both(model, data, training=True)
    assert did_scan
    _close(scanned, unrolled, 1e-6)


def _custom_relu(slope):
    @jax.custom_jvp
    def relu(t):
        return jnp.maximum(t, 0.0)

    @relu.defjvp
    def _(primals, tangents):
        return relu(primals[0]), tangents[0] * slope  # a deliberately unusual rule

    return relu


def test_blocks_whose_custom_derivative_rules_differ_stay_apart():
    x = kg.Input(shape=(3,))
    h = x
    for slope in (1.0, 1.0, 5.0, 1.0):
        h = kg.layers.Dense(3, activation=_custom_relu(slope))(h)
    model = kg.Model(x, h)
    scanned, unrolled = compiler.compile(model), compiler.compile(model, scan_blocks=False)
    params, state = scanned.init(jax.random.PRNGKey(0))
    data = np.ones((2, 3), np.float32)

    def grads(program):
        return jax.grad(lambda p: jnp.sum(program.apply(p, state, data)[0]))(params)

    _close(grads(scanned), grads(unrolled), 1e-6)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def _scaled_gradient(scale, t):
    return t


_scaled_gradient.defvjp(lambda scale, t: (t, None),
                        lambda scale, _, g: (g * scale,))  # a deliberately unusual rule


class _GradientScaledDense(kg.layers.Layer):
    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.dense = kg.layers.Dense(3, activation="tanh")

    def call(self, x):
        return _scaled_gradient(self.scale, self.dense(x))

    def get_config(self):  # the scale left out: blocks differ beyond their config
        return super().get_config()


@pytest.mark.parametrize("scales, scans", [((2.0,) * 4, True), ((2.0, 2.0, 5.0, 2.0), False)])
def test_blocks_with_custom_vjp_rules_scan_when_the_rules_are_equal(scales, scans):
    """A ``custom_vjp`` (``ops.dot_product_attention`` on long sequences has one) is the
    same computation in two blocks when its rules and what is bound to them are: such
    blocks scan; blocks whose backward rules differ only in a static argument stay apart."""
    x = kg.Input(shape=(3,))
    h = x
    for scale in scales:
        h = _GradientScaledDense(scale)(h)
    model = kg.Model(x, h)
    scanned, unrolled = compiler.compile(model), compiler.compile(model, scan_blocks=False)
    assert [len(run.nodes) for run in scanned.block_runs] == [4]  # candidates all
    params, state = scanned.init(jax.random.PRNGKey(0))
    data = np.ones((2, 3), np.float32)

    def grads(program):
        return jax.grad(lambda p: jnp.sum(program.apply(p, state, data)[0]))(params)

    jaxpr = str(jax.make_jaxpr(lambda: grads(scanned))())
    assert ("scan[" in jaxpr and "length=4" in jaxpr) == scans
    _close(grads(scanned), grads(unrolled), 1e-6)


class _CausalSelfAttention(kg.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = kg.layers.Dense(4)

    def call(self, x):
        q = kg.ops.expand_dims(self.dense(x), 2)
        return x + kg.ops.squeeze(kg.ops.dot_product_attention(q, q, q, is_causal=True), 2)


def test_blocks_of_long_attention_scan():
    """Attention over 1,024 positions runs by blocks of query rows (a custom gradient):
    four such blocks still scan, with the unrolled numbers."""
    x = kg.Input(shape=(1024, 4))
    h = x
    for _ in range(4):
        h = _CausalSelfAttention()(h)
    model = kg.Model(x, h)
    scanned, unrolled = compiler.compile(model), compiler.compile(model, scan_blocks=False)
    params, state = scanned.init(jax.random.PRNGKey(0))
    data = jnp.asarray(np.random.default_rng(0).normal(size=(2, 1024, 4)), jnp.float32)

    def loss(program):
        return lambda p: jnp.sum(jnp.sin(program.apply(p, state, data)[0]))

    assert "length=4" in str(jax.make_jaxpr(loss(scanned))(params))
    _close(loss(scanned)(params), loss(unrolled)(params), 1e-5)
    _close(jax.grad(loss(scanned))(params), jax.grad(loss(unrolled))(params), 1e-5)


class _ConvBlock(kg.layers.Layer):
    """A residual block of convolutions (pixelcnn's, ResNet's)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.conv = kg.layers.Conv2D(4, 3, padding="same", activation="relu")

    def call(self, x):
        return x + self.conv(x)


@pytest.mark.parametrize("convolves", [False, True])
def test_blocks_that_convolve_run_unrolled_on_cpu(convolves):
    """XLA:CPU runs convolutions inside a loop in a slow layout (a residual conv model
    of 5 blocks took 36 s a step scanned, 0.6 s unrolled): there a run of blocks that
    convolve is one scan fully unrolled; other runs stay a loop. Same numbers either way."""
    x = kg.Input((6, 6, 4))
    h = x
    for i in range(5):
        h = _ConvBlock(name=f"conv_block_{i}")(h) if convolves else Block(4, name=f"b{i}")(h)
    model = kg.Model(x, h)
    program = compiler.compile(model)
    assert len(program.block_runs) == 1
    params, state = program.init(jax.random.PRNGKey(0))
    images = np.random.default_rng(0).normal(size=(2, 6, 6, 4)).astype(np.float32)
    loops = "stablehlo.while" in jax.jit(lambda p: program.apply(p, state, images)[0]).lower(
        params).as_text()
    assert loops is (not convolves or jax.default_backend() != "cpu")
    unrolled = compiler.compile(model, scan_blocks=False)
    np.testing.assert_allclose(program.apply(params, state, images)[0],
                               unrolled.apply(params, state, images)[0], rtol=1e-5, atol=1e-6)
