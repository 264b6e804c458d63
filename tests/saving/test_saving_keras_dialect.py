"""kgraph's op nodes as Keras's op classes, checked against Keras itself: every op maps to
the Keras class of its name (or is listed as having none), the parameters Keras passes at
call time and to the constructor are the ones the dialect moves, and graphs of ops travel
both ways through ``.keras`` files with the same numbers."""

import importlib
import inspect

import keras
import numpy as np
import pytest

import kgraph as kg
from kgraph.ops import registry
from kgraph.saving import keras_dialect as dialect

OPS_WITH_KERAS_CLASS = [op for op in registry.op_names() if op not in dialect.NO_KERAS_CLASS]


def _keras_class(op):
    module = importlib.import_module(dialect.keras_module(op))
    return getattr(module, dialect.keras_class_name(op), None)


def _params(fn, drop=("self", "name", "args", "kwargs")):
    return [p for p in inspect.signature(fn).parameters if p not in drop]


@pytest.mark.parametrize("op", OPS_WITH_KERAS_CLASS)
def test_each_op_has_its_keras_class_and_the_same_parameters(op):
    cls = _keras_class(op)
    assert isinstance(cls, type), f"no {dialect.keras_module(op)}.{dialect.keras_class_name(op)}"
    public = registry.get_op(op)
    if not hasattr(public, "tensor_params"):
        return  # a hand-written op (einsum): its node arguments are all its parameters
    kgraph_params = set(public.tensor_params) | set(public.static_params)
    keras_call = _params(cls.call)
    moved = dialect._KERAS_CALL_PARAMS.get(op)
    if moved is None:  # tensors by position (Keras's x, y are kgraph's x1, x2)
        assert len(keras_call) == len(public.tensor_params), op
        moved = public.tensor_params
    else:
        assert list(moved) == keras_call, op
    keras_only = set(dialect._KERAS_ONLY_PARAMS.get(op, {}))
    kgraph_only = set(dialect._KGRAPH_ONLY_PARAMS.get(op, {}))
    assert set(_params(cls.__init__)) == (kgraph_params - set(moved) - kgraph_only) | keras_only
    defaults = {p: v.default for p, v in inspect.signature(cls.__init__).parameters.items()}
    for param, default in dialect._KERAS_ONLY_PARAMS.get(op, {}).items():
        assert defaults[param] == default


def test_ops_without_a_keras_class_are_exactly_those_listed():
    missing = {op for op in registry.op_names() if not isinstance(_keras_class(op), type)}
    assert missing == set(dialect.NO_KERAS_CLASS)


def _graph(K):
    ops = K.ops
    x = K.Input(shape=(3, 4), name="x")
    t = K.Input(shape=(5,), dtype="int32", name="t")
    outputs = [ops.cast(ops.sum(x, axis=1), "int32"), ops.transpose(x, (0, 2, 1)),
               ops.reshape(x, (-1, 12)), ops.matmul(x, np.ones((4, 2), "float32")),
               ops.expand_dims(x, -1), ops.nn.relu(x), ops.softmax(x, axis=-1),
               ops.concatenate([x, x], axis=1), ops.where(ops.greater(x, 0.5), x, 0.0),
               ops.mean(x, axis=[1, 2], keepdims=True), ops.clip(x, 0.2, 0.8),
               x[:, 1:3, ...], ops.stack([x, x], axis=1), ops.squeeze(x[:, :1], axis=1),
               ops.logical_or(ops.not_equal(t, 0), ops.equal(t, 3)),
               ops.take(x, np.array([0, 2], "int32"), axis=1), ops.erf(x),
               ops.pad(x, ((0, 0), (1, 1), (0, 0))), ops.top_k(ops.sum(x, 1), 2)[0]]
    return K.Model([x, t], outputs)


def _inputs():
    rng = np.random.default_rng(0)
    return [rng.uniform(size=(2, 3, 4)).astype("float32"),
            rng.integers(0, 4, (2, 5)).astype("int32")]


def _check(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64),
                                   rtol=1e-6, atol=1e-6)


def test_a_keras_graph_of_ops_loads_into_kgraph(tmp_path):
    model = _graph(keras)
    path = str(tmp_path / "ops.keras")
    model.save(path)
    _check(kg.load_model(path)(_inputs()), model(_inputs()))


def test_a_kgraph_graph_of_ops_loads_into_keras(tmp_path):
    model = _graph(kg)
    path = str(tmp_path / "ops.keras")
    model.save(path)
    _check(keras.saving.load_model(path)(_inputs()), model(_inputs()))


def test_an_op_keras_cannot_express_is_refused_when_writing_for_keras():
    x = kg.Input(shape=(3,))
    model = kg.Model(x, kg.ops.clip(x, 0.0, kg.ops.max(x)))  # a computed bound
    with pytest.raises(kg.saving.ConfigError,
                       match=r"op 'clip'.*Keras takes \['x_max'\] as constants"):
        dialect.to_keras(kg.saving.serialize_layer(model))


def test_keras_op_parameters_kgraph_lacks_are_refused_with_their_path():
    entry = {"module": "keras.src.ops.nn", "class_name": "LayerNorm",
             "config": {"name": "c", "rms_scaling": True}, "registered_name": "LayerNorm",
             "name": "c", "inbound_nodes": [{"args": [], "kwargs": {}}]}
    with pytest.raises(kg.saving.ConfigError, match=r'config\["config"\]\["layers"\]\[0\].*'
                                                    "supports only rms_scaling=False"):
        dialect.from_keras({"config": {"layers": [entry]}})
