"""Each core layer's own behaviour (the generic checks are in test_conformance.py)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers


def cube(x):
    return x ** 3


# ------------------------------------------------------------------------- Dense
def _dense_reference(layer, values, activation):
    weights = layer.get_weights()
    out = values @ weights[0] + (weights[1] if len(weights) > 1 else 0.0)
    return activation(out)


@pytest.mark.parametrize("activation, reference", [
    ("relu", lambda v: np.maximum(v, 0)),
    ("sigmoid", lambda v: 1 / (1 + np.exp(-v))),
    (None, lambda v: v),
    (jnp.tanh, np.tanh),
    (cube, lambda v: v ** 3),
])
def test_dense_activation(activation, reference):
    layer = layers.Dense(3, activation=activation)
    values = np.random.default_rng(1).normal(size=(5, 2)).astype(np.float32)
    np.testing.assert_allclose(layer(values), _dense_reference(layer, values, reference),
                               rtol=1e-5, atol=1e-6)


def test_dense_use_bias_false():
    layer = layers.Dense(3, use_bias=False)
    x = kg.Input(shape=(2,))
    model = kg.Model(x, layer(x))
    assert [v.name for v in layer.weights] == ["kernel"]
    params, _ = compiler.compile(model).init(jax.random.PRNGKey(0))
    assert set(params["dense"]) == {"kernel"}
    values = np.ones((1, 2), np.float32)
    np.testing.assert_allclose(layer(values), values @ layer.get_weights()[0], rtol=1e-6)


def test_dense_rejects_bad_arguments():
    with pytest.raises(ValueError, match="positive integer"):
        layers.Dense(0)
    with pytest.raises(ValueError, match="Unknown activation 'nope'"):
        layers.Dense(2, activation="nope")
    with pytest.raises(ValueError, match="known last input dimension"):
        layers.Dense(2)(kg.Input(shape=(None,)))
    with pytest.raises(ValueError, match="Unknown initializer"):
        layers.Dense(2, kernel_initializer="nope")(kg.Input(shape=(3,)))


def test_activation_values():
    values = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(layers.Activation("relu")(values), np.maximum(values, 0))
    np.testing.assert_allclose(layers.Activation(cube)(values), values ** 3, rtol=1e-6)
    assert layers.Activation("softmax")(values).sum(axis=-1) == pytest.approx([1.0, 1.0])


# ----------------------------------------------------------------------- Dropout
def test_dropout_compiled_randomness(key):
    x = kg.Input(shape=(32,))
    model = kg.Model(x, layers.Dropout(0.25, name="drop")(x))
    program = compiler.compile(model)
    values = np.ones((4, 32), np.float32)
    params, state = program.init(key)
    a, _ = program.apply(params, state, values, training=True, key=key)
    b, _ = program.apply(params, state, values, training=True, key=key)
    c, _ = program.apply(params, state, values, training=True, key=jax.random.PRNGKey(9))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert set(np.unique(np.asarray(a))) == {0.0, np.float32(1 / 0.75)}
    np.testing.assert_array_equal(program.apply(params, state, values)[0], values)
    with pytest.raises(ValueError, match='Layer "drop" needs a random key'):
        program.apply(params, state, values, training=True)


def test_dropout_edge_rates():
    values = jnp.ones((2, 3))
    np.testing.assert_array_equal(layers.Dropout(0.0)(values, training=True), values)
    np.testing.assert_array_equal(layers.Dropout(1.0)(values, training=True), 0 * values)
    with pytest.raises(ValueError, match=r"Invalid value received for argument `rate`\. "
                                         r"Expected a float value between 0 and 1\. "
                                         r"Received: rate=1\.5"):  # Keras's message
        layers.Dropout(1.5)


def test_two_dropouts_get_different_keys(key):
    x = kg.Input(shape=(64,))
    model = kg.Model(x, [layers.Dropout(0.5)(x), layers.Dropout(0.5)(x)])
    out, _ = compiler.compile(model).apply({}, {}, np.ones((1, 64), np.float32),
                                           training=True, key=key)
    assert not np.array_equal(out[0], out[1])  # each layer derives its own key by name


# ------------------------------------------------------------ BatchNormalization
def _bn_model(momentum=0.5):
    x = kg.Input(shape=(3,))
    bn = layers.BatchNormalization(momentum=momentum, name="bn")
    return bn, kg.Model(x, bn(x))


def _batch(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(16, 3)) * [1.0, 2.0, 3.0] + [0.5, -1.0, 4.0]).astype(np.float32)


def test_batch_norm_moving_stats_are_state_not_params(key):
    bn, model = _bn_model()
    params, state = compiler.compile(model).init(key)
    assert set(params["bn"]) == {"gamma", "beta"}
    assert set(state["bn"]) == {"moving_mean", "moving_variance"}
    np.testing.assert_array_equal(state["bn"]["moving_mean"], np.zeros(3))
    np.testing.assert_array_equal(state["bn"]["moving_variance"], np.ones(3))


def test_batch_norm_updates_state_only_in_training(key, tree_equal):
    bn, model = _bn_model(momentum=0.5)
    program = compiler.compile(model)
    params, state = program.init(key)
    values = _batch()
    _, unchanged = program.apply(params, state, values, training=False)
    assert tree_equal(unchanged, state)
    out, new_state = program.apply(params, state, values, training=True)
    mean, var = values.mean(axis=0), values.var(axis=0)
    np.testing.assert_allclose(new_state["bn"]["moving_mean"], 0.5 * 0 + 0.5 * mean, rtol=1e-5)
    np.testing.assert_allclose(new_state["bn"]["moving_variance"], 0.5 * 1 + 0.5 * var,
                               rtol=1e-5)
    # training normalizes with the batch statistics
    np.testing.assert_allclose(out, (values - mean) / np.sqrt(var + 1e-3), rtol=1e-4,
                               atol=1e-5)


def test_batch_norm_inference_uses_moving_stats(key):
    bn, model = _bn_model()
    program = compiler.compile(model)
    params, state = program.init(key)
    params = {"bn": {"gamma": jnp.array([1.0, 2.0, 0.5]), "beta": jnp.array([0.0, 1.0, -1.0])}}
    state = {"bn": {"moving_mean": jnp.array([1.0, -1.0, 2.0]),
                    "moving_variance": jnp.array([4.0, 1.0, 0.25])}}
    values = _batch()
    out, _ = program.apply(params, state, values)
    expected = ((values - [1.0, -1.0, 2.0]) / np.sqrt(np.array([4.0, 1.0, 0.25]) + 1e-3)
                * [1.0, 2.0, 0.5] + [0.0, 1.0, -1.0])
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    compiler.assign(model, params, state)
    np.testing.assert_allclose(bn(values), expected, rtol=1e-5, atol=1e-5)


def test_batch_norm_eager_training_updates_stored_stats():
    bn = layers.BatchNormalization(momentum=0.75)
    values = _batch()
    bn(values)  # builds; inference: no update
    np.testing.assert_array_equal(bn.moving_mean, np.zeros(3))
    bn(values, training=False)
    np.testing.assert_array_equal(bn.moving_variance, np.ones(3))
    bn(values, training=True)
    np.testing.assert_allclose(bn.moving_mean, 0.25 * values.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance, 0.75 + 0.25 * values.var(axis=0), rtol=1e-5)
    bn(values, training=True)
    np.testing.assert_allclose(bn.moving_mean, (0.75 * 0.25 + 0.25) * values.mean(axis=0),
                               rtol=1e-5)


def test_frozen_batch_norm_runs_in_inference_mode(key, tree_equal):
    bn, model = _bn_model()
    bn.trainable = False
    program = compiler.compile(model)
    params, state = program.init(key)
    assert params == {} and set(state["bn"]) == {"gamma", "beta", "moving_mean",
                                                 "moving_variance"}
    values = _batch()
    out, new_state = program.apply(params, state, values, training=True)
    assert tree_equal(new_state, state)
    np.testing.assert_allclose(out, values / np.sqrt(1 + 1e-3), rtol=1e-5)


def test_batch_norm_needs_known_axis():
    with pytest.raises(ValueError, match="must exist and be known"):
        layers.BatchNormalization()(kg.Input(shape=(None,)))


# ---------------------------------------------------------- merging and reshaping
def test_add_and_concatenate_values():
    a, b, c = (np.full((2, 3), v, np.float32) for v in (1.0, 2.0, 4.0))
    np.testing.assert_array_equal(layers.Add()([a, b, c]), np.full((2, 3), 7.0))
    np.testing.assert_array_equal(layers.Concatenate()([a, b]), np.concatenate([a, b], -1))
    np.testing.assert_array_equal(layers.Concatenate(axis=0)([a, b]), np.concatenate([a, b], 0))


def test_merge_shape_errors():
    with pytest.raises(ValueError, match=r'Layer "add" \(Add\) received inputs with incompatible'):
        layers.Add()([kg.Input(shape=(3,)), kg.Input(shape=(4,))])
    with pytest.raises(ValueError, match=r'Layer "add_1" \(Add\): A merge layer should be called '
                                         r"on a list of inputs\. "
                                         r"Received: input_shape=\(None, 3\)"):
        layers.Add()(kg.Input(shape=(3,)))
    with pytest.raises(ValueError, match=r'Layer "concatenate": A `Concatenate` layer requires '
                                         r"inputs with matching shapes except for the "
                                         r"concatenation axis\. "
                                         r"Received: input_shape=\[\(None, 2, 3\), "
                                         r"\(None, 4, 3\)\]"):
        layers.Concatenate()([kg.Input(shape=(2, 3)), kg.Input(shape=(4, 3))])
    with pytest.raises(ValueError, match="equal rank"):
        layers.Concatenate()([kg.Input(shape=(2, 3)), kg.Input(shape=(3,))])


def test_flatten_and_reshape_shapes_and_values():
    values = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(layers.Flatten()(values), values.reshape(2, 12))
    assert layers.Flatten()(kg.Input(shape=(None, 4))).shape == (None, None)
    np.testing.assert_array_equal(layers.Reshape((-1, 3))(values), values.reshape(2, 4, 3))
    assert layers.Reshape((4, -1))(kg.Input(shape=(3, 4))).shape == (None, 4, 3)
    assert layers.Reshape((2, -1))(kg.Input(shape=(None, 4))).shape == (None, 2, None)


def test_reshape_errors():
    with pytest.raises(ValueError, match=r'Layer "reshape" \(Reshape\): There must be at most one '
                                         r"unknown dimension \(-1\) in `target_shape`\. "
                                         r"Received: target_shape=\(-1, -1\)"):
        layers.Reshape((-1, -1))
    with pytest.raises(ValueError, match=r"cannot reshape input of shape \(None, 5\)"):
        layers.Reshape((2, -1))(kg.Input(shape=(5,)))
    with pytest.raises(ValueError, match="total size must be unchanged"):
        layers.Reshape((2, 2))(kg.Input(shape=(5,)))
