"""Dtype policies: float32 weights with bfloat16 compute, as Keras's mixed_bfloat16."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import dtype_policy


def test_policy_names():
    assert dtype_policy.DTypePolicy("mixed_bfloat16").variable_dtype == jnp.float32
    assert dtype_policy.DTypePolicy("mixed_bfloat16").compute_dtype == jnp.bfloat16
    assert dtype_policy.DTypePolicy("bfloat16").variable_dtype == jnp.bfloat16
    assert dtype_policy.get(None) == dtype_policy.DTypePolicy("float32")


def test_mixed_bfloat16_keeps_float32_weights_and_computes_in_bfloat16():
    x = kg.Input(shape=(4,))
    y = kg.layers.Dense(3, dtype="mixed_bfloat16", name="d")(x)
    assert y.dtype == jnp.bfloat16
    model = kg.Model(x, y)
    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    assert params["d"]["kernel"].dtype == jnp.float32
    out, _ = program.apply(params, state, np.ones((2, 4), np.float32))
    assert out.dtype == jnp.bfloat16
    eager = model(np.ones((2, 4), np.float32))
    assert eager.dtype == jnp.bfloat16
    params, state = compiler.variables(model)
    np.testing.assert_array_equal(program.apply(params, state, np.ones((2, 4), np.float32))[0],
                                  eager)
    grads = jax.grad(lambda p: program.apply(p, state, jnp.ones((2, 4)))[0]
                     .astype(jnp.float32).sum())(params)
    assert grads["d"]["kernel"].dtype == jnp.float32


def test_integer_inputs_are_not_cast():
    layer = kg.layers.Activation("relu", dtype="bfloat16")
    assert layer(np.array([[1, -2]], np.int32)).dtype == jnp.int32


def test_global_policy_applies_to_new_layers():
    try:
        dtype_policy.set_global_policy("mixed_bfloat16")
        layer = kg.layers.Dense(2)
        assert layer.compute_dtype == jnp.bfloat16 and layer.dtype == jnp.float32
    finally:
        dtype_policy.set_global_policy("float32")
    assert kg.layers.Dense(2).compute_dtype == jnp.float32


@pytest.mark.parametrize("policy", ["bfloat16", "mixed_bfloat16"])
def test_batch_norm_statistics_stay_in_the_variable_dtype(policy):
    bn = kg.layers.BatchNormalization(dtype=policy)
    out = bn(np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32), training=True)
    assert out.dtype == jnp.bfloat16
    assert bn.weights[2].value.dtype == dtype_policy.get(policy).variable_dtype
