"""Node and KerasHistory: the recorded DAG, including seed 004's shared-layer example."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers


def fetch_nodes(model, output_keras_tensor):
    """Seed 004's recursive ``fetch_nodes``, verbatim in spirit (a reference to compare to)."""
    if any(output_keras_tensor is t for t in model.inputs):
        return []
    layer = output_keras_tensor._keras_history.layer
    node_index = output_keras_tensor._keras_history.node_index
    node = layer._inbound_nodes[node_index]
    node_list = [node]
    for input_keras_tensor in node._keras_inputs:
        node_list += fetch_nodes(model, input_keras_tensor)
    return node_list


def test_every_symbolic_call_appends_a_node():
    layer = layers.Dense(2)
    assert layer._inbound_nodes == []
    a, b = kg.Input(shape=(3,)), kg.Input(shape=(3,))
    ya = layer(a)
    assert len(layer._inbound_nodes) == 1
    yb = layer(b)
    assert len(layer._inbound_nodes) == 2
    for index, (x, y) in enumerate([(a, ya), (b, yb)]):
        node = layer._inbound_nodes[index]
        assert isinstance(node, kg.Node)
        assert node.layer is layer
        assert node._keras_inputs == [x] and node._keras_inputs[0] is x
        assert node.outputs == [y]
        assert node.node_index == index
        assert y._keras_history == kg.KerasHistory(layer, index, 0)
        assert y._keras_history.layer is layer
        assert (y._keras_history.node_index, y._keras_history.tensor_index) == (index, 0)


def test_eager_calls_create_no_nodes():
    layer = layers.Dense(2)
    layer(jnp.ones((1, 3)))
    layer(np.ones((4, 3), np.float32))
    assert layer._inbound_nodes == []


def test_input_layer_node():
    x = kg.Input(shape=(3,), name="features")
    history = x._keras_history
    assert isinstance(history.layer, kg.InputLayer)
    assert history == kg.KerasHistory(history.layer, 0, 0)
    node = history.layer._inbound_nodes[0]
    assert node.is_input and node._keras_inputs == [] and node.outputs == [x]
    assert history.layer.name == "features"


def test_multi_output_tensor_indices():
    class Split(kg.Layer):
        def call(self, inputs):
            return inputs[:, :1], inputs[:, 1:]

    layer = Split()
    left, right = layer(kg.Input(shape=(3,)))
    assert left._keras_history == kg.KerasHistory(layer, 0, 0)
    assert right._keras_history == kg.KerasHistory(layer, 0, 1)
    assert layer._inbound_nodes[0].outputs == [left, right]


def test_merge_node_records_all_inputs_and_parents():
    a, b = kg.Input(shape=(3,)), kg.Input(shape=(3,))
    da = layers.Dense(3)(a)
    merged = layers.Add()([da, b])
    node = merged._keras_history.layer._inbound_nodes[0]
    assert node._keras_inputs == [da, b]
    assert node.parent_nodes == [da._keras_history.layer._inbound_nodes[0],
                                 b._keras_history.layer._inbound_nodes[0]]
    # node.arguments rebuilds the call's structure with values in place of tensors
    args, kwargs = node.arguments_with(["A", "B"])
    assert args == (["A", "B"],) and kwargs == {}


def test_keyword_and_constant_arguments_are_recorded():
    class Scale(kg.Layer):
        def call(self, inputs, factor=1.0, offset=None):
            return inputs * factor + offset

    layer = Scale()
    x, offset = kg.Input(shape=(2,)), kg.Input(shape=(2,))
    y = layer(x, factor=3.0, offset=offset)
    node = layer._inbound_nodes[0]
    assert node._keras_inputs == [x, offset]
    assert node.call_kwargs["factor"] == 3.0
    model = kg.Model([x, offset], y)
    out = model([jnp.ones((1, 2)), jnp.full((1, 2), 0.5)])
    np.testing.assert_allclose(out, [[3.5, 3.5]])


def _seed_004_graph():
    """``node1 -> layer_a -> node2 -> layer_b -> node3`` and ``node4 -> ... -> node6``."""
    in1, in2 = kg.Input(shape=(3,), name="in1"), kg.Input(shape=(3,), name="in2")
    layer_a = layers.Dense(4, name="layer_a")
    layer_b = layers.Dense(2, name="layer_b")
    t2 = layer_a(in1)   # layer_a's first call
    t3 = layer_b(t2)    # layer_b's first call
    t5 = layer_a(in2)   # layer_a's second call
    t6 = layer_b(t5)    # layer_b's second call
    return in1, in2, layer_a, layer_b, t2, t3, t5, t6


def test_seed_004_shared_layers_nodes_and_histories():
    in1, in2, layer_a, layer_b, t2, t3, t5, t6 = _seed_004_graph()
    assert len(layer_a._inbound_nodes) == 2 and len(layer_b._inbound_nodes) == 2
    node1, node4 = layer_a._inbound_nodes
    node2, node5 = layer_b._inbound_nodes
    assert [node1.node_index, node4.node_index] == [0, 1]
    assert [node2.node_index, node5.node_index] == [0, 1]
    assert t2._keras_history == kg.KerasHistory(layer_a, 0, 0)
    assert t5._keras_history == kg.KerasHistory(layer_a, 1, 0)
    assert t3._keras_history == kg.KerasHistory(layer_b, 0, 0)
    assert t6._keras_history == kg.KerasHistory(layer_b, 1, 0)
    assert node1._keras_inputs[0] is in1 and node4._keras_inputs[0] is in2
    assert node2._keras_inputs[0] is t2 and node5._keras_inputs[0] is t5
    # The seed's walk: the producer of t3 is layer_b's node 0, fed by layer_a's node 0.
    assert node2.parent_nodes == [node1] and node5.parent_nodes == [node4]


def test_seed_004_weights_are_shared(tree_allclose):
    in1, in2, layer_a, layer_b, t2, t3, t5, t6 = _seed_004_graph()
    model = kg.Model([in1, in2], [t3, t6])
    # the same Variable objects serve both calls, and appear once in the model
    assert len(layer_a.weights) == 2 and len(layer_b.weights) == 2
    assert [id(v) for v in model.weights] == [id(v) for v in layer_a.weights + layer_b.weights]
    program = compiler.compile(model)
    assert [n.layer.name for n in program.nodes].count("layer_a") == 2
    params, state = program.init(jax.random.PRNGKey(0))
    assert set(params) == {"layer_a", "layer_b"} and state == {}
    assert len(jax.tree_util.tree_leaves(params)) == 4
    assert sum(leaf.size for leaf in jax.tree_util.tree_leaves(params)) == model.count_params()

    x1 = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    x2 = np.random.default_rng(2).normal(size=(5, 3)).astype(np.float32)
    out1, out2 = program.apply(params, state, [x1, x2])[0]
    a, b = params["layer_a"], params["layer_b"]
    ref = lambda v: (v @ a["kernel"] + a["bias"]) @ b["kernel"] + b["bias"]  # noqa: E731
    assert tree_allclose([out1, out2], [ref(x1), ref(x2)], rtol=1e-5)

    # one parameter set drives both branches: its gradient collects from both calls
    def loss(p, which):
        outs = program.apply(p, state, [x1, x2])[0]
        return jnp.sum(outs[which])

    g_both = jax.grad(lambda p: loss(p, 0) + loss(p, 1))(params)
    g_sum = jax.tree_util.tree_map(jnp.add, jax.grad(loss)(params, 0), jax.grad(loss)(params, 1))
    assert tree_allclose(g_both, g_sum, rtol=1e-5)


def test_seed_004_fetch_nodes_agrees_with_program_order(assert_topological):
    in1, in2, layer_a, layer_b, t2, t3, t5, t6 = _seed_004_graph()
    model = kg.Model([in1, in2], [t3, t6])
    program = compiler.compile(model)
    fetched = [n for out in model.outputs for n in fetch_nodes(model, out)]
    fetched = [n for n in fetched if not n.is_input]
    assert {id(n) for n in fetched} == {id(n) for n in program.nodes}
    assert len(program.nodes) == 4
    assert_topological(program.nodes, model.outputs)


def test_node_repr_names_layer_and_index():
    layer = layers.Dense(1)
    layer(kg.Input(shape=(2,)))
    layer(kg.Input(shape=(2,)))
    assert repr(layer._inbound_nodes[1]) == "<Node dense[1]>"


@pytest.mark.parametrize("bad, error, match", [
    (kg.KerasTensor((None, 3)), TypeError, "symbolic tensors made by kg.Input"),
    (np.ones(3), ValueError, "All `outputs` values must be KerasTensors")])  # Keras's
def test_model_rejects_tensors_without_history(bad, error, match):
    x = kg.Input(shape=(3,))
    with pytest.raises(error, match=match):
        kg.Model(x, bad)
