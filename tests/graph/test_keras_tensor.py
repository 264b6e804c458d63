"""KerasTensor: shape/dtype/name, operators as graph nodes, and clear errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import ops
from kgraph.ops import Operation

W = np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0

# (id, symbolic/array expression, the jnp function its Operation wraps, NumPy reference)
OPERATORS = [
    ("add", lambda t: t + 2.0, "add", lambda a: a + 2.0),
    ("radd", lambda t: 2.0 + t, "add", lambda a: 2.0 + a),
    ("sub", lambda t: t - 1.5, "subtract", lambda a: a - 1.5),
    ("rsub", lambda t: 1.5 - t, "subtract", lambda a: 1.5 - a),
    ("mul", lambda t: t * 3.0, "multiply", lambda a: a * 3.0),
    ("rmul", lambda t: 3.0 * t, "multiply", lambda a: 3.0 * a),
    ("div", lambda t: t / 4.0, "divide", lambda a: a / 4.0),
    ("rdiv", lambda t: 4.0 / t, "divide", lambda a: 4.0 / a),
    ("matmul", lambda t: t @ W, "matmul", lambda a: a @ W),
    ("neg", lambda t: -t, "negative", lambda a: -a),
    ("pow", lambda t: t ** 2, "power", lambda a: a ** 2),
    ("rpow", lambda t: 2.0 ** t, "power", lambda a: 2.0 ** a),
    ("getitem_slice", lambda t: t[:, 1:], "get_item", lambda a: a[:, 1:]),
    ("getitem_int", lambda t: t[:, 0], "get_item", lambda a: a[:, 0]),
    ("getitem_reverse", lambda t: t[..., ::-1], "get_item", lambda a: a[..., ::-1]),
]


def _batch(rows=5, cols=3, seed=0):
    return np.random.default_rng(seed).normal(size=(rows, cols)).astype(np.float32)


def test_input_shape_dtype_and_name():
    x = kg.Input(shape=(784,), name="pixels")
    assert isinstance(x, kg.KerasTensor) and kg.is_keras_tensor(x)
    assert x.shape == (None, 784)
    assert x.ndim == 2
    assert x.dtype == jnp.float32
    assert x.name == "pixels"

    y = kg.Input(shape=3, batch_size=8, dtype="int32")
    assert y.shape == (8, 3)
    assert y.dtype == jnp.int32
    assert y.name == "input_layer"  # auto name of its InputLayer

    z = kg.Input(shape=(None, 4))
    assert z.shape == (None, None, 4)
    assert "shape=(None, None, 4)" in repr(z)


def test_input_requires_shape():
    with pytest.raises(ValueError, match="needs a shape"):
        kg.Input()


@pytest.mark.parametrize("name, expr, fn_name, reference", OPERATORS,
                         ids=[case[0] for case in OPERATORS])
def test_operator_builds_operation_node(name, expr, fn_name, reference):
    x = kg.Input(shape=(3,))
    y = expr(x)
    assert isinstance(y, kg.KerasTensor)
    layer = y._keras_history.layer
    assert isinstance(layer, Operation)
    assert layer.fn.__name__ == fn_name
    node = layer._inbound_nodes[y._keras_history.node_index]
    assert node._keras_inputs[0] is x

    values = _batch()
    expected = reference(values)
    assert y.shape == (None,) + expected.shape[1:]
    assert y.dtype == expected.dtype

    model = kg.Model(x, y)
    np.testing.assert_allclose(model(values), expected, rtol=1e-6, atol=1e-6)
    out, _ = compiler.compile(model).apply(*compiler.variables(model), values)
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name, expr, fn_name, reference", OPERATORS,
                         ids=[case[0] for case in OPERATORS])
def test_operator_on_plain_arrays_computes(name, expr, fn_name, reference):
    values = _batch()
    out = expr(jnp.asarray(values))
    assert isinstance(out, jax.Array)
    np.testing.assert_allclose(out, reference(values), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("op, reference", [
    (lambda a: ops.add(a, 1.0), lambda a: a + 1.0),
    (lambda a: ops.subtract(a, 1.0), lambda a: a - 1.0),
    (lambda a: ops.multiply(a, 2.0), lambda a: a * 2.0),
    (lambda a: ops.divide(a, 2.0), lambda a: a / 2.0),
    (lambda a: ops.power(a, 3), lambda a: a ** 3),
    (lambda a: ops.negative(a), lambda a: -a),
    (lambda a: ops.matmul(a, W), lambda a: a @ W),
    (lambda a: ops.get_item(a, (slice(None), 2)), lambda a: a[:, 2]),
], ids=["add", "subtract", "multiply", "divide", "power", "negative", "matmul", "get_item"])
def test_kgraph_ops_on_arrays_and_tensors(op, reference):
    values = _batch()
    for array in (values, jnp.asarray(values)):  # NumPy and JAX arrays compute directly
        out = op(array)
        assert not isinstance(out, kg.KerasTensor)
        np.testing.assert_allclose(out, reference(values), rtol=1e-6, atol=1e-6)
    x = kg.Input(shape=(3,))
    y = op(x)  # the same function on a KerasTensor records a node
    assert isinstance(y._keras_history.layer, Operation)
    np.testing.assert_allclose(kg.Model(x, y)(values), reference(values), rtol=1e-6, atol=1e-6)


def test_binary_op_of_two_tensors_has_two_inputs():
    a, b = kg.Input(shape=(3,)), kg.Input(shape=(3,))
    c = a * b
    node = c._keras_history.layer._inbound_nodes[0]
    assert node._keras_inputs == [a, b]
    va, vb = _batch(seed=1), _batch(seed=2)
    np.testing.assert_allclose(kg.Model([a, b], c)([va, vb]), va * vb, rtol=1e-6)


def test_chained_expression_matches_numpy():
    x = kg.Input(shape=(3,))
    y = (x * 2 + 1) @ W
    assert y.shape == (None, 4)
    model = kg.Model(x, y)
    program = compiler.compile(model)
    assert [type(n.layer) for n in program.nodes] == [Operation] * 3
    # matmul's node runs kgraph's wrapper of jnp.matmul (int8 operands give int32, as Keras's)
    assert [n.layer.fn for n in program.nodes] == [jnp.multiply, jnp.add,
                                                   ops.get_impl("matmul")]
    values = _batch()
    expected = (values * 2 + 1) @ W
    np.testing.assert_allclose(model(values), expected, rtol=1e-5, atol=1e-6)
    out, state = program.apply(*compiler.variables(model), values)
    assert state == {}
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_numpy_array_on_the_left_defers_to_the_tensor():
    x = kg.Input(shape=(3,))
    y = np.full((3,), 2.0, np.float32) * x
    assert isinstance(y, kg.KerasTensor)
    values = _batch()
    np.testing.assert_allclose(kg.Model(x, y)(values), 2.0 * values, rtol=1e-6)


def test_broadcasting_shapes_and_dtypes():
    a = kg.Input(shape=(1, 3))
    b = kg.Input(shape=(4, 1))
    assert (a + b).shape == (None, 4, 3)
    i = kg.Input(shape=(3,), dtype="int32")
    eager = jnp.ones((2, 3), jnp.int32) * 2.5
    assert (i * 2.5).dtype == eager.dtype
    assert (i + 1).dtype == jnp.int32
    with pytest.raises(ValueError, match="cannot broadcast"):
        kg.Input(shape=(3,)) + kg.Input(shape=(4,))


def test_bool_raises_clear_type_error():
    x = kg.Input(shape=(3,))
    with pytest.raises(TypeError, match="cannot be used as a Python bool"):
        bool(x)
    with pytest.raises(TypeError, match="cannot be used as a Python bool"):
        if x:  # noqa: SIM108 - the `if` is the point
            pass
    with pytest.raises(TypeError, match="cannot be used as a Python bool"):
        _ = x and 1


@pytest.mark.parametrize("fn", [jnp.asarray, np.asarray, np.sin],
                         ids=["jnp.asarray", "np.asarray", "np.sin"])
def test_array_conversions_raise_kgraph_type_error(fn):
    with pytest.raises(TypeError, match="symbolic KerasTensor was passed to a function"):
        fn(kg.Input(shape=(3,)))


def test_jax_array_on_the_left_of_an_operator_builds_a_node():
    x = kg.Input(shape=(3,))
    y = jnp.full((3,), 2.0) * x
    assert isinstance(y, kg.KerasTensor) and y.shape == (None, 3)
    assert isinstance(y._keras_history.layer, kg.layers.Operation)
    out = kg.Model(x, y)(np.ones((2, 3), np.float32))
    np.testing.assert_allclose(out, np.full((2, 3), 2.0))


@pytest.mark.parametrize("fn", [
    jnp.sin, jnp.sum, lambda t: jnp.matmul(t, W), jax.nn.relu, jax.jit(lambda t: t * 2),
    lambda t: jnp.add(t, 1.0), lambda t: jnp.concatenate([t, t]),
], ids=["jnp.sin", "jnp.sum", "jnp.matmul", "jax.nn.relu", "jit", "jnp.add", "jnp.concatenate"])
def test_jitted_jax_functions_raise_type_error_naming_keras_tensor(fn):
    # jax.jit turns every TypeError raised while reading an argument into its own
    # message, which still names the offending type (never a confusing ValueError).
    with pytest.raises(TypeError, match="KerasTensor"):
        fn(kg.Input(shape=(3,)))


def test_len_and_iter():
    with pytest.raises(TypeError, match="unknown first dimension"):
        len(kg.Input(shape=(3,)))
    assert len(kg.Input(shape=(3,), batch_size=4)) == 4
    with pytest.raises(TypeError, match="Iterating"):
        iter(kg.Input(shape=(3,)))


def test_tensors_hash_by_identity():
    a, b = kg.Input(shape=(3,)), kg.Input(shape=(3,))
    assert len({a, b, a}) == 2


def test_a_string_input_is_refused_saying_where_strings_go():
    with pytest.raises(TypeError, match=r"dtype='string' is not supported.*StringLookup"):
        kg.Input(shape=(4,), dtype="string")
