"""Repeated blocks' weights kept stacked: the same numbers as one entry per layer, and a
train state whose size in leaves does not grow with depth."""

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

X = jnp.asarray(np.random.default_rng(0).normal(size=(8, 16)), jnp.float32)


def _model(blocks=5, constraint=None):
    kg.utils.set_random_seed(0)
    x = kg.Input(shape=(16,))
    h = kg.layers.Dense(16, name="stem")(x)
    for i in range(blocks):
        h = Block(name=f"block{i}")(h)
    for i in range(4):
        h = kg.layers.Dense(16, activation="tanh", kernel_constraint=constraint,
                            name=f"dense{i}")(h)
    return kg.Model(x, kg.layers.Dense(3, name="head")(h))


def _equal(a, b):
    assert jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_stack_and_unstack_are_inverse_and_init_draws_the_same_values():
    program = compiler.compile(_model())
    assert [run.key for run in program.stacked_runs] == ["block0..block4", "dense0..dense3"]
    params, state = program.init(jax.random.PRNGKey(0))
    stacked = program.stack(params, state)
    assert sorted(stacked[0]) == ["block0..block4", "dense0..dense3", "head", "stem"]
    assert stacked[0]["block0..block4"]["dense"]["kernel"].shape == (5, 16, 32)
    assert stacked[1]["block0..block4"]["batch_normalization"]["moving_mean"].shape == (5, 16)
    np.testing.assert_array_equal(stacked[0]["dense0..dense3"]["kernel"][2],
                                  params["dense2"]["kernel"])
    _equal(program.unstack(*stacked), (params, state))
    _equal(program.init(jax.random.PRNGKey(0), stacked=True), stacked)
    _equal(program.stack(*stacked), stacked)  # already stacked: unchanged
    abstract = jax.eval_shape(program.stack, params, state)  # and abstractly
    assert abstract[0]["dense0..dense3"]["kernel"].shape == (4, 16, 16)


@pytest.mark.parametrize("training", [False, True])
def test_apply_in_the_stacked_layout_equals_the_named_layout(training):
    program = compiler.compile(_model())
    params, state = program.init(jax.random.PRNGKey(0))
    stacked_params, stacked_state = program.stack(params, state)

    def loss(params, state):
        out, new_state, aux = program.apply(params, state, X, training=training,
                                            key=jax.random.PRNGKey(7), return_losses=True)
        return jnp.sum(out ** 2) + aux, (out, new_state)

    (named, (out, new_state)), grads = jax.value_and_grad(loss, has_aux=True)(params, state)
    (value, (s_out, s_state)), s_grads = jax.value_and_grad(loss, has_aux=True)(
        stacked_params, stacked_state)
    assert abs(float(value) - float(named)) <= 1e-6 * abs(float(named))
    _close(s_out, out, 1e-6)
    _close(program.unstack(stacked_params, s_state)[1], new_state, 1e-6)  # BatchNorm stats
    _close(program.unstack(s_grads, {})[0], grads, 1e-6)  # each block's own gradient
    # the stacked arrays go into the scan as they are: no per-block slices or stacking
    jaxpr = str(jax.make_jaxpr(lambda p: loss(p, stacked_state)[0])(stacked_params))
    assert "scan[" in jaxpr and "concatenate" not in jaxpr


def test_a_block_outside_the_scan_reads_its_slice():
    program = compiler.compile(_model())
    params, state = program.init(jax.random.PRNGKey(0))
    stacked = program.stack(params, state)
    name = "block2"  # capturing a node inside a run runs the blocks one by one
    _, _, captured = program.apply(*stacked, X, capture=[name])
    _, _, expected = program.apply(params, state, X, capture=[name])
    _close(captured, expected, 0.0)
    _, new_state, _ = program.apply(*stacked, X, training=True, key=jax.random.PRNGKey(1),
                                 capture=[name])
    assert new_state["block0..block4"]["batch_normalization"]["moving_mean"].shape == (5, 16)


def test_constraints_apply_to_every_stacked_block():
    program = compiler.compile(_model(constraint="unit_norm"))
    params, state = program.init(jax.random.PRNGKey(0))
    grown = jax.tree_util.tree_map(lambda a: a * 3.0, params)
    named = program.constrain(grown)
    stacked = program.constrain(program.stack(grown, state)[0])
    _close(program.unstack(stacked, {})[0], named, 1e-6)
    norms = jnp.linalg.norm(stacked["dense0..dense3"]["kernel"], axis=1)
    np.testing.assert_allclose(norms, 1.0, rtol=1e-5)


def test_wrong_stacked_shapes_name_the_stacked_weight():
    program = compiler.compile(_model())
    params, state = program.stack(*program.init(jax.random.PRNGKey(0)))
    params["dense0..dense3"]["kernel"] = params["dense0..dense3"]["kernel"][:3]
    with pytest.raises(ValueError, match=r"params\['dense0..dense3/kernel'\].*expected shape "
                                         r"\(4, 16, 16\).*received shape \(3, 16, 16\)"):
        program.apply(params, state, X)
    named_params, _ = program.init(jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match="holds block 'block0' on its own while the other "
                                         "tree stacks the run 'block0..block4'"):
        program.apply(named_params, state, X)


def test_the_train_state_keeps_blocks_stacked_and_trains_like_unrolled():
    batches = [(X, jnp.asarray(np.random.default_rng(i).normal(size=(8, 3)), jnp.float32))
               for i in range(3)]
    trained, leaves = {}, {}
    for scan in (True, False):
        model = _model()
        adam = Trainer(model, "adam", "mse", scan_blocks=scan)  # Keras's: element-wise
        leaves[scan] = len(jax.tree_util.tree_leaves(adam.init(jax.random.PRNGKey(0)).opt_state))
        trainer = Trainer(model, optax.sgd(0.1), "mse", scan_blocks=scan, stack_blocks=scan)
        ts = trainer.init(jax.random.PRNGKey(0))
        if scan:
            assert "block0..block4" in ts.params and "block0..block4" in ts.state
        for batch in batches:
            ts, _ = trainer.train_step(ts, batch)
        trainer.write_back(ts)  # each block's weights back into its own layer
        trained[scan] = compiler.variables(model)
    _close(trained[True], trained[False], 1e-5)
    assert leaves[True] < leaves[False] / 2  # Adam's moments stacked too
    deeper = Trainer(_model(blocks=9), "adam", "mse").init(jax.random.PRNGKey(0))
    assert len(jax.tree_util.tree_leaves(deeper.opt_state)) == leaves[True]


def test_training_from_the_model_and_fit_go_through_the_stacked_layout():
    model = _model()
    before = compiler.variables(model)
    ts = Trainer(model, "sgd", "mse").init_from_model(jax.random.PRNGKey(0))
    np.testing.assert_array_equal(ts.params["dense0..dense3"]["kernel"][1],
                                  before[0]["dense1"]["kernel"])
    y = np.random.default_rng(1).normal(size=(8, 3)).astype("f4")
    weights, initial = [], _model().get_weights()
    for scan in (True, False):
        model = _model()
        model.set_weights(initial)
        model.compile("sgd", "mse", seed=3, scan_blocks=scan)
        model.fit(np.asarray(X), y, batch_size=4, epochs=1, verbose=0)
        weights.append(model.get_weights())
    _close(weights[0], weights[1], 1e-5)


def test_path_masks_see_block_paths_and_refuse_to_split_a_run():
    from runtime import mask_by_path

    params, _ = compiler.compile(_model()).init(jax.random.PRNGKey(0), stacked=True)
    decay = mask_by_path(lambda path: path[0].startswith("dense") and path[-1] == "kernel")
    mask = decay(params)
    assert mask["dense0..dense3"]["kernel"] and not mask["dense0..dense3"]["bias"]
    assert not mask["stem"]["kernel"]
    middle_one = mask_by_path(lambda path: path[0] != "dense2")
    with pytest.raises(ValueError, match="treats blocks 'dense2' and 'dense.' of the stacked "
                                         "run 'dense0..dense3' differently"):
        middle_one(params)


@pytest.mark.parametrize("optimizer, stacked", [
    ("adam", True), ("sgd", True),  # Keras's optimizers update element by element
    (kg.optimizers.SGD(0.1, clipnorm=0.05), False),  # a norm per weight
    ("adafactor", False),  # factored statistics per weight
    (optax.adam(1e-2), False),  # an optax transformation: unknown, unless stack_blocks=True
])
def test_blocks_stay_stacked_only_where_the_optimizer_allows(optimizer, stacked):
    trainer = Trainer(_model(), optimizer, "mse")
    assert trainer.stack_blocks is stacked
    ts = trainer.init(jax.random.PRNGKey(0))
    assert ("dense0..dense3" in ts.params) is stacked
    reference = Trainer(_model(), optimizer, "mse", stack_blocks=False)  # stacked in-step
    batch = (X, jnp.ones((8, 3)))
    ts, _ = trainer.train_step(ts, batch)
    ref, _ = reference.train_step(reference.init(jax.random.PRNGKey(0)), batch)
    _close(trainer.program.unstack(ts.params, ts.state), (ref.params, ref.state), 1e-5)


def test_a_checkpoint_of_stacked_blocks_restores_into_renamed_layers(tmp_path):
    from runtime import CheckpointManager

    def model(prefix):
        x = kg.Input(shape=(16,))
        h = x
        for i in range(4):
            h = kg.layers.Dense(16, activation="tanh", name=f"{prefix}{i}")(h)
        return kg.Model(x, h)

    saved_model = model("a")
    trainer = Trainer(saved_model, "adam", "mse")
    ts, _ = trainer.train_step(trainer.init(jax.random.PRNGKey(0)), (X, X))
    with CheckpointManager(tmp_path, model=saved_model) as checkpoints:
        checkpoints.save(1, ts)
    renamed = model("b")
    other = Trainer(renamed, "adam", "mse")
    abstract = jax.eval_shape(lambda: other.init(jax.random.PRNGKey(1)))
    restored = CheckpointManager(tmp_path, model=renamed).restore(abstract).train_state
    assert sorted(restored.params) == ["b0..b3"]
    np.testing.assert_array_equal(restored.params["b0..b3"]["kernel"],
                                  ts.params["a0..a3"]["kernel"])
    for a, b in zip(*map(jax.tree_util.tree_leaves, (restored.opt_state, ts.opt_state))):
        np.testing.assert_array_equal(a, b)  # the moments too, under the new key
    assert "b0..b3" in str(jax.tree_util.tree_structure(restored.opt_state))


def test_an_optimizer_subclass_is_not_assumed_element_wise():
    class Lamb(kg.optimizers.Optimizer):  # a trust ratio per weight
        _default_learning_rate, _default_name = 0.01, "lamb"

        @staticmethod
        def _rule(learning_rate):
            return optax.lamb(learning_rate)

    assert not Trainer(_model(), Lamb(), "mse").stack_blocks
    assert Trainer(_model(), kg.optimizers.AdamW(), "mse").stack_blocks


def test_a_checkpoint_of_one_layout_refuses_the_other_clearly(tmp_path):
    from runtime import CheckpointManager
    from runtime.checkpoints.manager import CheckpointMismatchError

    model = _model()
    stacked = Trainer(model, "adam", "mse")
    with CheckpointManager(tmp_path, model=model) as checkpoints:
        checkpoints.save(1, stacked.init(jax.random.PRNGKey(0)))
    named = Trainer(model, "adam", "mse", stack_blocks=False)
    abstract = jax.eval_shape(lambda: named.init(jax.random.PRNGKey(0)))
    with pytest.raises(CheckpointMismatchError, match=r"keeps repeated blocks stacked "
                                                      r"\(block0..block4, dense0..dense3\)"):
        CheckpointManager(tmp_path, model=model).restore(abstract)


def test_path_masks_with_two_models_planned_under_one_key():
    from runtime import mask_by_path

    def tower(middle):
        x = kg.Input(shape=(4,))
        h = x
        for name in ("first", f"{middle}1", f"{middle}2", "last"):
            h = kg.layers.Dense(4, name=name)(h)
        return kg.Model(x, h)

    compiler.compile(tower("x"))
    params, _ = compiler.compile(tower("y")).init(jax.random.PRNGKey(0), stacked=True)
    uniform = mask_by_path(lambda path: path[-1] == "kernel")(params)
    assert uniform["first..last"] == {"bias": False, "kernel": True}
    with pytest.raises(ValueError, match="different blocks under the stacked key"):
        mask_by_path(lambda path: path[0] != "y1")(params)
