"""``JaxLayer`` / ``FlaxLayer``: plain JAX functions, Equinox modules and Flax Linen modules
inside kgraph graphs, against Keras's own ``JaxLayer`` / ``FlaxLayer`` on the same
weights: the same outputs, the same training steps (state included), one pure program."""

import equinox as eqx
import flax.linen as nn
import jax
import jax.numpy as jnp
import keras
import numpy as np
import pytest

import compiler
import kgraph as kg

_X = np.random.default_rng(0).normal(size=(32, 4)).astype("float32")
_Y = np.random.default_rng(1).normal(size=(32, 3)).astype("float32")


def _affine(params, inputs):
    return jnp.tanh(inputs @ params["w"] + params["b"])


def _params():
    rng = np.random.default_rng(2)
    return {"w": rng.normal(size=(4, 3)).astype("float32"), "b": np.zeros(3, "float32")}


def _stateful(params, state, inputs, training):
    """An affine map that keeps a running mean of its inputs while training."""
    mean = jnp.where(training, 0.9 * state["mean"] + 0.1 * inputs.mean(0), state["mean"])
    return (inputs - mean) @ params["w"] + params["b"], {"mean": mean}


def _fit(K, layer):
    x = K.Input(shape=(4,))
    model = K.Model(x, layer(x))
    model.compile(optimizer=K.optimizers.SGD(0.1), loss="mse")
    history = model.fit(_X, _Y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    return model, history.history["loss"]


@pytest.mark.parametrize("case", ["params", "state"])
def test_a_jax_function_trains_as_under_keras(case):
    runs = {}
    for K in (keras, kg):
        if case == "params":
            layer = K.layers.JaxLayer(_affine, params=_params())
        else:
            layer = K.layers.JaxLayer(_stateful, params=_params(),
                                      state={"mean": np.zeros(4, "float32")})
        runs[K] = _fit(K, layer)
    (ours, ours_loss), (theirs, theirs_loss) = runs[kg], runs[keras]
    np.testing.assert_allclose(ours_loss, theirs_loss, rtol=1e-5)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-5, atol=1e-6)
    assert ours.count_params() == theirs.count_params()
    params, state = compiler.variables(ours)
    out, _ = jax.jit(compiler.compile(ours).apply)(params, state, _X)
    np.testing.assert_allclose(np.asarray(out), np.asarray(theirs.predict(_X, verbose=0)),
                               rtol=1e-5, atol=1e-6)


def test_init_fn_builds_from_the_input_shape():
    def init(rng, inputs):
        return {"w": jax.random.normal(rng, (inputs.shape[-1], 3)), "b": jnp.zeros(3)}

    layer = kg.layers.JaxLayer(_affine, init, seed=3)
    x = kg.Input(shape=(4,))
    model = kg.Model(x, layer(x))
    assert model.count_params() == 15
    expected = np.asarray(jax.random.normal(jax.random.PRNGKey(3), (4, 3)))
    np.testing.assert_allclose(np.asarray(layer.params["w"].value), expected, rtol=1e-6)
    with pytest.raises(ValueError, match="unsupported argument"):
        kg.layers.JaxLayer(lambda params, inputs, x: x, params={})
    with pytest.raises(ValueError, match="cannot all be None"):
        kg.layers.JaxLayer(_affine)


def test_an_equinox_module_in_a_graph():
    mlp = eqx.nn.MLP(4, 3, width_size=8, depth=2, key=jax.random.PRNGKey(0))
    params, static = eqx.partition(mlp, eqx.is_array)

    def call(params, inputs):
        return jax.vmap(eqx.combine(params, static))(inputs)

    expected = np.asarray(jax.vmap(mlp)(_X))
    outputs = {}
    for K in (keras, kg):
        x = K.Input(shape=(4,))
        model = K.Model(x, K.layers.JaxLayer(
            call, params=jax.tree_util.tree_map(np.array, params))(x))
        outputs[K] = np.asarray(model.predict(_X, verbose=0))
        assert model.count_params() == sum(a.size for a in jax.tree_util.tree_leaves(params))
    np.testing.assert_allclose(outputs[kg], expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outputs[kg], outputs[keras], rtol=1e-5, atol=1e-6)


class _Block(nn.Module):
    @nn.compact
    def __call__(self, inputs, training=False):
        hidden = nn.Dense(8)(inputs)
        hidden = nn.BatchNorm(use_running_average=not training, momentum=0.9)(hidden)
        return nn.Dense(3)(nn.relu(hidden))


def test_a_flax_module_trains_as_under_keras():
    variables = _Block().init(jax.random.PRNGKey(0), _X[:2])
    runs = {K: _fit(K, K.layers.FlaxLayer(  # a copy each: Keras's fit donates its buffers
        _Block(), variables=jax.tree_util.tree_map(np.array, variables))) for K in (keras, kg)}
    (ours, ours_loss), (theirs, theirs_loss) = runs[kg], runs[keras]
    np.testing.assert_allclose(ours_loss, theirs_loss, rtol=1e-5)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):  # batch_stats too
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-5, atol=1e-6)
    assert len(ours.non_trainable_weights) == 2  # the running mean and variance
    moved = [w for w in ours.non_trainable_weights if not np.allclose(w.value, 0.0)]
    assert moved


def test_a_flax_module_builds_with_dropout_keys():
    class Noisy(nn.Module):
        @nn.compact
        def __call__(self, inputs, training=False):
            return nn.Dropout(0.5, deterministic=not training)(nn.Dense(3)(inputs))

    x = kg.Input(shape=(4,))
    model = kg.Model(x, kg.layers.FlaxLayer(Noisy())(x))
    assert model.count_params() == 15
    inference = np.asarray(model(_X))
    np.testing.assert_allclose(inference, np.asarray(model(_X)))
    trained = np.asarray(model(_X, training=True))
    assert np.mean(trained == 0) > 0.3  # dropout drew its key
