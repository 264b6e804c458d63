"""kgraph.ops: the same function on arrays (computes) and on KerasTensors (graph nodes)."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph.saving import keras_dialect
from kgraph import ops
from kgraph.ops import Operation

BATCH = 2


# Input makers: ``_f(3)`` is ``rng -> array of shape (BATCH, 3)``; each test draws its inputs
# from its own seeded generator (the ``rng`` fixture).
def _f(*shape):
    return lambda rng: (rng.normal(size=(BATCH, *shape)) * 2).astype(np.float32)


def _pos(*shape):
    return lambda rng: rng.uniform(0.5, 3.0, size=(BATCH, *shape)).astype(np.float32)


def _i(*shape, high=5):
    return lambda rng: rng.integers(0, high, size=(BATCH, *shape)).astype(np.int32)


def _b(*shape):
    return lambda rng: rng.uniform(size=(BATCH, *shape)) > 0.5


def _constant(seed, *shape):
    """Fixed read-only weights the op calls below close over."""
    array = np.random.default_rng(seed).normal(size=shape).astype(np.float32)
    array.setflags(write=False)
    return array


def _softmax(a, axis=-1):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _conv1d_same(x, k):
    """channels_last 1-D 'same' convolution (cross-correlation), stride 1."""
    width = k.shape[0]
    left = (width - 1) // 2
    padded = np.pad(x, ((0, 0), (left, width - 1 - left), (0, 0)))
    out = np.zeros(x.shape[:2] + (k.shape[-1],), np.float32)
    for t in range(x.shape[1]):
        out[:, t] = np.einsum("bwc,wco->bo", padded[:, t:t + width], k)
    return out


W34 = _constant(1, 3, 4)
K1D = _constant(2, 3, 3, 2)
TABLE = np.arange(15, dtype=np.float32).reshape(5, 3)

# (id, op call, inputs, NumPy reference)
CASES = [
    ("abs", lambda x: ops.abs(x), [_f(3)], np.abs),
    ("exp", lambda x: ops.exp(x), [_f(3)], np.exp),
    ("log", lambda x: ops.log(x), [_pos(3)], np.log),
    ("sqrt", lambda x: ops.sqrt(x), [_pos(3)], np.sqrt),
    ("square", lambda x: ops.square(x), [_f(3)], np.square),
    ("sin", lambda x: ops.sin(x), [_f(3)], np.sin),
    ("cos", lambda x: ops.cos(x), [_f(3)], np.cos),
    ("tanh", lambda x: ops.tanh(x), [_f(3)], np.tanh),
    ("floor", lambda x: ops.floor(x), [_f(3)], np.floor),
    ("ceil", lambda x: ops.ceil(x), [_f(3)], np.ceil),
    ("sign", lambda x: ops.sign(x), [_f(3)], np.sign),
    ("round", lambda x: ops.round(x, decimals=1), [_f(3)], lambda a: np.round(a, 1)),
    ("sqrt_int", lambda x: ops.sqrt(x), [_i(3)], lambda a: np.sqrt(a).astype(np.float32)),
    ("maximum", lambda a, b: ops.maximum(a, b), [_f(3), _f(3)], np.maximum),
    ("minimum", lambda a, b: ops.minimum(a, b), [_f(3), _f(1)], np.minimum),
    ("divide_ints", lambda a, b: ops.divide(a, b + 1), [_i(3), _i(3)],
     lambda a, b: (a / (b + 1)).astype(np.float32)),
    ("clip", lambda x: ops.clip(x, -1.0, 1.0), [_f(4)], lambda a: np.clip(a, -1, 1)),
    ("clip_tensor_bounds", lambda x, lo: ops.clip(x, lo, 2.0), [_f(4), _f(1)],
     lambda a, lo: np.clip(a, lo, 2.0)),
    ("matmul", lambda x: ops.matmul(x, W34), [_f(3)], lambda a: a @ W34),
    ("dot", lambda x: ops.dot(x, W34), [_f(3)], lambda a: a @ W34),
    ("einsum", lambda x, y: ops.einsum("bij,bjk->bik", x, y), [_f(2, 3), _f(3, 4)],
     lambda a, b: np.einsum("bij,bjk->bik", a, b)),
    ("tensordot", lambda x: ops.tensordot(x, W34, axes=1), [_f(2, 3)],
     lambda a: np.tensordot(a, W34, axes=1)),
    ("sum", lambda x: ops.sum(x, axis=1), [_f(3, 4)], lambda a: a.sum(1)),
    ("sum_axes_keepdims", lambda x: ops.sum(x, axis=(1, 2), keepdims=True), [_f(3, 4)],
     lambda a: a.sum((1, 2), keepdims=True)),
    ("mean", lambda x: ops.mean(x, axis=-1), [_f(3, 4)], lambda a: a.mean(-1)),
    ("mean_int", lambda x: ops.mean(x, axis=-1), [_i(4)],
     lambda a: a.mean(-1).astype(np.float32)),
    ("max", lambda x: ops.max(x, axis=1, keepdims=True), [_f(3, 4)],
     lambda a: a.max(1, keepdims=True)),
    ("min", lambda x: ops.min(x, axis=-1), [_f(3, 4)], lambda a: a.min(-1)),
    ("prod", lambda x: ops.prod(x, axis=-1), [_f(3)], lambda a: a.prod(-1)),
    ("std", lambda x: ops.std(x, axis=-1), [_f(5)], lambda a: a.std(-1)),
    ("var", lambda x: ops.var(x, axis=1), [_f(5, 2)], lambda a: a.var(1)),
    ("argmax", lambda x: ops.argmax(x, axis=-1), [_f(5)],
     lambda a: a.argmax(-1).astype(np.int32)),
    ("argmin_keepdims", lambda x: ops.argmin(x, axis=1, keepdims=True), [_f(5)],
     lambda a: a.argmin(1)[:, None].astype(np.int32)),
    ("all", lambda x: ops.all(x, axis=-1), [_b(4)], lambda a: a.all(-1)),
    ("any", lambda x: ops.any(x, axis=-1), [_b(4)], lambda a: a.any(-1)),
    ("logsumexp", lambda x: ops.logsumexp(x, axis=-1), [_f(4)],
     lambda a: np.log(np.exp(a).sum(-1))),
    ("equal", lambda a, b: ops.equal(a, b), [_i(4, high=2), _i(4, high=2)], np.equal),
    ("not_equal", lambda a: ops.not_equal(a, 0), [_i(4, high=2)], lambda a: a != 0),
    ("greater", lambda a, b: ops.greater(a, b), [_f(3), _f(3)], np.greater),
    ("greater_equal", lambda a: ops.greater_equal(a, 0.5), [_f(3)], lambda a: a >= 0.5),
    ("less", lambda a, b: ops.less(a, b), [_f(3), _f(3)], np.less),
    ("less_equal", lambda a: ops.less_equal(a, 0.0), [_f(3)], lambda a: a <= 0),
    ("logical_and", lambda a, b: ops.logical_and(a, b), [_b(4), _b(4)], np.logical_and),
    ("logical_or", lambda a, b: ops.logical_or(a, b), [_b(4), _b(4)], np.logical_or),
    ("logical_xor", lambda a, b: ops.logical_xor(a, b), [_b(4), _b(4)], np.logical_xor),
    ("logical_not", lambda a: ops.logical_not(a), [_b(4)], np.logical_not),
    ("reshape", lambda x: ops.reshape(x, (-1, 2, 3)), [_f(6)], lambda a: a.reshape(-1, 2, 3)),
    ("transpose", lambda x: ops.transpose(x, (0, 2, 1)), [_f(2, 3)],
     lambda a: a.transpose(0, 2, 1)),
    ("expand_dims", lambda x: ops.expand_dims(x, 1), [_f(3)], lambda a: a[:, None]),
    ("squeeze", lambda x: ops.squeeze(x, axis=1), [_f(1, 3)], lambda a: a[:, 0]),
    ("concatenate", lambda a, b: ops.concatenate([a, b], axis=-1), [_f(2), _f(3)],
     lambda a, b: np.concatenate([a, b], -1)),
    ("stack", lambda a, b: ops.stack([a, b], axis=1), [_f(3), _f(3)],
     lambda a, b: np.stack([a, b], 1)),
    ("tile", lambda x: ops.tile(x, (1, 2)), [_f(3)], lambda a: np.tile(a, (1, 2))),
    ("repeat", lambda x: ops.repeat(x, 2, axis=1), [_f(3)], lambda a: np.repeat(a, 2, 1)),
    ("cast", lambda x: ops.cast(x, "int32"), [_f(3)], lambda a: a.astype(np.int32)),
    ("flip", lambda x: ops.flip(x, axis=-1), [_f(3)], lambda a: a[:, ::-1]),
    ("take", lambda i: ops.take(TABLE, i, axis=0), [_i(4)], lambda i: TABLE[i]),
    ("take_along_axis", lambda x, i: ops.take_along_axis(x, i, axis=1),
     [_f(5), _i(2)], lambda a, i: np.take_along_axis(a, i, 1)),
    ("get_item", lambda x: x[:, 1:, ::2], [_f(3, 4)], lambda a: a[:, 1:, ::2]),
    ("slice", lambda x: ops.slice(x, (0, 1), (BATCH, 2)), [_f(4)], lambda a: a[:, 1:3]),
    ("where", lambda c, a: ops.where(c, a, 0.0), [_b(3), _f(3)],
     lambda c, a: np.where(c, a, 0.0).astype(np.float32)),
    ("one_hot", lambda i: ops.one_hot(i, 5), [_i(3)],
     lambda i: np.eye(5, dtype=np.float32)[i]),
    ("sort", lambda x: ops.sort(x), [_f(5)], lambda a: np.sort(a, -1)),
    ("argsort", lambda x: ops.argsort(x), [_f(5)], lambda a: np.argsort(a, -1).astype(np.int32)),
    ("cumsum", lambda x: ops.cumsum(x, axis=1), [_f(4)], lambda a: np.cumsum(a, 1)),
    ("relu", lambda x: ops.relu(x), [_f(4)], lambda a: np.maximum(a, 0)),
    ("sigmoid", lambda x: ops.sigmoid(x), [_f(4)], lambda a: 1 / (1 + np.exp(-a))),
    ("softmax", lambda x: ops.softmax(x), [_f(4)], _softmax),
    ("log_softmax", lambda x: ops.log_softmax(x, axis=1), [_f(4, 2)],
     lambda a: np.log(_softmax(a, 1))),
    ("silu", lambda x: ops.silu(x), [_f(4)], lambda a: a / (1 + np.exp(-a))),
    ("gelu_exact", lambda x: ops.gelu(x, approximate=False), [_f(4)],
     lambda a: (0.5 * a * (1 + np.vectorize(math.erf)(a / np.sqrt(2)))).astype(np.float32)),
    ("normalize", lambda x: ops.normalize(x), [_f(4)],
     lambda a: a / np.linalg.norm(a, axis=-1, keepdims=True)),
    ("conv1d_same", lambda x: ops.conv(x, K1D, padding="same"), [_f(6, 3)],
     lambda a: _conv1d_same(a, K1D)),
    ("sparse_categorical_crossentropy",
     lambda t, o: ops.sparse_categorical_crossentropy(t, o, from_logits=True), [_i(), _f(5)],
     lambda t, o: -np.log(_softmax(o))[np.arange(BATCH), t]),
]


@pytest.mark.parametrize("name, call, inputs, reference", CASES, ids=[c[0] for c in CASES])
def test_op_on_arrays_and_in_graphs_matches_numpy(name, call, inputs, reference, rng):
    inputs = [make(rng) for make in inputs]
    expected = np.asarray(reference(*inputs))
    eager = call(*[jnp.asarray(a) for a in inputs])
    assert isinstance(eager, jax.Array)
    np.testing.assert_allclose(eager, expected, rtol=1e-5, atol=1e-5)
    assert eager.dtype == expected.dtype, (eager.dtype, expected.dtype)

    symbols = [kg.Input(shape=a.shape[1:], dtype=a.dtype) for a in inputs]
    out = call(*symbols)
    assert isinstance(out, kg.KerasTensor)
    assert isinstance(out._keras_history.layer, Operation)
    assert out.dtype == eager.dtype
    assert len(out.shape) == eager.ndim
    assert all(d is None or d == e for d, e in zip(out.shape, eager.shape)), out.shape
    model = kg.Model(symbols, out)
    program = compiler.compile(model)
    compiled, _ = jax.jit(program.apply)(*compiler.variables(model), list(inputs))
    np.testing.assert_allclose(compiled, expected, rtol=1e-5, atol=1e-5)


def test_broadcast_to_takes_an_unknown_size_as_fitting(rng):
    x = kg.Input(shape=(1, 3), batch_size=2)
    y = ops.broadcast_to(x, (2, 4, 3))
    assert y.shape == (2, 4, 3)
    data = _f(1, 3)(rng)
    np.testing.assert_allclose(kg.Model(x, y)(data), np.broadcast_to(data, (2, 4, 3)))
    # an unknown batch size fits any target size, as Keras's rule
    assert ops.broadcast_to(kg.Input(shape=(1, 3)), (2, 4, 3)).shape == (2, 4, 3)
    with pytest.raises(ValueError, match="Cannot broadcast"):
        ops.broadcast_to(kg.Input(shape=(5, 3)), (2, 4, 3))  # 5 fits no 4


def test_brief_example_mask_from_int_tokens_and_bool_input():
    tokens = kg.Input(shape=(4,), dtype="int32")
    mask = kg.Input(shape=(4,), dtype="bool")
    out = ops.logical_or(ops.not_equal(tokens, 0), mask)
    assert out.shape == (None, 4) and out.dtype == jnp.bool_
    model = kg.Model([tokens, mask], out)
    t = np.array([[0, 3, 0, 1], [2, 0, 0, 0]], np.int32)
    m = np.array([[True, False, False, False], [False, False, True, False]])
    expected = (t != 0) | m
    np.testing.assert_array_equal(model([t, m]), expected)
    program = compiler.compile(model)
    compiled, _ = jax.jit(program.apply)(*compiler.variables(model), [t, m])
    np.testing.assert_array_equal(compiled, expected)


def test_tuple_returning_ops_give_several_tensors(rng):
    x = kg.Input(shape=(6, 3))
    parts = ops.split(x, 3, axis=1)
    values, indices = ops.top_k(x, 2)
    mean, variance = ops.moments(x, axes=[1])
    assert [p.shape for p in parts] == [(None, 2, 3)] * 3
    assert (values.shape, indices.shape, indices.dtype) == ((None, 6, 2), (None, 6, 2),
                                                            jnp.int32)
    assert mean.shape == variance.shape == (None, 3)
    # the outputs of one call share one node
    assert parts[0]._keras_history.layer is parts[2]._keras_history.layer
    assert [p._keras_history.tensor_index for p in parts] == [0, 1, 2]
    model = kg.Model(x, [*parts, values, indices, mean, variance])
    data = rng.normal(size=(2, 6, 3)).astype(np.float32)
    out = model(data)
    for got, want in zip(out[:3], np.split(data, 3, axis=1)):
        np.testing.assert_allclose(got, want)
    order = np.argsort(-data, axis=-1)[..., :2]
    np.testing.assert_allclose(out[3], np.take_along_axis(data, order, -1))
    np.testing.assert_array_equal(out[4], order)
    np.testing.assert_allclose(out[5], data.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[6], data.var(1), rtol=1e-5, atol=1e-6)


def test_every_op_is_registered_under_its_name():
    public = [n for n in ops.__dict__ if not n.startswith("_")]
    for name in ops.op_names():
        fn = ops.get_op(name)
        if name in keras_dialect.ACTIVATION_OPS:  # Keras's activations ops, no ops name
            assert not hasattr(ops, name), name
            continue
        assert getattr(ops, name) is fn, name
        assert fn.op_name == name
    for name in ("add", "sum", "conv", "einsum", "get_item", "split", "moments", "top_k"):
        assert name in public and ops.get_op(name) is getattr(ops, name)
    with pytest.raises(ValueError, match="Unknown op 'no_such_op'"):
        ops.get_op("no_such_op")


def test_operation_config_holds_op_name_and_static_kwargs():
    x = kg.Input(shape=(3, 4))
    y = ops.sum(x, axis=-1, keepdims=True)
    z = ops.cast(x, jnp.int32)
    w = ops.add(x, 1.0)
    assert y._keras_history.layer.get_config() == {
        "name": "sum", "op": "sum", "kwargs": {"axis": -1, "keepdims": True}}
    assert z._keras_history.layer.get_config()["kwargs"] == {"dtype": "int32"}
    assert w._keras_history.layer.get_config() == {"name": "add", "op": "add", "kwargs": {}}
    e = ops.einsum("bij,jk->bik", x, np.ones((4, 2), np.float32))
    assert e._keras_history.layer.get_config()["kwargs"] == {"subscripts": "bij,jk->bik"}


@pytest.mark.parametrize("build", [
    lambda x: ops.sum(x, axis=1),
    lambda x: ops.add(x, 2.0),
    lambda x: 3.0 - x,
    lambda x: x[:, ::-1, 0],
    lambda x: ops.einsum("bij->bji", x),
    lambda x: ops.split(x, 2, axis=-1)[1],
    lambda x: ops.concatenate([x, x * 2.0], axis=1),
    lambda x: ops.cast(ops.argmax(x, axis=-1), "float32"),
], ids=["sum", "add_const", "rsub", "get_item", "einsum", "split", "concatenate", "argmax"])
def test_nodes_rebuild_from_config_with_get_op(build, rng):
    x = kg.Input(shape=(3, 4))
    y = build(x)
    data = rng.normal(size=(2, 3, 4)).astype(np.float32)
    expected = kg.Model(x, y)(data)
    # Rebuild the last node from its config and the original call arguments.
    layer = y._keras_history.layer
    node = layer._inbound_nodes[y._keras_history.node_index]
    config = layer.get_config()
    values = {id(t): v for t, v in zip(node._keras_inputs, _parent_values(node, x, data))}
    args, _ = node.arguments_with([values[id(t)] for t in node._keras_inputs])
    again = ops.get_op(config["op"])(*args, **config["kwargs"])
    clone = Operation.from_config(config)
    again_layer = clone(*args)
    index = y._keras_history.tensor_index
    pick = (lambda r: r[index]) if isinstance(again, (list, tuple)) else (lambda r: r)
    np.testing.assert_allclose(pick(again), expected, rtol=1e-6)
    np.testing.assert_allclose(pick(again_layer), expected, rtol=1e-6)
    assert clone.get_config() == config


def _parent_values(node, x, data):
    return [kg.Model(x, t)(data) if t is not x else data for t in node._keras_inputs]


def test_elementwise_shape_inference_broadcasts_and_types_without_tracing():
    a, b = kg.Input(shape=(1, 3)), kg.Input(shape=(4, 1))
    assert ops.maximum(a, b).shape == (None, 4, 3)
    i = kg.Input(shape=(3,), dtype="int32")
    assert ops.divide(i, i).dtype == jnp.float32  # as jnp: true division gives floats
    assert ops.add(i, 1).dtype == jnp.int32  # Python scalars are weakly typed
    assert ops.greater(i, 0.5).dtype == jnp.bool_
    assert ops.exp(i).dtype == jnp.float32
    with pytest.raises(ValueError, match="cannot broadcast"):
        ops.minimum(kg.Input(shape=(3,)), kg.Input(shape=(4,)))


def test_static_arguments_must_be_python_values():
    x = kg.Input(shape=(3,))
    with pytest.raises(TypeError, match="`axis` of ops.sum must be a Python value"):
        ops.sum(x, axis=kg.Input(shape=(), dtype="int32"))
    with pytest.raises(TypeError, match="ops.sum"):
        ops.sum(x, axes=1)


def test_einsum_accepts_both_call_forms_and_where_needs_both_branches():
    a = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(ops.einsum("ij->j", a), [2, 2, 2])
    np.testing.assert_allclose(ops.einsum(a, subscripts="ij->i"), [3, 3])
    with pytest.raises(ValueError, match="both"):
        ops.where(a > 0, a)


def test_ops_inside_layer_code_compute_on_tracers(rng):
    class Scaled(kg.Layer):
        def call(self, inputs):
            return ops.softmax(ops.multiply(inputs, 2.0), axis=-1)

    x = kg.Input(shape=(4,))
    model = kg.Model(x, Scaled()(x))
    data = rng.normal(size=(2, 4)).astype(np.float32)
    program = compiler.compile(model)
    out, _ = jax.jit(program.apply)(*compiler.variables(model), data)
    np.testing.assert_allclose(out, _softmax(2 * data), rtol=1e-5, atol=1e-6)
    assert [type(n.layer).__name__ for n in program.nodes] == ["Scaled"]


def test_conv_channels_first_strides_and_depthwise(rng):
    x = rng.normal(size=(2, 7, 3)).astype(np.float32)
    channels_first = ops.conv(np.transpose(x, (0, 2, 1)), K1D, strides=2,
                              data_format="channels_first")
    channels_last = ops.conv(x, K1D, strides=2)
    np.testing.assert_allclose(np.transpose(channels_first, (0, 2, 1)), channels_last,
                               rtol=1e-5, atol=1e-5)
    assert channels_last.shape == (2, 3, 2)
    depth = rng.normal(size=(3, 3, 2)).astype(np.float32)  # (width, in, multiplier)
    out = ops.depthwise_conv(x, depth)
    for c in range(3):
        single = ops.conv(x[..., c:c + 1], depth[:, c:c + 1, :])
        np.testing.assert_allclose(out[..., 2 * c:2 * c + 2], single, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="padding"):
        ops.conv(x, K1D, padding="causal")


def test_prod_takes_a_python_sequence_as_keras():
    import keras

    shape = (3, 8, 32)
    assert int(ops.prod(shape)) == int(keras.ops.prod(shape)) == 768
    assert float(ops.prod([1.5, 2.0], axis=0)) == float(keras.ops.prod([1.5, 2.0], axis=0))
