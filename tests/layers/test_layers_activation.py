"""Activation layers and ``kgraph.activations`` against NumPy references."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import activations, layers

X = np.array([[-3.0, -1.0, -0.25, 0.0, 0.25, 0.75, 1.5, 7.0]], np.float32)


# ------------------------------------------------------------------ activations
def _erf(v):
    return np.vectorize(math.erf)(v)


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _softplus(v):
    return np.log1p(np.exp(v))


REFERENCES = {
    "linear": lambda v: v,
    "relu": lambda v: np.maximum(v, 0),
    "relu6": lambda v: np.clip(v, 0, 6),
    "leaky_relu": lambda v: np.where(v >= 0, v, 0.2 * v),
    "elu": lambda v: np.where(v > 0, v, np.expm1(v)),
    "selu": lambda v: 1.0507009873554805 * np.where(v > 0, v, 1.6732632423543772 * np.expm1(v)),
    "gelu": lambda v: 0.5 * v * (1 + _erf(v / np.sqrt(2))),
    "silu": lambda v: v * _sigmoid(v),
    "swish": lambda v: v * _sigmoid(v),
    "sigmoid": _sigmoid,
    "hard_sigmoid": lambda v: np.clip(v + 3, 0, 6) / 6,
    "hard_silu": lambda v: v * np.clip(v + 3, 0, 6) / 6,
    "hard_swish": lambda v: v * np.clip(v + 3, 0, 6) / 6,
    "tanh": np.tanh,
    "softmax": lambda v: np.exp(v) / np.exp(v).sum(-1, keepdims=True),
    "log_softmax": lambda v: v - np.log(np.exp(v).sum(-1, keepdims=True)),
    "softplus": _softplus,
    "softsign": lambda v: v / (1 + np.abs(v)),
    "exponential": np.exp,
    "mish": lambda v: v * np.tanh(_softplus(v)),
    "celu": lambda v: np.where(v > 0, v, np.expm1(v)),
    "log_sigmoid": lambda v: np.log(_sigmoid(v)),
    "hard_tanh": lambda v: np.clip(v, -1, 1),
    "tanh_shrink": lambda v: v - np.tanh(v),
    "soft_shrink": lambda v: np.where(v > 0.5, v - 0.5, np.where(v < -0.5, v + 0.5, 0)),
    "hard_shrink": lambda v: np.where(np.abs(v) > 0.5, v, 0),
    "squareplus": lambda v: (v + np.sqrt(v ** 2 + 4)) / 2,
    "sparse_plus": lambda v: np.where(v <= -1, 0, np.where(v >= 1, v, (v + 1) ** 2 / 4)),
    "sparse_sigmoid": lambda v: np.where(v <= -1, 0, np.where(v >= 1, 1, (v + 1) / 2)),
    "glu": lambda v: v[..., :4] * _sigmoid(v[..., 4:]),
    "sparsemax": lambda v: np.maximum(v - 6.0, 0),  # support {7.0}: tau = 7 - 1
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_activation_by_name_matches_numpy(name):
    fn = activations.get(name)
    np.testing.assert_allclose(fn(X), REFERENCES[name](X.astype(np.float64)), rtol=1e-5,
                               atol=1e-6)
    assert activations.get(activations.name_of(fn)) is fn


def test_every_registered_activation_is_tested():
    assert set(activations._BY_NAME) == set(REFERENCES)


def test_sparsemax_projects_onto_the_simplex():
    x = np.array([[0.1, 1.1, 0.5, -2.0], [3.0, 3.0, 3.0, 3.0]], np.float32)
    out = np.asarray(activations.sparsemax(x))
    np.testing.assert_allclose(out, [[0.0, 0.8, 0.2, 0.0], [0.25] * 4], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(activations.sparsemax(x.T, axis=0), out.T, rtol=1e-6,
                               atol=1e-7)


def test_keras_defaults_differ_from_jax_nn():
    # Keras 3: exact gelu, leaky_relu slope 0.2 (jax.nn: tanh approximation, 0.01)
    assert not np.allclose(activations.gelu(X), jax.nn.gelu(X), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(activations.gelu(X), jax.nn.gelu(X, approximate=False))
    np.testing.assert_allclose(activations.leaky_relu(X)[0, 0], -0.6)


def test_relu_arguments_match_keras_formula():
    out = activations.relu(X, negative_slope=0.1, max_value=2.0, threshold=0.5)
    expected = np.where(X > 0.5, np.minimum(X, 2.0), 0.0) - 0.1 * np.maximum(0.5 - X, 0)
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_get_and_name_of():
    assert activations.get(None) is activations.linear
    assert activations.get(jnp.sin) is jnp.sin
    assert activations.get({"class_name": "function", "config": "relu"}) is activations.relu
    assert activations.name_of(jax.nn.relu) == "relu"
    assert activations.serialize(activations.get("swish")) == "silu"
    with pytest.raises(ValueError, match="Unknown activation 'nope'"):
        activations.get("nope")


# ------------------------------------------------------------------------- layers
@pytest.mark.parametrize("kwargs", [
    {}, {"max_value": 1.0}, {"negative_slope": 0.2}, {"threshold": 0.5},
    {"max_value": 6.0, "negative_slope": 0.05, "threshold": 1.0},
])
def test_relu_layer(kwargs):
    slope, cap, t = kwargs.get("negative_slope", 0.0), kwargs.get("max_value"), kwargs.get(
        "threshold", 0.0)
    expected = np.where(X > t, X if cap is None else np.minimum(X, cap), 0.0)
    expected = expected - slope * np.maximum(t - X, 0)
    np.testing.assert_allclose(layers.ReLU(**kwargs)(X), expected, rtol=1e-6, atol=1e-7)


def test_relu_layer_errors():
    with pytest.raises(ValueError, match="max_value"):
        layers.ReLU(max_value=-1.0)
    with pytest.raises(ValueError, match="negative_slope"):
        layers.ReLU(negative_slope=-0.1)
    with pytest.raises(ValueError, match="threshold"):
        layers.ReLU(threshold=None)


def test_leaky_relu_default_slope_and_deprecated_alpha():
    np.testing.assert_allclose(layers.LeakyReLU()(X), np.where(X >= 0, X, 0.3 * X), rtol=1e-6)
    with pytest.warns(UserWarning, match="alpha"):
        layer = layers.LeakyReLU(alpha=0.1)
    assert layer.get_config()["negative_slope"] == 0.1
    with pytest.raises(ValueError, match="negative_slope"):
        layers.LeakyReLU(-1)


def test_elu_layer_alpha():
    np.testing.assert_allclose(layers.ELU(alpha=0.5)(X), np.where(X > 0, X, 0.5 * np.expm1(X)),
                               rtol=1e-6)
    assert layers.ELU(alpha=0.5).get_config()["alpha"] == 0.5


def test_prelu_weights_values_and_shared_axes():
    layer = layers.PReLU(shared_axes=[1, 2])
    x = np.random.default_rng(0).normal(size=(2, 3, 4, 5)).astype(np.float32)
    assert np.array_equal(layer(x), np.maximum(x, 0))  # alpha starts at zero (Keras "Zeros")
    assert [(v.name, v.shape) for v in layer.weights] == [("alpha", (1, 1, 5))]
    alpha = np.linspace(0.1, 0.5, 5, dtype=np.float32).reshape(1, 1, 5)
    layer.set_weights([alpha])
    np.testing.assert_allclose(layer(x), np.where(x > 0, x, alpha * x), rtol=1e-6)
    # shared axes may be unknown: one graph for any height/width
    dynamic = layers.PReLU(shared_axes=[1, 2])(kg.Input(shape=(None, None, 5)))
    assert dynamic.shape == (None, None, None, 5)
    with pytest.raises(ValueError, match="known non-batch"):
        layers.PReLU()(kg.Input(shape=(None, 5)))


def test_prelu_alpha_is_trained_with_constraint():
    layer = layers.PReLU(alpha_initializer=0.5, alpha_constraint="non_neg",
                         alpha_regularizer="l2", name="prelu")
    x_in = kg.Input(shape=(3,))
    model = kg.Model(x_in, layer(x_in))
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    data = -np.ones((2, 3), np.float32)
    grads = jax.grad(lambda p: program.apply(p, state, data)[0].sum())(params)
    np.testing.assert_allclose(grads["prelu"]["alpha"], [-2.0, -2.0, -2.0])
    _, _, losses = program.apply(params, state, data, return_losses=True)
    np.testing.assert_allclose(losses, 0.01 * 3 * 0.25, rtol=1e-6)
    assert layer.get_config()["alpha_constraint"] == {"class_name": "NonNeg", "config": {}}


def test_softmax_masks_positions_and_sums_to_one():
    x = np.random.default_rng(0).normal(size=(2, 5)).astype(np.float32)
    mask = np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 1]], bool)
    out = np.asarray(layers.Softmax()(x, mask=mask))
    np.testing.assert_array_equal(out[~mask], 0.0)
    np.testing.assert_allclose(out.sum(-1), 1.0, rtol=1e-6)
    e = np.where(mask, np.exp(x), 0.0)
    np.testing.assert_allclose(out, e / e.sum(-1, keepdims=True), rtol=1e-5)
    # float masks are thresholded at 0.5; broadcasting masks are accepted
    np.testing.assert_allclose(layers.Softmax()(x, mask=mask.astype(np.float32)), out)
    col = np.array([[True, False, True, True, True]])
    assert np.all(np.asarray(layers.Softmax()(x, mask=col))[:, 1] == 0)
    with pytest.raises(ValueError, match="broadcastable"):
        layers.Softmax()(x, mask=np.ones((2, 4), bool))


def test_softmax_over_several_axes_and_in_bfloat16():
    x = np.random.default_rng(1).normal(size=(2, 3, 4)).astype(np.float32)
    out = np.asarray(layers.Softmax(axis=[1, 2])(x))
    np.testing.assert_allclose(out.sum(axis=(1, 2)), 1.0, rtol=1e-6)
    half = layers.Softmax(dtype="bfloat16")(x)
    assert half.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(half, np.float32),
                               np.asarray(layers.Softmax()(x)), atol=4e-3)


def test_softmax_uses_graph_masks():
    class MakeMask(kg.Layer):
        def call(self, inputs):
            return inputs

        def compute_mask(self, inputs, mask=None):
            return inputs != 0

    x_in = kg.Input(shape=(4,))
    model = kg.Model(x_in, layers.Softmax()(MakeMask()(x_in)))
    data = np.array([[1.0, 0.0, 2.0, 0.0]], np.float32)
    out, _ = jax.jit(compiler.compile(model).apply)({}, {}, data)
    e = np.exp([1.0, 0.0, 2.0, 0.0]) * [1, 0, 1, 0]
    np.testing.assert_allclose(out, [e / e.sum()], rtol=1e-6)
