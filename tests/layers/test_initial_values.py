"""kgraph.base.initial_values: many weights' initial values drawn in one compiled call."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import initializers as I
from kgraph import layers
from kgraph.base import initial_values
from kgraph.interpreter import context

# Every built-in initializer, on shapes that exercise fans, rank 0/1/3 and 16-bit dtypes.
_BUILTIN = [I.GlorotUniform(), I.GlorotNormal(seed=3), I.HeNormal(), I.HeUniform(),
            I.LecunNormal(), I.LecunUniform(), I.RandomNormal(0.5, 2.0), I.RandomUniform(-1, 2),
            I.TruncatedNormal(0.1, 0.3), I.VarianceScaling(2.0, "fan_out", "untruncated_normal"),
            I.VarianceScaling(0.5, "fan_avg", "uniform"), I.Orthogonal(1.5), I.Zeros(), I.Ones(),
            I.Constant(0.3), I.Identity(2.0)]
_SHAPES = [((5, 3), "float32"), ((2, 3, 4), "float32"), ((7,), "float32"), ((), "float32"),
           ((4, 4), "bfloat16")]


class _Weights(kg.Layer):
    """A layer holding the given ``(shape, initializer, dtype)`` weights."""

    def __init__(self, specs, **kwargs):
        super().__init__(**kwargs)
        self.specs = specs

    def build(self, input_shape):
        for i, (shape, init, dtype) in enumerate(self.specs):
            self.add_weight(shape, init, name=f"w{i}", dtype=dtype)

    def call(self, x):
        return x


def _variables(specs, copies=2):
    """``copies`` layers with the given weights (so each kind is drawn stacked)."""
    variables = []
    for c in range(copies):
        layer = _Weights(specs, name=f"holder_{c}")
        layer.build((None, 1))
        variables += layer.weights
    return variables


def _specs():
    """Each built-in initializer on a matrix and on one other shape, in turn."""
    specs = []
    for i, init in enumerate(_BUILTIN):
        shapes = [_SHAPES[0]]
        if not isinstance(init, (I.Identity, I.Orthogonal)):
            shapes.append(_SHAPES[1 + i % (len(_SHAPES) - 1)])
        specs += [(shape, init, dtype) for shape, dtype in shapes]
    return specs


@functools.lru_cache(maxsize=None)
def _jitted_initial_value(initializer, shape, dtype):
    return jax.jit(lambda k: jnp.asarray(initializer(k, shape, dtype), dtype))


def _one_at_a_time(variables, key):
    """Each weight drawn by its own jitted call: the reference for the batched draw."""
    return [_jitted_initial_value(v.initializer, v.shape, v.dtype)(
        jax.random.fold_in(key, context.stable_hash(v.path))) for v in variables]


def _assert_bitwise(values, expected):
    assert len(values) == len(expected)
    for value, reference in zip(values, expected):
        assert value.dtype == reference.dtype and value.shape == reference.shape
        assert np.asarray(value).tobytes() == np.asarray(reference).tobytes()


def test_batched_draw_is_bitwise_one_call_per_weight(key):
    variables = _variables(_specs())
    values = initial_values.draw(variables, key, [v.path for v in variables])
    _assert_bitwise(values, _one_at_a_time(variables, key))


def test_compile_options_never_change_values(key, monkeypatch):
    # Small layouts compile for speed, large ones for run time: a weight's value must not
    # depend on which, or adding a layer could change the others. One initializer of each
    # family (uniform, truncated and plain normal, shifted, orthogonal, 16-bit).
    specs = [((5, 3), I.GlorotUniform(), "float32"), ((2, 3, 4), I.HeNormal(), "float32"),
             ((5, 3), I.RandomNormal(0.5, 2.0), "float32"), ((7,), I.RandomUniform(), "float32"),
             ((4, 4), I.Orthogonal(), "float32"), ((4, 4), I.LecunNormal(), "bfloat16")]
    variables = _variables(specs)
    paths = [v.path for v in variables]
    fast = initial_values.draw(variables, key, paths)
    monkeypatch.setattr(initial_values, "FAST_COMPILE_MAX_SIZE", 0)
    initial_values._layout_function.cache_clear()
    try:
        _assert_bitwise(initial_values.draw(variables, key, paths), fast)
    finally:
        initial_values._layout_function.cache_clear()


def test_custom_initializers_are_drawn_one_at_a_time(key):
    def scaled_normal(k, shape, dtype):
        return 3.0 * jax.random.normal(k, shape, dtype)

    variables = _variables([((2, 3), scaled_normal, "float32"),
                            ((2, 2), np.arange(4.0).reshape(2, 2), "float32"),
                            ((4,), "he_normal", "float32")])
    values = initial_values.draw(variables, key, [v.path for v in variables])
    expected = [v.initial_value(jax.random.fold_in(key, context.stable_hash(v.path)))
                for v in variables]
    for value, reference in zip(values, expected):
        np.testing.assert_allclose(value, reference, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(values[1], np.arange(4.0).reshape(2, 2))
    # the same batched groups with fewer custom weights: another call signature
    fewer = initial_values.draw(variables[1:], key, [v.path for v in variables[1:]])
    _assert_bitwise(fewer, values[1:])


def _chain(depth, width=8):
    x = kg.Input(shape=(width,), name="x")
    h = x
    for i in range(depth):
        h = layers.Dense(width, name=f"d{i}")(h)
    return kg.Model(x, h)


def test_init_and_first_eager_call_share_one_compiled_function(tree_equal):
    model = _chain(6)
    before = initial_values._layout_function.cache_info()
    params, _ = compiler.compile(model).init(jax.random.PRNGKey(kg.random.seed()))
    model(jnp.ones((2, 8)))  # every weight's first value, drawn together
    after = initial_values._layout_function.cache_info()
    assert after.misses - before.misses <= 1 and after.hits > before.hits
    # eager values come from the seed stream's next key: not program.init's, as Keras
    assert not tree_equal(params, compiler.variables(model)[0])


def test_eager_values_follow_the_seed_and_the_path():
    def values(seed, depth):
        kg.reset_names()
        kg.random.set_seed(seed)
        model = _chain(depth)
        model(jnp.ones((1, 8)))
        return {w.path: np.asarray(w.value) for w in model.weights}

    first, again, other = values(3, 3), values(3, 3), values(4, 3)
    assert all(np.array_equal(first[p], again[p]) for p in first)
    assert not np.array_equal(first["d0/kernel"], other["d0/kernel"])
    deeper = values(3, 5)  # a longer model: the first three layers keep their values
    assert all(np.array_equal(first[p], deeper[p]) for p in first)


def test_first_read_inside_a_trace_stores_concrete_values():
    layer = layers.Dense(3, name="traced")
    x = jnp.ones((2, 4))
    out = jax.jit(lambda v: layer(v))(x)
    kernel = layer.weights[0].value
    assert not isinstance(kernel, jax.core.Tracer)
    np.testing.assert_allclose(out, x @ kernel + layer.weights[1].value, rtol=1e-6)
    kg.random.set_seed(0)  # the same stream again: the values of an eager first read
    fresh = layers.Dense(3, name="traced")
    fresh.build((None, 4))
    np.testing.assert_array_equal(fresh.weights[0].value, kernel)


def test_first_read_of_one_weight_draws_its_layer_siblings():
    layer = layers.Dense(3)
    layer.build((None, 4))
    kernel, bias = layer.weights
    assert kernel._value is None and bias._value is None
    _ = kernel.value
    assert bias._value is not None


def test_init_under_jit_and_vmap(tree_allclose):
    program = compiler.compile(_chain(3))
    keys = jax.random.split(jax.random.PRNGKey(1), 3)
    jitted = jax.jit(program.init)(keys[0])
    assert tree_allclose(jitted, program.init(keys[0]))
    stacked, _ = jax.vmap(program.init)(keys)
    assert stacked["d0"]["kernel"].shape == (3, 8, 8)
    for i in range(3):
        params, _ = program.init(keys[i])
        assert tree_allclose(jax.tree_util.tree_map(lambda a: a[i], stacked), params)


def test_is_builtin_excludes_subclasses_and_callables():
    class Mine(I.Constant):
        pass

    assert I.is_builtin(I.GlorotUniform()) and I.is_builtin(I.Constant(1.0))
    assert not I.is_builtin(Mine(1.0))
    assert not I.is_builtin(jax.nn.initializers.zeros)


@pytest.mark.parametrize("depth", [1, 40])
def test_init_values_do_not_depend_on_model_depth(depth, key, tree_equal):
    small, _ = compiler.compile(_chain(2)).init(key)
    large, _ = compiler.compile(_chain(2 + depth)).init(key)
    assert tree_equal(small, {name: large[name] for name in small})


def test_a_fresh_process_first_eager_call_compiles_no_key_derivation():
    """The eager stream's keys are made without a JAX random op (each would compile on its
    first use in a process: 0.1 s of a first eager call); only the model's own ops and
    the weights' draw compile."""
    import os
    import subprocess
    import sys

    script = ("import logging, jax, numpy as np, kgraph as kg\n"
              "logging.basicConfig(level=logging.WARNING)\n"
              "x = kg.Input(shape=(4,)); model = kg.Model(x, kg.layers.Dense(3)(x))\n"
              "jax.config.update('jax_log_compiles', True)\n"
              "model(np.ones((2, 4), np.float32))\n"
              "kg.random.normal((3,))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 0, done.stderr[-2000:]
    compiled = [line for line in done.stderr.splitlines() if "Compiling" in line]
    assert compiled, done.stderr[-2000:]  # the log is on: the model's ops compile
    assert not [line for line in compiled if "fold_in" in line or "seed" in line.lower()
                or "threefry" in line], compiled
