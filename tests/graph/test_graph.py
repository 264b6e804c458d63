"""The graph walk: deep chains, shared ancestors, topological order, graph errors."""

import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers
from kgraph.interpreter import walk


@pytest.mark.slow
def test_ten_thousand_layer_chain_builds_compiles_and_runs(assert_topological):
    depth = 10_000
    x = kg.Input(shape=(2,))
    h = x
    for _ in range(depth):
        h = layers.Dense(2)(h)
    model = kg.Model(x, h)  # no recursion anywhere: far past Python's recursion limit
    program = compiler.compile(model)
    assert len(program.nodes) == depth
    assert_topological(program.nodes, model.outputs)
    assert program.nodes[0].layer.name == "dense" and program.nodes[-1].layer.name == "dense_9999"

    # Hand-made weights (eager init of 20,000 arrays is slow and not under test here):
    # identity kernels and a 0.5 bias make the result exactly x + 0.5 * depth.
    eye, half = np.eye(2, dtype=np.float32), np.full((2,), 0.5, np.float32)
    params = {node.layer.name: {"kernel": eye, "bias": half} for node in program.nodes}
    values = np.array([[1.0, -2.0]], np.float32)
    out, state = program.apply(params, {}, values)
    assert state == {}
    np.testing.assert_array_equal(out, values + 0.5 * depth)


def _python_lines_run_by_model_and_compile(depth, make_layer):
    x = kg.Input(shape=(2,))
    h = x
    for _ in range(depth):
        h = make_layer()(h)
    lines = [0]

    def count(frame, event, arg):  # every line run, loop iterations in comprehensions too
        lines[0] += 1
        return count

    sys.settrace(count)
    try:
        compiler.compile(kg.Model(x, h))
    finally:
        sys.settrace(None)
    return lines[0]


@pytest.mark.parametrize("make_layer", [lambda: layers.Dense(2),
                                        lambda: layers.Activation("relu")],
                         ids=["Dense", "Activation"])
def test_model_and_compile_do_work_linear_in_the_depth(make_layer):
    # Python lines run (deterministic, unlike time): four times the layers, about four
    # times the lines. A pass comparing every node with every other would make it sixteen.
    small, large = (_python_lines_run_by_model_and_compile(depth, make_layer)
                    for depth in (150, 600))
    assert large / small < 4 * 1.15, (small, large)


def _diamond_ladder(rungs):
    x = kg.Input(shape=(2,))
    h = x
    for _ in range(rungs):
        a = layers.Dense(2, activation="tanh")(h)
        b = layers.Dense(2, activation="tanh")(h)
        h = layers.Add()([a, b])
    return kg.Model(x, h)


def test_ladder_of_diamonds_is_linear(assert_topological):
    # 60 rungs: a walk that re-visits shared ancestors would take 2**60 steps.
    model = _diamond_ladder(60)
    program = compiler.compile(model)
    assert len(program.nodes) == 180
    assert len({id(n) for n in program.nodes}) == 180
    assert_topological(program.nodes, model.outputs)

    values = np.random.default_rng(0).normal(size=(3, 2)).astype(np.float32)
    params, state = compiler.variables(model)
    out, _ = program.apply(params, state, values)
    # reference: the same recurrence in NumPy with the model's weights
    h = values
    for i in range(60):
        a, b = (params[f"dense_{2 * i + j}" if 2 * i + j else "dense"] for j in (0, 1))
        h = (np.tanh(h @ np.asarray(a["kernel"]) + np.asarray(a["bias"]))
             + np.tanh(h @ np.asarray(b["kernel"]) + np.asarray(b["bias"])))
    np.testing.assert_allclose(out, h, rtol=1e-4, atol=1e-5)


def test_order_is_topological_for_a_branchy_graph(assert_topological):
    a, b = kg.Input(shape=(4,)), kg.Input(shape=(4,))
    shared = layers.Dense(4, name="shared")
    p = shared(a)
    q = shared(b)
    r = layers.Concatenate()([q, p, a])
    s = layers.Dense(4)(r) * p + q
    t = layers.Add()([s, layers.Dense(4)(s), p])
    model = kg.Model([a, b], [t, q, s])
    program = compiler.compile(model)
    assert_topological(program.nodes, model.outputs)
    assert sum(n.layer is shared for n in program.nodes) == 2


def test_graph_disconnected_names_input_and_layer():
    a = kg.Input(shape=(3,), name="a")
    b = kg.Input(shape=(3,), name="b")
    merged = layers.Add(name="merge")([layers.Dense(3)(a), b])
    with pytest.raises(ValueError) as info:
        kg.Model(a, merged)
    message = str(info.value)  # Keras's words first, then which Input is missing
    assert message.startswith("Output with path `` is not connected to `inputs`")
    assert "Graph disconnected" in message
    assert 'layer "merge" needs Input "b" (shape=(None, 3), dtype=float32)' in message
    assert '["a"]' in message and "Model(inputs=...)" in message

    with pytest.raises(ValueError,
                       match=r'path `1` is not connected.*Graph disconnected: .*Input "b"'):
        kg.Model(a, [layers.Dense(1)(a), b])  # an output that is another Input


def test_graph_disconnected_deep_in_the_graph():
    a = kg.Input(shape=(3,), name="a")
    side = kg.Input(shape=(3,), name="side")
    h = layers.Dense(3, name="first")(side)
    h = layers.Dense(3, name="second")(h)
    out = layers.Concatenate(name="join")([layers.Dense(3)(a), h])
    with pytest.raises(ValueError, match='layer "first" needs Input "side"'):
        kg.Model(a, out)


def test_duplicate_layer_names_raise():
    x = kg.Input(shape=(3,))
    y = layers.Dense(2, name="same")(layers.Dense(3, name="same")(x))
    with pytest.raises(ValueError, match='The name "same" is used 2 times in the model'):
        kg.Model(x, y)
    with pytest.raises(ValueError, match='The name "x" is used 2 times'):
        i = kg.Input(shape=(3,), name="x")
        kg.Model(i, layers.Dense(3, name="x")(i))


def test_run_graph_returns_values_and_masks():
    x = kg.Input(shape=(2,))
    h = layers.Dense(3, name="hidden")(x)
    model = kg.Model(x, layers.Dense(1, name="out")(h))
    values = jnp.ones((2, 2))
    seen = []

    def run_node(node, args, kwargs, mask):
        seen.append(node.layer.name)
        return node.layer(*args, **kwargs), None

    outputs, masks = walk.run_graph(model.plan, [values], run_node)
    assert seen == ["hidden", "out"] and masks == [None]
    np.testing.assert_allclose(outputs[0], model(values), rtol=1e-6)


def test_topological_order_function_directly():
    x = kg.Input(shape=(2,))
    y = layers.Dense(2)(x)
    z = layers.Dense(2)(y)
    nodes = walk.topological_order([x], [z, y])
    assert [n.layer.name for n in nodes] == ["dense", "dense_1"]
    assert walk.topological_order([x], [x]) == []
    assert jax.tree_util.tree_leaves(nodes[0].outputs) == [y]
