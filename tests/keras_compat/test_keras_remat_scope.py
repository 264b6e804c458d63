"""``RematScope`` / ``remat`` as Keras's: layers made in a scope rematerialize their calls
(a ``remat`` in the traced program) by the scope's mode, with the same outputs and
gradients as without it, in eager calls and in a compiled program."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg

_X = np.random.default_rng(0).normal(size=(4, 8)).astype("float32")


def _model(scope):
    x = kg.Input(shape=(8,))
    with scope:
        big = kg.layers.Dense(512, activation="relu", name="big")
        small = kg.layers.Dense(2, activation="tanh", name="small")
    outer = kg.layers.Dense(3, name="outer")
    return kg.Model(x, outer(small(big(x))))


def _remat_count(model):
    program = compiler.compile(model)
    params, state = compiler.variables(model)

    def loss(params):
        return jnp.sum(program.apply(params, state, _X)[0])

    jaxpr = str(jax.make_jaxpr(jax.grad(loss))(params))
    return jaxpr.count("remat"), jax.grad(loss)(params)


@pytest.mark.parametrize("scope,expected", [
    (kg.RematScope(mode="full"), 2),
    (kg.RematScope(mode="list_of_layers", layer_names=["small"]), 1),
    (kg.RematScope(mode="larger_than", output_size_threshold=1024), 1),  # big: 4 x 512
    (kg.RematScope(mode="activations"), 2),
    (kg.RematScope(mode=None), 0),
])
def test_the_scope_decides_which_calls_rematerialize(scope, expected):
    kg.utils.set_random_seed(0)
    model = _model(scope)
    kg.utils.set_random_seed(0)
    plain = _model(kg.RematScope(mode=None))
    plain.set_weights(model.get_weights())
    count, grads = _remat_count(model)
    _, plain_grads = _remat_count(plain)
    assert count == expected  # one remat per rematerialized call in the gradient's program
    np.testing.assert_allclose(np.asarray(model(_X)), np.asarray(plain(_X)), rtol=1e-6)
    for a, b in zip(jax.tree_util.tree_leaves(grads), jax.tree_util.tree_leaves(plain_grads)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


def test_remat_wraps_a_function_and_bad_modes_are_refused():
    fn = kg.remat(lambda x: jnp.sin(x) ** 2)
    assert "remat" in str(jax.make_jaxpr(fn)(1.0))
    with pytest.raises(ValueError, match="Invalid mode"):
        kg.RematScope(mode="some")


def test_a_rematerialized_layer_keeps_its_state_updates_and_losses():
    # BatchNormalization assigns its moving statistics and the Dense adds an activity loss
    # inside the rematerialized call: both must leave jax.checkpoint
    def model(scope):
        kg.utils.set_random_seed(1)
        x = kg.Input(shape=(8,))
        with scope:
            h = kg.layers.Dense(4, activity_regularizer="l2")(x)
            h = kg.layers.BatchNormalization()(h)
        result = kg.Model(x, h)
        result.compile(optimizer="sgd", loss="mse")
        result.fit(_X, np.ones((4, 4), "float32"), epochs=2, batch_size=4, verbose=0)
        return result

    remat, plain = model(kg.RematScope(mode="full")), model(kg.RematScope(mode=None))
    moving = [w for w in remat.weights if "moving" in w.path]
    assert moving and not np.allclose(np.asarray(moving[0].value), 0.0)
    for a, b in zip(remat.get_weights(), plain.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
