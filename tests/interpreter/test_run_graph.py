"""The interpreter itself (``kgraph.interpreter.walk.run_graph``), driven directly: one loop
runs any ordered node list with the caller's ``run_node``, hooks see every node with its
path, and a run of repeated blocks runs as one scan only where nothing watches its nodes."""

import jax
import jax.numpy as jnp
import numpy as np

import compiler
import kgraph as kg
from kgraph import layers
from kgraph.interpreter import walk
from kgraph.interpreter.plan import Plan
from kgraph.interpreter.walk import NodeHook


def _diamond():
    x = kg.Input(shape=(2,), name="x")
    a = layers.Activation("relu", name="a")(x)
    b = layers.Activation("tanh", name="b")(x)
    return x, layers.Add(name="sum")([a, b])


def test_runs_the_nodes_in_order_with_the_callers_run_node():
    x, out = _diamond()
    nodes = walk.topological_order([x], [out])
    seen = []

    def run_node(node, args, kwargs, input_masks):
        seen.append(node.layer.name)
        return node.layer(*args, **kwargs), None

    values = np.array([[-1.0, 2.0]], np.float32)
    results, masks = walk.run_graph(Plan(nodes, [x], [out]), [values], run_node)
    assert seen.index("sum") == 2 and set(seen) == {"a", "b", "sum"}
    np.testing.assert_allclose(results[0], np.maximum(values, 0) + np.tanh(values), rtol=1e-6)
    assert masks == [None]


def test_an_interpretation_other_than_running_layers():
    x, out = _diamond()
    nodes = walk.topological_order([x], [out])

    def count_nodes_upstream(node, args, kwargs, input_masks):  # a symbolic interpretation
        inputs = args[0] if isinstance(args[0], list) else [args[0]]
        return 1 + sum(inputs), None

    results, _ = walk.run_graph(Plan(nodes, [x], [out]), [0], count_nodes_upstream)
    assert results == [3]  # sum(a(x), b(x)): 1 + (1 + 0) + (1 + 0)


def test_hooks_see_paths_and_may_replace_outputs():
    x, out = _diamond()
    nodes = walk.topological_order([x], [out])

    class Zero(NodeHook):
        def __init__(self):
            self.paths = []

        def after_node(self, node, path, args, kwargs, outputs):
            self.paths.append(path)
            return jnp.zeros_like(outputs) if path == "outer/b" else None

    hook = Zero()
    values = np.array([[-1.0, 2.0]], np.float32)
    results, _ = walk.run_graph(Plan(nodes, [x], [out]), [values],
                                lambda n, a, k, m: (n.layer(*a, **k), None),
                                hooks=(hook,), prefix=("outer",))
    assert sorted(hook.paths) == ["outer/a", "outer/b", "outer/sum"]
    np.testing.assert_allclose(results[0], np.maximum(values, 0))


def test_a_run_of_blocks_is_one_scan_unless_a_hook_watches_its_nodes():
    x = kg.Input(shape=(4,))
    h = x
    for _ in range(4):
        h = layers.Dense(4, activation="tanh")(h)
    model = kg.Model(x, h)
    program = compiler.compile(model)
    assert [len(run.nodes) for run in program.plan.runs] == [4]  # the plan: an argument
    assert model.plan.runs == ()  # the model's own plan unrolls every node
    params, state = program.init(jax.random.PRNGKey(0))
    data = np.ones((2, 4), np.float32)

    class Watch(NodeHook):
        def __init__(self):
            self.count = 0

        def before_node(self, node, path, args, kwargs):
            self.count += 1

    watch = Watch()
    unrolled, _ = program.apply(params, state, data, hooks=(watch,))
    scanned, _ = program.apply(params, state, data)
    assert watch.count == 4  # watched: every block ran as its own node
    np.testing.assert_allclose(scanned, unrolled, rtol=1e-6)
    jaxpr = str(jax.make_jaxpr(lambda p: program.apply(p, state, data)[0])(params))
    assert "scan" in jaxpr
