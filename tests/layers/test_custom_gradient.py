"""Layers with jax.custom_vjp gradients, checked against finite differences."""

import jax
import jax.numpy as jnp
import numpy as np

import compiler
import kgraph as kg
from kgraph import layers


def _finite_difference(f, x, eps=1e-3):
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        grad[index] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


def test_stable_norm_gradient_matches_finite_differences_and_is_finite_at_zero():
    x = kg.Input(shape=(3,))
    model = kg.Model(x, layers.Dense(1, name="head")(layers.StableNorm(name="norm")(
        layers.Dense(3, name="proj")(x))))
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    data = np.random.default_rng(0).normal(size=(2, 3))

    def loss(values):
        return float(program.apply(params, state, values.astype(np.float32))[0].sum())

    analytic = jax.grad(lambda v: program.apply(params, state, v)[0].sum())(
        jnp.asarray(data, jnp.float32))
    np.testing.assert_allclose(analytic, _finite_difference(loss, data), rtol=2e-2, atol=2e-3)
    at_zero = jax.grad(lambda v: layers.StableNorm()(v).sum())(jnp.zeros((1, 3)))
    assert np.all(np.isfinite(at_zero)) and np.all(at_zero == 0)
    naive = jax.grad(lambda v: jnp.linalg.norm(v, axis=-1).sum())(jnp.zeros((1, 3)))
    assert not np.all(np.isfinite(naive))  # what the custom rule fixes


def test_clip_gradient_clips_per_sample_and_is_identity_forward():
    layer = layers.ClipGradient(clip_norm=1.0)
    data = jnp.array([[3.0, 4.0], [0.3, 0.4]])
    np.testing.assert_array_equal(layer(data), data)
    grads = jax.grad(lambda v: jnp.sum(layer(v) * jnp.array([[3.0, 4.0], [0.3, 0.4]])))(data)
    np.testing.assert_allclose(grads, [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)  # norm 5 -> 1


def test_clip_gradient_inside_a_compiled_program():
    x = kg.Input(shape=(2,))
    model = kg.Model(x, layers.ClipGradient(0.5)(layers.Dense(2, name="d")(x)))
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    grads = jax.jit(jax.grad(lambda p: 100.0 * program.apply(p, state, jnp.ones((1, 2)))[0]
                             .sum()))(params)
    np.testing.assert_allclose(jnp.linalg.norm(grads["d"]["bias"]), 0.5, rtol=1e-5)
