"""Runs of repeated blocks that take a shared side input, and runs inside nested models
(a KerasHub task model around its backbone): scanned and stacked with the unrolled
program's numbers."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import compiler
import kgraph as kg
from runtime import CheckpointManager, Trainer, mask_by_path
from tests.support.helpers import ResidualBlock as Block
from tests.support.helpers import close_relative as _close

WIDTH = 8
X = jnp.asarray(np.random.default_rng(0).normal(size=(4, WIDTH)), jnp.float32)
Y = jnp.asarray(np.random.default_rng(1).normal(size=(4, 3)), jnp.float32)


class Gated(kg.layers.Layer):
    """A block of two inputs: ``a`` and ``b`` (both of width ``WIDTH``)."""

    def build(self, input_shape):
        self.w = self.add_weight(shape=(WIDTH, WIDTH))

    def call(self, a, b):
        return a + jnp.tanh(a @ self.w) * jax.nn.sigmoid(b)


def _gated_model(layout, blocks=5, odd=None):
    kg.utils.set_random_seed(0)
    x = kg.Input(shape=(WIDTH,))
    h = kg.layers.Dense(WIDTH, name="stem")(x)
    side = kg.layers.Dense(WIDTH, name="side")(x)
    other = kg.layers.Dense(WIDTH, name="other")(x)
    for i in range(blocks):
        given = other if i == odd else side
        block = Gated(name=f"gated{i}")
        h = {"carry first": lambda: block(h, given), "carry second": lambda: block(given, h),
             "by keyword": lambda: block(h, b=given)}[layout]()
    return kg.Model(x, kg.layers.Dense(3, name="head")(h))


def _loss_and_grads(program, params, state):
    def loss(params):
        out, _ = program.apply(params, state, X, training=True, key=jax.random.PRNGKey(1))
        return jnp.sum(out ** 2)

    return jax.value_and_grad(loss)(params), str(jax.make_jaxpr(loss)(params))


@pytest.mark.parametrize("layout", ["carry first", "carry second", "by keyword"])
def test_blocks_sharing_a_side_input_scan_with_it_as_a_loop_invariant(layout):
    model = _gated_model(layout)
    scanned, unrolled = compiler.compile(model), compiler.compile(model, scan_blocks=False)
    [run] = scanned.block_runs
    assert len(run.nodes) == 5 and run.carry == (1 if layout == "carry second" else 0)
    params, state = scanned.init(jax.random.PRNGKey(0))
    (value, grads), jaxpr = _loss_and_grads(scanned, params, state)
    (expected, expected_grads), unrolled_jaxpr = _loss_and_grads(unrolled, params, state)
    assert "scan[" in jaxpr and "scan[" not in unrolled_jaxpr
    _close(value, expected, 1e-5)
    _close(grads, expected_grads, 1e-5)  # the side input's producer gets every block's share


def test_a_block_given_another_side_input_ends_the_run():
    runs = compiler.compile(_gated_model("carry first", blocks=9, odd=4)).block_runs
    assert [[node.layer.name for node in run.nodes] for run in runs] == [
        [f"gated{i}" for i in range(4)], [f"gated{i}" for i in range(5, 9)]]


def _nested(blocks=5, twice=False, reuse=False):
    kg.utils.set_random_seed(0)
    inner_x = kg.Input(shape=(16,))
    h = inner_x
    made = [Block(name=f"block{i}") for i in range(blocks)]
    for block in made:
        h = block(h)
    inner = kg.Model(inner_x, h, name="inner")
    x = kg.Input(shape=(16,))
    h = inner(kg.layers.Dense(16, name="stem")(x))
    if twice:
        h = inner(h)
    if reuse:
        h = made[2](h)  # a block's layer called again, outside the nested model
    return kg.Model(x, kg.layers.Dense(3, name="head")(h))


X16 = jnp.asarray(np.random.default_rng(0).normal(size=(8, 16)), jnp.float32)


def test_runs_in_a_nested_model_scan_and_stack_in_its_entry():
    model = _nested()
    program = compiler.compile(model)
    [run] = program.block_runs
    assert run.graph is model.get_layer("inner") and run.prefix == ("inner",)
    params, state = program.init(jax.random.PRNGKey(0))
    stacked = program.stack(params, state)
    assert sorted(stacked[0]["inner"]) == ["block0..block4"]
    assert stacked[0]["inner"]["block0..block4"]["dense"]["kernel"].shape == (5, 16, 32)
    assert sorted(stacked[0]) == ["head", "inner", "stem"]
    _close(program.unstack(*stacked), (params, state), 0.0)
    _close(program.init(jax.random.PRNGKey(0), stacked=True), stacked, 0.0)
    unrolled = compiler.compile(model, scan_blocks=False)
    for training in (False, True):
        run = jax.jit(lambda p, s: program.apply(p, s, X16, training=training,
                                                 key=jax.random.PRNGKey(3)))
        expected, expected_state = unrolled.apply(params, state, X16, training=training,
                                                  key=jax.random.PRNGKey(3))
        for layout in ((params, state), stacked):
            out, new_state = run(*layout)
            _close(out, expected, 1e-5)
            _close(program.unstack(new_state, new_state)[0], expected_state, 1e-5)
    assert "while" in program.lower(*stacked, X16).as_text()


def test_a_trainer_keeps_nested_blocks_stacked_and_trains_like_unrolled():
    trained = {}
    for scan in (True, False):
        model = _nested()
        trainer = Trainer(model, optax.sgd(0.1), "mse", scan_blocks=scan, stack_blocks=scan)
        ts = trainer.init(jax.random.PRNGKey(0))
        assert ("block0..block4" in ts.params["inner"]) is scan
        for _ in range(3):
            ts, _ = trainer.train_step(ts, (X16, Y[:, :3].repeat(2, axis=0)))
        trainer.write_back(ts)
        trained[scan] = compiler.variables(model)
    _close(trained[True], trained[False], 1e-5)
    adam = Trainer(_nested(), "adam", "mse").init(jax.random.PRNGKey(0))
    deeper = Trainer(_nested(blocks=9), "adam", "mse").init(jax.random.PRNGKey(0))
    assert len(jax.tree_util.tree_leaves(deeper.opt_state)) == len(
        jax.tree_util.tree_leaves(adam.opt_state))  # Adam's moments stacked too


def test_a_nested_model_called_twice_or_sharing_a_block_keeps_those_blocks_unrolled():
    # each call's blocks would chain their state across the two calls: no run
    assert compiler.compile(_nested(twice=True)).block_runs == []
    # block2 is also used outside its graph: the run is the blocks after it
    runs = compiler.compile(_nested(blocks=9, reuse=True)).block_runs
    assert [[n.layer.name for n in run.nodes] for run in runs] == [
        [f"block{i}" for i in range(3, 9)]]


def test_path_masks_and_checkpoints_see_nested_stacked_runs(tmp_path):
    model = _nested()
    trainer = Trainer(model, "adam", "mse")
    ts = trainer.init(jax.random.PRNGKey(0))
    mask = mask_by_path(lambda path: path[-1] == "kernel" and path[:2] != ("inner", "block9"))
    assert mask(ts.params)["inner"]["block0..block4"]["dense"]["kernel"]
    with pytest.raises(ValueError, match="treats blocks 'block1' and 'block.' of the stacked "
                                         "run 'block0..block4' differently"):
        mask_by_path(lambda path: path[:2] != ("inner", "block1"))(ts.params)
    ts, _ = trainer.train_step(ts, (X16, jnp.ones((8, 3))))
    with CheckpointManager(tmp_path, model=model) as checkpoints:
        checkpoints.save(1, ts)
    abstract = jax.eval_shape(lambda: trainer.init(jax.random.PRNGKey(1)))
    restored = CheckpointManager(tmp_path, model=model).restore(abstract).train_state
    _close(restored.params, ts.params, 0.0)
    _close(restored.opt_state, ts.opt_state, 0.0)
    named = Trainer(model, "adam", "mse", stack_blocks=False)
    with pytest.raises(Exception, match=r"stacked \(inner/block0..block4\)"):
        CheckpointManager(tmp_path, model=model).restore(
            jax.eval_shape(lambda: named.init(jax.random.PRNGKey(0))))


def _agree_with_unrolled(model, tolerance=1e-5):
    """The model's scanned program equals the unrolled one, outputs and new state, in the
    named and the stacked layouts, in training (BatchNormalization statistics, dropout)."""
    program, unrolled = compiler.compile(model), compiler.compile(model, scan_blocks=False)
    params, state = program.init(jax.random.PRNGKey(0))
    key = jax.random.PRNGKey(3)
    expected = unrolled.apply(params, state, X16, training=True, key=key)
    got = program.apply(params, state, X16, training=True, key=key)
    _close(got, expected, tolerance)
    out, new_state = program.apply(*program.stack(params, state), X16, training=True, key=key)
    _close((out, program.unstack(new_state, new_state)[0]), expected, tolerance)
    return program


def test_a_layer_of_a_run_called_again_where_the_graph_does_not_show_it():
    kg.utils.set_random_seed(0)
    x = kg.Input(shape=(16,))
    blocks = [Block(name=f"s{i}") for i in range(4)]
    h = x
    for block in blocks:
        h = block(h)
    again = kg.layers.Lambda(lambda t: blocks[3](t))(h)  # holds no weight of its own
    program = _agree_with_unrolled(kg.Model(x, again))
    assert [len(run.nodes) for run in program.block_runs] == [4]  # scanned, then again


def test_a_nested_model_called_again_inside_a_lambda_keeps_its_state_sequential():
    model = _nested(blocks=4)
    inner = model.get_layer("inner")
    x = kg.Input(shape=(16,))
    model = kg.Model(x, kg.layers.Lambda(lambda t: inner(t))(inner(x)))
    program = _agree_with_unrolled(model)
    assert [run.prefix for run in program.block_runs] == [("inner",)]


def test_runs_inside_the_blocks_of_a_stacked_run_stay_unstacked():
    kg.utils.set_random_seed(0)

    def block_model(number):
        x = kg.Input(shape=(16,))
        h = x
        for i in range(4):
            h = Block(name=f"s{i}")(h)
        return kg.Model(x, h, name=f"blk{number}")

    x = kg.Input(shape=(16,))
    h = kg.layers.Dense(16, name="stem")(x)
    for number in range(4):
        h = block_model(number)(h)
    program = _agree_with_unrolled(kg.Model(x, kg.layers.Dense(3, name="head")(h)))
    assert [run.path for run in program.stacked_runs] == [("blk0..blk3",)]
    assert sorted(program.init(jax.random.PRNGKey(0), stacked=True)[0]) == [
        "blk0..blk3", "head", "stem"]


def test_a_model_whose_call_is_its_own_code_has_no_runs():
    class Twice(kg.Model):
        def call(self, x, training=None):
            return super().call(super().call(x, training=training), training=training)

    x = kg.Input(shape=(16,))
    h = x
    for i in range(4):
        h = Block(name=f"s{i}")(h)
    model = Twice(x, h)
    model(X16)
    assert compiler.compile(model).block_runs == []
