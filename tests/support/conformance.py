"""The generic layer conformance checks, run over every case in ``tests/support/layer_cases``.

A ``LayerCase`` says how to make a layer and what to feed it; each ``check_*`` function
asserts one property every layer of the catalog must have (as Keras's run_layer_test).
To add a layer to the catalog, add a case to a ``CASES`` list in ``tests/support/layer_cases``.
A check that does not apply to a case (a Lambda's config, finite differences of a clipped
gradient) is reported as skipped with the reason the case gives in ``LayerCase.skip``.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

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
      grad_tol: tolerance of autodiff against finite differences (float32, central
        differences of step ``grad_eps``).
      skip: check name (``"gradients"``, ``"finite_differences"``, ...) -> why that check
        does not apply to this case; the check is reported as skipped with that reason.
        ``serializable``/``differentiable``/``bfloat16`` set to False skip their check too.
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
    grad_tol: float = 1e-2
    grad_eps: float = 1e-3
    skip: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        defaults = {"config_round_trip": (self.serializable,
                                          "the case sets serializable=False"),
                    "gradients": (self.differentiable, "the case sets differentiable=False"),
                    "bfloat16": (self.bfloat16, "the case sets bfloat16=False")}
        for check, (applies, reason) in defaults.items():
            if not applies:
                self.skip.setdefault(check, reason)
                if check == "gradients":
                    self.skip.setdefault("finite_differences", reason)


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


def check(fn):
    """A conformance check: skipped, with the case's reason, where ``case.skip`` names it."""
    name = fn.__name__.removeprefix("check_")

    @functools.wraps(fn)
    def run(case):
        if name in case.skip:
            pytest.skip(f"{name} does not apply to {case.name}: {case.skip[name]}")
        return fn(case)

    return run


def _allclose(a, b, rtol, atol):
    leaves_a, tree_a = jax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    assert tree_a == tree_b, f"output structures differ: {tree_a} vs {tree_b}"
    for x, y in zip(leaves_a, leaves_b):
        x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
        assert x.shape == y.shape, f"shapes differ: {x.shape} vs {y.shape}"
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)


@check
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


@check
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


@check
def check_config_round_trip(case):
    """from_config(get_config()) rebuilds an equal layer that computes the same."""
    layer, _, _ = build(case)
    values = make_inputs(case)
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    clone(values, **case.call_kwargs)  # build
    clone.set_weights(layer.get_weights())
    _allclose(clone(values, **case.call_kwargs), layer(values, **case.call_kwargs),
              case.rtol, case.atol)


_DIFFERENTIABLE = {}


def _differentiable_function(case):
    """``(f, args)``: the jitted compiled apply as ``f(params, *float_inputs) -> float outputs``
    (integer inputs, the state and the key held fixed), at the case's inputs.

    Made once per case and process, so that the two gradient checks of a case share the
    compiled forward and backward passes (test_conformance runs a case's checks together)."""
    if case.name not in _DIFFERENTIABLE:
        _DIFFERENTIABLE[case.name] = _make_differentiable_function(case)
    f, args = _DIFFERENTIABLE[case.name]
    if f is None:
        pytest.skip(f"{case.name}: nothing to differentiate (integer inputs, no trainable weight)")
    return f, args


def _make_differentiable_function(case):
    _, _, model = build(case)
    values = make_inputs(case)
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    inputs = values if _is_multi(case) else [values]
    floats = [i for i, v in enumerate(inputs) if np.issubdtype(v.dtype, np.floating)]
    if not floats and not jax.tree_util.tree_leaves(params):
        return None, None

    @jax.jit
    def f(p, *float_inputs):
        full = list(inputs)
        for i, x in zip(floats, float_inputs):
            full[i] = x
        out, _ = program.apply(p, state, full if _is_multi(case) else full[0],
                               training=case.random, key=jax.random.PRNGKey(0))
        return [jnp.asarray(o, jnp.float32) for o in jax.tree_util.tree_leaves(out)
                if jnp.issubdtype(o.dtype, jnp.floating)]

    return f, (params, *[inputs[i] for i in floats])


@check
def check_gradients(case):
    """Gradients (of the outputs' sum) with respect to every weight and the float inputs are
    finite."""
    f, args = _differentiable_function(case)
    out, vjp = jax.vjp(f, *args)
    grads = vjp([jnp.ones_like(o) for o in out])
    for g in jax.tree_util.tree_leaves(grads):
        assert np.all(np.isfinite(np.asarray(g, np.float32)))


@check
def check_finite_differences(case):
    """Reverse-mode gradients match central finite differences (in a random direction of the
    weights and float inputs, as ``jax.test_util.check_grads``), at float32 tolerances."""
    f, args = _differentiable_function(case)
    check_grads(f, args, order=1, modes=("rev",), eps=case.grad_eps,
                atol=case.grad_tol, rtol=case.grad_tol)


@check
def check_bfloat16(case):
    """Under bfloat16 and mixed_bfloat16 the layer computes in bfloat16, weights as told."""
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


@check
def check_bad_rank(case):
    """An input of the wrong rank raises a ValueError naming the layer."""
    if case.bad_input_shape is None:
        pytest.skip(f"{case.name} gives no input of a wrong rank (bad_input_shape=None)"
                    f"{_rank_checked_elsewhere(case)}")
    layer, _, _ = build(case)
    bad = make_inputs(case, shape=case.bad_input_shape)
    try:
        layer(bad, **case.call_kwargs)
    except ValueError as error:
        assert f'"{layer.name}"' in str(error), str(error)
    else:
        raise AssertionError(f"{layer.name} accepted input of shape {np.shape(bad)}")


def _rank_checked_elsewhere(case):
    """``"; <Class>'s rank error is checked in <case>"`` when another case of the catalog
    checks the same layer class, else ``""``."""
    from tests.support.layer_cases import all_cases

    cls = _layer_class(case)
    others = [c.name for c in all_cases() if c.bad_input_shape is not None and
              _layer_class(c) is cls]
    return f"; {cls.__name__}'s rank error is checked in {', '.join(others)}" if others else ""


_CLASSES = {}


def _layer_class(case):
    if case.name not in _CLASSES:
        _CLASSES[case.name] = type(case.factory())
    return _CLASSES[case.name]


CHECKS = [check_shapes_and_compiled, check_training, check_config_round_trip, check_gradients,
          check_finite_differences, check_bfloat16, check_bad_rank]
