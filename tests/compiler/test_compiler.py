"""compiler: init/apply over weight pytrees, purity, jit/grad/vmap/hessian, lowering."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers


def _data(rng, *shape):
    return rng.normal(size=shape).astype(np.float32)


class TraceCounter(kg.Layer):
    """``2x + 1``, counting how often ``call`` runs in Python (i.e. is traced)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.calls = 0

    def call(self, inputs):
        self.calls += 1
        return inputs * 2.0 + 1.0


def _mlp(hidden=4, classes=3, features=5):
    x = kg.Input(shape=(features,), name="features")
    h = layers.Dense(hidden, activation="tanh", name="hidden")(x)
    h = layers.BatchNormalization(name="norm")(h)
    return kg.Model(x, layers.Dense(classes, name="logits")(h), name="mlp")


def test_init_is_nested_dicts_by_layer_then_weight(key):
    program = compiler.compile(_mlp())
    params, state = program.init(key)
    assert type(params) is dict and type(state) is dict
    assert set(params) == {"hidden", "norm", "logits"}
    assert set(params["logits"]) == {"kernel", "bias"}
    assert params["hidden"]["kernel"].shape == (5, 4)
    assert params["logits"]["kernel"].shape == (4, 3)
    assert set(params["norm"]) == {"gamma", "beta"}
    assert set(state) == {"norm"}
    assert set(state["norm"]) == {"moving_mean", "moving_variance"}
    # same structure as the model's own variables
    variables = compiler.variables(program.model)
    assert jax.tree_util.tree_structure((params, state)) == jax.tree_util.tree_structure(variables)
    assert "3 nodes" in repr(program)


def test_init_same_key_is_bitwise_reproducible(key, tree_equal):
    program = compiler.compile(_mlp())
    first, second = program.init(key), program.init(key)
    assert tree_equal(first, second)
    other = program.init(jax.random.PRNGKey(1))
    assert not np.array_equal(other[0]["hidden"]["kernel"], first[0]["hidden"]["kernel"])
    # distinct layers get distinct draws from one key
    assert not np.array_equal(first[0]["hidden"]["kernel"][:4, :3],
                              first[0]["logits"]["kernel"])


def test_init_unaffected_by_unrelated_layers(key, tree_equal):
    def build(extra):
        x = kg.Input(shape=(3,), name="x")
        a = layers.Dense(4, name="a")(x)
        b = layers.Dense(2, name="b")(a)
        outputs = [b, layers.Dense(5, name="extra")(a)] if extra else b
        return kg.Model(x, outputs)

    small, _ = compiler.compile(build(extra=False)).init(key)
    large, _ = compiler.compile(build(extra=True)).init(key)
    assert set(large) == {"a", "b", "extra"}
    assert tree_equal(small["a"], large["a"])
    assert tree_equal(small["b"], large["b"])


def test_program_needs_a_built_layer():
    with pytest.raises(TypeError, match="expects a kgraph Model or Layer"):
        compiler.compile(lambda x: x)
    with pytest.raises(ValueError, match='Layer "dense" is not built'):
        compiler.compile(layers.Dense(2))


def test_compile_a_single_built_layer(rng):
    layer = layers.Dense(2)
    values = _data(rng, 3, 4)
    eager = layer(values)
    program = compiler.compile(layer)
    params, state = compiler.variables(layer)
    assert set(params) == {"kernel", "bias"}
    np.testing.assert_allclose(program.apply(params, state, values)[0], eager, rtol=1e-6)


def test_apply_is_pure(key, tree_equal, rng):
    model = _mlp()
    program = compiler.compile(model)
    stored = compiler.variables(model)
    params, state = program.init(jax.random.PRNGKey(3))
    state_before = jax.tree_util.tree_map(jnp.array, state)
    values = _data(rng, 8, 5)
    out, new_state = program.apply(params, state, values, training=True, key=key)
    assert tree_equal(compiler.variables(model), stored)  # the model's weights untouched
    assert tree_equal(state, state_before)  # the state argument untouched
    assert not np.array_equal(new_state["norm"]["moving_mean"], state["norm"]["moving_mean"])
    again, again_state = program.apply(params, state, values, training=True, key=key)
    assert tree_equal((out, new_state), (again, again_state))  # same inputs, same results


def test_apply_reports_missing_weights(key, rng):
    program = compiler.compile(_mlp())
    params, state = program.init(key)
    del params["logits"]["bias"]
    with pytest.raises(KeyError, match="params has no entry 'logits/bias'"):
        program.apply(params, state, _data(rng, 2, 5))


def test_no_retrace_under_jit(key, rng):
    counter = TraceCounter()
    x = kg.Input(shape=(3,))
    model = kg.Model(x, layers.Dense(2)(counter(x)))
    program = compiler.compile(model)
    params, state = program.init(key)
    step = jax.jit(program.apply)
    calls_before = counter.calls
    first, _ = step(params, state, _data(rng, 4, 3))
    second, _ = step(jax.tree_util.tree_map(lambda p: p + 1, params), state, _data(rng, 4, 3))
    assert counter.calls == calls_before + 1  # traced once for two calls
    step(params, state, _data(rng, 6, 3))
    assert counter.calls == calls_before + 2  # a new shape traces once more
    values = _data(rng, 4, 3)
    np.testing.assert_allclose(step(params, state, values)[0],
                               program.apply(params, state, values)[0], rtol=1e-5, atol=1e-6)


def test_jit_with_training_flag_and_key(key, tree_allclose, rng):
    model = _mlp()
    program = compiler.compile(model)
    params, state = program.init(key)
    values = _data(rng, 8, 5)
    jitted = jax.jit(program.apply, static_argnames=("training",))
    assert tree_allclose(jitted(params, state, values, training=True, key=key),
                         program.apply(params, state, values, training=True, key=key),
                         rtol=1e-5, atol=1e-5)


def test_grad_matches_analytic_linear_model(key, rng):
    x = kg.Input(shape=(3,))
    model = kg.Model(x, layers.Dense(2, name="lin")(x))
    program = compiler.compile(model)
    params, state = program.init(key)
    values = _data(rng, 5, 3)

    def loss(p):
        return jnp.sum(program.apply(p, state, values)[0])

    grads = jax.grad(loss)(params)
    np.testing.assert_allclose(grads["lin"]["kernel"], values.T @ np.ones((5, 2)), rtol=1e-5)
    np.testing.assert_allclose(grads["lin"]["bias"], np.full(2, 5.0), rtol=1e-6)


def test_vmap_over_stacked_params_is_an_ensemble(tree_allclose, rng):
    model = _mlp()
    program = compiler.compile(model)
    members = [program.init(jax.random.PRNGKey(i)) for i in range(3)]
    stacked_params = jax.tree_util.tree_map(lambda *p: jnp.stack(p),
                                            *[params for params, _ in members])
    state = members[0][1]
    values = _data(rng, 6, 5)
    ensemble = jax.vmap(lambda p: program.apply(p, state, values)[0])(stacked_params)
    assert ensemble.shape == (3, 6, 3)
    for i, (params, _) in enumerate(members):
        assert tree_allclose(ensemble[i], program.apply(params, state, values)[0],
                             rtol=1e-5, atol=1e-6)


def test_per_example_gradients_with_vmap(key, tree_allclose, rng):
    model = _mlp()
    program = compiler.compile(model)
    params, state = program.init(key)
    values = _data(rng, 4, 5)

    def loss(p, example):
        out, _ = program.apply(p, state, example[None])
        return jnp.sum(out ** 2)

    per_example = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0)))(params, values)
    assert per_example["hidden"]["kernel"].shape == (4, 5, 4)
    single = jax.jit(jax.grad(loss))
    for i in range(len(values)):
        expected = single(params, values[i])
        assert tree_allclose(jax.tree_util.tree_map(lambda g: g[i], per_example), expected,
                             rtol=1e-4, atol=1e-6)


def test_hessian_matches_analytic_quadratic(rng):
    x = kg.Input(shape=(3,))
    model = kg.Model(x, layers.Dense(1, use_bias=False, name="lin")(x))
    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    values = _data(rng, 5, 3)

    def f(p):  # sum((X w)^2): Hessian in w is 2 X^T X
        return jnp.sum(program.apply(p, state, values)[0] ** 2)

    hessian = jax.jit(jax.hessian(f))(params)["lin"]["kernel"]["lin"]["kernel"]
    assert hessian.shape == (3, 1, 3, 1)
    np.testing.assert_allclose(hessian[:, 0, :, 0], 2 * values.T @ values, rtol=1e-4, atol=1e-4)


def test_hessian_matches_finite_differences_of_gradient(rng):
    x = kg.Input(shape=(2,))
    model = kg.Model(x, layers.Dense(1, activation="tanh", name="out")(x))
    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(2))
    values = _data(rng, 3, 2)

    def f(inputs):  # Hessian with respect to the inputs, through a nonlinearity
        return jnp.sum(program.apply(params, state, inputs.reshape(3, 2))[0])

    flat = jnp.asarray(values.reshape(-1))
    hessian = jax.jit(jax.hessian(f))(flat)
    grad = jax.jit(jax.grad(f))
    eps = 1e-2
    columns = [(grad(flat.at[i].add(eps)) - grad(flat.at[i].add(-eps))) / (2 * eps)
               for i in range(flat.size)]
    np.testing.assert_allclose(hessian, np.stack(columns, axis=1), rtol=2e-2, atol=2e-3)


def test_lower_is_stablehlo_with_layer_named_scopes(key):
    x = kg.Input(shape=(3,))
    h = layers.Dense(4, activation="relu", name="hidden_layer")(x)
    model = kg.Model(x, layers.Activation("tanh", name="squash_act")(h), name="net")
    program = compiler.compile(model)
    params, state = program.init(key)
    text = program.lower(params, state, jnp.ones((2, 3))).as_text(debug_info=True)
    assert "stablehlo" in text
    assert "net/hidden_layer/" in text  # the named scope of each layer call
    assert "net/squash_act/tanh" in text  # even a layer without weights is named


def test_variables_assign_round_trip(key, tree_equal, tree_allclose, rng):
    model = _mlp()
    program = compiler.compile(model)
    new_params, new_state = program.init(jax.random.PRNGKey(42))
    new_state = jax.tree_util.tree_map(lambda s: s + 0.5, new_state)
    compiler.assign(model, new_params, new_state)
    assert tree_equal(compiler.variables(model), (new_params, new_state))
    values = _data(rng, 4, 5)
    # eager calls see the assigned weights
    assert tree_allclose(model(values), program.apply(new_params, new_state, values)[0],
                         rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(model.get_layer("logits").kernel, new_params["logits"]["kernel"])


def test_assign_validates_before_writing(key, tree_equal):
    model = _mlp()
    before = compiler.variables(model)
    params, state = compiler.compile(model).init(jax.random.PRNGKey(5))
    params["logits"]["kernel"] = jnp.ones((2, 2))
    with pytest.raises(ValueError, match=r"Cannot assign 'logits/kernel': expected shape \(4, 3\)"):
        compiler.assign(model, params, state)
    assert tree_equal(compiler.variables(model), before)  # nothing was half-written
    with pytest.raises(KeyError, match="state has no entry 'norm'"):
        compiler.assign(model, params, {})


def test_training_dropout_without_key_names_the_layer(key, rng):
    x = kg.Input(shape=(4,))
    model = kg.Model(x, layers.Dropout(0.5, name="my_dropout")(layers.Dense(4)(x)))
    program = compiler.compile(model)
    params, state = program.init(key)
    with pytest.raises(ValueError, match='Layer "my_dropout" needs a random key'):
        program.apply(params, state, _data(rng, 2, 4), training=True)
    with pytest.raises(ValueError, match='Layer "my_dropout" needs a random key'):
        jax.jit(program.apply, static_argnames=("training",))(params, state, _data(rng, 2, 4),
                                                              training=True)
    program.apply(params, state, _data(rng, 2, 4), training=False)  # inference needs no key


def test_a_trainable_weight_assigned_in_apply_is_seen_for_the_run_only():
    """As on Keras's JAX backend: the rest of the call reads the assigned value, and the
    run's new state leaves the trainable weight as it was (the optimizer changes it)."""
    class Shifted(kg.Layer):
        def build(self, input_shape):
            self.w = self.add_weight((input_shape[-1],), "ones")

        def call(self, inputs):
            self.w.assign(self.w + 1.0)
            return inputs * self.w

    x = kg.Input(shape=(2,))
    program = compiler.compile(kg.Model(x, Shifted(name="shifted")(x)))
    params, state = program.init(jax.random.PRNGKey(0))
    outputs, new_state = program.apply(params, state, np.ones((1, 2), np.float32))
    np.testing.assert_array_equal(outputs, [[2.0, 2.0]])
    np.testing.assert_array_equal(params["shifted"]["w"], [1.0, 1.0])
    assert "shifted" not in new_state or "w" not in new_state["shifted"]


def test_layer_shared_between_outer_and_nested_model_has_one_copy_of_weights():
    shared = kg.layers.Dense(3, name="shared")
    a = kg.Input(shape=(3,), name="a")
    inner = kg.Model(a, shared(a), name="inner")
    x = kg.Input(shape=(3,), name="x")
    model = kg.Model(x, inner(shared(x)), name="outer")
    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    leaves = {jax.tree_util.keystr(path): leaf
              for path, leaf in jax.tree_util.tree_flatten_with_path(params)[0]}
    assert len(leaves) == 2  # one kernel and one bias, wherever the layer is used
    (kernel,) = [v for k, v in leaves.items() if "kernel" in k]
    (bias,) = [v for k, v in leaves.items() if "bias" in k]
    data = jnp.ones((2, 3))
    out, _ = program.apply(params, state, data)
    np.testing.assert_allclose(out, (data @ kernel + bias) @ kernel + bias, rtol=1e-6)
    grads = jax.grad(lambda p: program.apply(p, state, data)[0].sum())(params)
    assert all(float(jnp.abs(g).sum()) > 0 for g in jax.tree_util.tree_leaves(grads))
