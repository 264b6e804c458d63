"""The generic layer conformance checks, run over every case in ``tests/layer_cases``.

A ``LayerCase`` says how to make a layer and what to feed it; each ``check_*`` function
asserts one property every layer of the catalog must have (as Keras's run_layer_test).
To add a layer to the catalog, add a case to a ``CASES`` list in ``tests/layer_cases``.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

import compiler
import kgraph as kg

BATCH = 3


@dataclasses.dataclass
class LayerCase:
    """How to test one layer configuration.

    Attributes:
      name: test id.
      factory: ``factory(**extra) -> layer``; ``extra`` may hold ``dtype=...``.
      input_shape: input shape without the batch axis; a list of shapes for a list input.
      input_dtype: dtype of the generated inputs ("float32", or an integer type).
      input_range: (low, high) for integer inputs.
      float_range: (low, high) for uniform float inputs (default: N(0.5, 2) samples).
      call_kwargs: extra keyword arguments for every call.
      random: the output is random in training (needs a key; differs across keys).
      training_changes_output: deterministic, but training output differs (BatchNorm).
      bad_input_shape: an input shape (no batch axis) of a rank the layer must refuse.
      serializable: get_config/from_config round trip applies.
      differentiable: gradients with respect to the weights exist and are finite.
      bfloat16: the layer runs under the bfloat16 and mixed_bfloat16 policies.
      rtol, atol: tolerance for compiled == eager.
    """

    name: str
    factory: Callable
    input_shape: tuple | list
    input_dtype: str = "float32"
    input_range: tuple = (0, 10)
    float_range: tuple | None = None
    call_kwargs: dict = dataclasses.field(default_factory=dict)
    random: bool = False
    training_changes_output: bool = False
    bad_input_shape: tuple | None = None
    serializable: bool = True
    differentiable: bool = True
    bfloat16: bool = True
    rtol: float = 1e-5
    atol: float = 1e-5


def _is_multi(case):
    return isinstance(case.input_shape, list)


def make_inputs(case, seed=0, batch=BATCH, shape=None):
    """Arrays for ``case`` (a list for a list input)."""
    rng = np.random.default_rng(seed)
    shapes = case.input_shape if shape is None else shape
    shapes = shapes if isinstance(shapes, list) else [shapes]
    arrays = []
    for s in shapes:
        if np.issubdtype(np.dtype(case.input_dtype), np.integer):
            arrays.append(rng.integers(*case.input_range, size=(batch, *s)).astype(case.input_dtype))
        elif case.float_range is not None:
            arrays.append(rng.uniform(*case.float_range, size=(batch, *s)).astype(case.input_dtype))
        else:
            arrays.append((rng.normal(size=(batch, *s)) * 2 + 0.5).astype(case.input_dtype))
    return arrays if _is_multi(case) else arrays[0]


def build(case, **extra):
    """``(layer, symbolic_output, model)`` for ``case``."""
    layer = case.factory(**extra)
    shapes = case.input_shape if _is_multi(case) else [case.input_shape]
    inputs = [kg.Input(shape=s, dtype=case.input_dtype) for s in shapes]
    inputs = inputs if _is_multi(case) else inputs[0]
    out = layer(inputs, **case.call_kwargs)
    return layer, out, kg.Model(inputs, out)


def _allclose(a, b, rtol, atol):
    leaves_a, tree_a = jax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    assert tree_a == tree_b, f"output structures differ: {tree_a} vs {tree_b}"
    for x, y in zip(leaves_a, leaves_b):
        x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
        assert x.shape == y.shape, f"shapes differ: {x.shape} vs {y.shape}"
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)


def check_shapes_and_compiled(case):
    """Symbolic shape/dtype == eager; jitted compiled apply == eager call; state unchanged."""
    layer, symbolic, model = build(case)
    values = make_inputs(case)
    eager = layer(values, **case.call_kwargs)
    for s, e in zip(jax.tree_util.tree_leaves(symbolic), jax.tree_util.tree_leaves(eager)):
        assert isinstance(e, jax.Array)
        assert len(s.shape) == e.ndim, f"symbolic {s.shape} vs eager {e.shape}"
        assert all(d is None or d == v for d, v in zip(s.shape, e.shape)), (s.shape, e.shape)
        assert s.shape[0] is None, f"the batch axis must stay unknown: {s.shape}"
        assert s.dtype == e.dtype, f"symbolic dtype {s.dtype} vs eager {e.dtype}"
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    out, new_state = jax.jit(program.apply)(params, state, values)
    _allclose(out, eager, case.rtol, case.atol)
    _allclose(new_state, state, 0, 0)


def check_training(case, key=jax.random.PRNGKey(1)):
    """The training flag is honoured; compiled training == eager training call."""
    layer, _, model = build(case)
    values = make_inputs(case)
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    inference, _ = program.apply(params, state, values)
    trained, new_state = program.apply(params, state, values, training=True, key=key)
    _allclose(compiler.variables(model)[1], state, 0, 0)  # apply mutated nothing
    eager = model(values, training=True, key=key)
    _allclose(trained, eager, case.rtol, case.atol)
    _allclose(compiler.variables(model)[1], new_state, case.rtol, case.atol)
    same = all(np.array_equal(a, b) for a, b in zip(jax.tree_util.tree_leaves(inference),
                                                    jax.tree_util.tree_leaves(trained)))
    if case.random:
        again, _ = program.apply(params, state, values, training=True, key=key)
        other, _ = program.apply(params, state, values, training=True,
                                 key=jax.random.PRNGKey(7))
        _allclose(again, trained, 0, 0)
        assert not all(np.array_equal(a, b) for a, b in zip(
            jax.tree_util.tree_leaves(other), jax.tree_util.tree_leaves(trained)))
    if case.random or case.training_changes_output:
        assert not same, "training=True should change the output"
    else:
        assert same, "training=True should not change the output of this layer"


def check_config_round_trip(case):
    """from_config(get_config()) rebuilds an equal layer that computes the same."""
    if not case.serializable:
        return
    layer, _, _ = build(case)
    values = make_inputs(case)
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    clone(values, **case.call_kwargs)  # build
    clone.set_weights(layer.get_weights())
    _allclose(clone(values, **case.call_kwargs), layer(values, **case.call_kwargs),
              case.rtol, case.atol)


def check_gradients(case):
    """Jitted gradients with respect to every weight and the float inputs are finite."""
    if not case.differentiable:
        return
    _, _, model = build(case)
    values = make_inputs(case)
    program = compiler.compile(model)
    params, state = compiler.variables(model)

    def total(p, x):
        out, _ = program.apply(p, state, x, training=case.random, key=jax.random.PRNGKey(0))
        return sum(jnp.sum(jnp.asarray(o, jnp.float32)) for o in jax.tree_util.tree_leaves(out))

    differentiable_inputs = np.issubdtype(np.dtype(case.input_dtype), np.floating)
    argnums = (0, 1) if differentiable_inputs else 0
    grads = jax.jit(jax.grad(total, argnums=argnums))(params, values)  # weights and inputs
    for g in jax.tree_util.tree_leaves(grads):
        assert np.all(np.isfinite(np.asarray(g, np.float32)))


def check_bfloat16(case):
    """Under bfloat16 and mixed_bfloat16 the layer computes in bfloat16, weights as told."""
    if not case.bfloat16:
        return
    values = make_inputs(case)
    for policy, weight_dtype in (("bfloat16", jnp.bfloat16), ("mixed_bfloat16", jnp.float32)):
        layer, symbolic, _ = build(case, dtype=policy)
        eager = layer(values, **case.call_kwargs)
        for s, e in zip(jax.tree_util.tree_leaves(symbolic), jax.tree_util.tree_leaves(eager)):
            assert s.dtype == e.dtype
            if jnp.issubdtype(e.dtype, jnp.floating):
                assert e.dtype == jnp.bfloat16, f"{policy}: output dtype {e.dtype}"
                assert np.all(np.isfinite(np.asarray(e, np.float32)))
        for v in layer.weights:
            if jnp.issubdtype(v.dtype, jnp.floating):
                assert v.dtype == weight_dtype, f"{policy}: weight {v.path} is {v.dtype}"


def check_bad_rank(case):
    """An input of the wrong rank raises a ValueError naming the layer."""
    if case.bad_input_shape is None:
        return
    layer, _, _ = build(case)
    bad = make_inputs(case, shape=case.bad_input_shape)
    try:
        layer(bad, **case.call_kwargs)
    except ValueError as error:
        assert f'"{layer.name}"' in str(error), str(error)
    else:
        raise AssertionError(f"{layer.name} accepted input of shape {np.shape(bad)}")


CHECKS = [check_shapes_and_compiled, check_training, check_config_round_trip, check_gradients,
          check_bfloat16, check_bad_rank]
