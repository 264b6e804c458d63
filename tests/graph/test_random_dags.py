"""Property test: random DAGs compile to programs that agree with eager evaluation, and
rebuild from their configs into the same model.

Each example builds a random graph step by step (Dense layers, Add/Concatenate merges of
earlier tensors, a second call of an existing Dense on a compatible tensor, operators with
constants and between tensors, slicing, and calls of nested Functional models with one or
two outputs) and records, next to every symbolic step, how to compute it eagerly with the
same layer objects. A nested model is built from fresh Inputs with the same steps; its
Dense layers join the pool the outer graph draws shared layers from (and it may use the
outer graph's), so layers end up shared across nesting levels, and a nested model may be
called more than once. Checks:

- the compiled ``apply`` on the model's own weights matches the eager evaluation, every
  symbolic shape matches its eager shape, and ``program.nodes`` holds exactly the
  reachable calls in a topological order;
- the model rebuilt from its config (``Functional.from_config`` or ``kg.model_from_json``)
  has the same config, the same layer sharing, the same weights count and ``init`` pytree,
  and, after ``clone.set_weights(model.get_weights())``, the same compiled outputs.
"""

import json

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import event, given, settings

import compiler
import kgraph as kg
from kgraph import layers, ops

BATCH = 3
KINDS = ["dense", "dense", "shared", "add", "concat", "mul_const", "add_const", "subtract",
         "negate", "slice", "nested", "nested"]


class Graph:
    """Symbolic tensors with, per step, its source tensors, eager function and call id
    (the outputs of one call of a nested model share a call id)."""

    def __init__(self, inputs):
        self.inputs = list(inputs)
        self.tensors = list(inputs)
        self.steps = []  # (sources, eager_fn, call_id)

    def add(self, tensor, sources, fn, call_id=None):
        self.tensors.append(tensor)
        self.steps.append((sources, fn, len(self.steps) if call_id is None else call_id))

    def evaluate(self, input_values):
        values = list(input_values)
        for sources, fn, _ in self.steps:
            values.append(fn(*[values[i] for i in sources]))
        return values


def _pick(data, candidates):
    return data.draw(st.sampled_from(candidates))


def _likely(data) -> bool:
    """True three times in four (Hypothesis favours the first choice)."""
    return data.draw(st.sampled_from([True, True, True, False]))


def _dense_call(data, graph, candidates):
    """Call one of ``candidates`` (Dense layers) on a tensor of ``graph`` of its input width;
    False if none fits."""
    usable = [(layer, i) for layer in candidates for i, t in enumerate(graph.tensors)
              if t.shape[-1] == layer.weights[0].shape[0]]
    if not usable:
        return False
    layer, i = _pick(data, usable)
    graph.add(layer(graph.tensors[i]), [i], layer)
    return True


def _nested_call(data, graph, pool):
    """Call a nested model (new, or one called before) on tensors of ``graph``; a new one
    may start with a Dense layer of the outer graph, and one of its Dense layers may be
    called right after in the outer graph: layers shared across nesting levels."""
    widths = sorted({t.shape[-1] for t in graph.tensors})
    reusable = [entry for entry in pool["models"] if all(w in widths for w in entry[1])]
    if reusable and data.draw(st.booleans()):
        event("nested model called again")
        model, in_widths, inner, outs, own = _pick(data, reusable)
    else:
        in_widths = data.draw(st.lists(st.sampled_from(widths), min_size=1, max_size=2))
        inner = Graph([kg.Input(shape=(w,)) for w in in_widths])
        outer_dense = list(pool["dense"])
        if not (_likely(data) and _dense_call(data, inner, outer_dense)):
            _build_step(data, inner, pool, nested=False)
        for _ in range(data.draw(st.integers(0, 3))):
            _build_step(data, inner, pool, nested=False)
        steps = range(len(inner.inputs), len(inner.tensors))
        outs = data.draw(st.lists(st.sampled_from(steps), min_size=1, max_size=2, unique=True))
        model = kg.Model(inner.inputs, [inner.tensors[i] for i in outs])
        own = [layer for layer in model.layers if isinstance(layer, layers.Dense)]
        pool["models"].append((model, in_widths, inner, outs, own))
    args = [_pick(data, [i for i, t in enumerate(graph.tensors) if t.shape[-1] == w])
            for w in in_widths]
    results = model([graph.tensors[i] for i in args])
    call_id = len(graph.steps)

    def output(k):
        return lambda *values: inner.evaluate(values)[outs[k]]

    for k, tensor in enumerate(results):
        graph.add(tensor, args, output(k), call_id)
    if _likely(data):
        _dense_call(data, graph, own)


def _build_step(data, graph, pool, nested=True):
    """Add one symbolic step (or a nested model call: one step per output) to ``graph``."""
    tensors = graph.tensors
    indices = list(range(len(tensors)))
    kind = _pick(data, KINDS if nested else KINDS[:-2])
    event(kind)
    if kind == "nested":
        return _nested_call(data, graph, pool)
    if kind == "shared" and _dense_call(data, graph, pool["dense"]):
        return None
    if kind == "shared":
        kind = "dense"
    if kind == "dense":
        i = _pick(data, indices)
        layer = layers.Dense(data.draw(st.integers(1, 4)),
                             activation=_pick(data, [None, "relu", "tanh"]))
        pool["dense"].append(layer)
        return graph.add(layer(tensors[i]), [i], layer)
    if kind == "add":
        width = _pick(data, sorted({t.shape[-1] for t in tensors}))
        same = [i for i in indices if tensors[i].shape[-1] == width]
        chosen = data.draw(st.lists(st.sampled_from(same), min_size=2, max_size=3))
        layer = layers.Add()
        return graph.add(layer([tensors[i] for i in chosen]), chosen,
                         lambda *v: layer(list(v)))
    if kind == "concat":
        chosen = data.draw(st.lists(st.sampled_from(indices), min_size=2, max_size=3))
        layer = layers.Concatenate()
        return graph.add(layer([tensors[i] for i in chosen]), chosen,
                         lambda *v: layer(list(v)))
    if kind == "subtract":
        a = _pick(data, indices)
        b = _pick(data, [i for i in indices if tensors[i].shape == tensors[a].shape])
        return graph.add(tensors[a] - tensors[b], [a, b], ops.subtract)
    i = _pick(data, indices)
    if kind == "slice":
        stop = data.draw(st.integers(1, tensors[i].shape[-1]))
        return graph.add(tensors[i][:, :stop], [i],
                         lambda v: ops.get_item(v, (slice(None), slice(stop))))
    if kind == "negate":
        return graph.add(-tensors[i], [i], ops.negative)
    c = data.draw(st.floats(-2, 2, allow_nan=False, width=32))
    if kind == "mul_const":
        return graph.add(tensors[i] * c, [i], lambda v: ops.multiply(v, c))
    return graph.add(c + tensors[i], [i], lambda v: jnp.add(c, v))  # add_const (reflected)


def _sharing(model):
    """Per layer reachable through nested models, the names of the models that hold it."""
    holders, stack = {}, [model]
    while stack:
        current = stack.pop()
        for layer in current.layers:
            entry = holders.setdefault(id(layer), (layer.name, []))
            entry[1].append(current.name)
            if isinstance(layer, kg.Functional) and len(entry[1]) == 1:
                stack.append(layer)
    return sorted((name, sorted(models)) for name, models in holders.values())


def _check_round_trip(model, program, inputs, out, from_json, tree_allclose):
    text = model.to_json()
    clone = (kg.model_from_json(text) if from_json
             else kg.Functional.from_config(model.get_config()))
    assert json.loads(clone.to_json()) == json.loads(text)
    assert _sharing(clone) == _sharing(model)
    assert len(clone.weights) == len(model.weights)
    clone_program = compiler.compile(clone)
    key = jax.random.PRNGKey(0)
    assert jax.eval_shape(clone_program.init, key) == jax.eval_shape(program.init, key)
    clone.set_weights(model.get_weights())
    clone_out, _ = clone_program.apply(*compiler.variables(clone), inputs)
    assert tree_allclose(clone_out, out, rtol=1e-6, atol=1e-6)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(data=st.data())
def test_random_dag_compiled_equals_eager_and_rebuilds(data, tree_allclose,
                                                       assert_topological):
    widths = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=2))
    graph = Graph([kg.Input(shape=(w,)) for w in widths])
    pool = {"dense": [], "models": []}
    for _ in range(data.draw(st.integers(1, 8))):
        _build_step(data, graph, pool)
    if _likely(data):
        _nested_call(data, graph, pool)  # a nested model near the outputs in most examples
    tensors = graph.tensors
    if _likely(data):  # every step reachable: the outputs are the unused tensors
        used = {i for sources, _, _ in graph.steps for i in sources}
        outputs = [i for i in range(len(widths), len(tensors)) if i not in used]
    else:  # the last step and up to two more: some steps unreachable
        outputs = data.draw(st.lists(st.integers(0, len(tensors) - 2), max_size=2,
                                     unique=True)) + [len(tensors) - 1]
    model = kg.Model(graph.inputs, [tensors[i] for i in outputs])
    shared = sum(len(models) > 1 for _, models in _sharing(model))
    event(f"layers shared across nesting levels: {'yes' if shared else 'no'}")
    event(f"nested models: {sum(isinstance(layer, kg.Functional) for layer in model.layers)}")
    event(f"outputs: {min(len(outputs), 3)}{'+' if len(outputs) > 3 else ''}")

    # eager, step by step, with the same layer objects (their stored weights)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    inputs = [rng.normal(size=(BATCH, w)).astype(np.float32) for w in widths]
    values = graph.evaluate(inputs)
    for tensor, value in zip(tensors, values):
        assert tensor.shape == (None,) + tuple(value.shape[1:])
        assert tensor.dtype == value.dtype

    program = compiler.compile(model)
    out, state = program.apply(*compiler.variables(model), inputs)
    # Model(x, [y]) on arrays gives y, as Keras's (its unpack_singleton)
    expected = [jnp.asarray(values[i]) for i in outputs]
    assert tree_allclose(out, expected if len(expected) > 1 else expected[0], rtol=1e-5,
                         atol=1e-5)
    assert state == {}

    # exactly the calls some output depends on, each once, parents first
    ancestors = [set() for _ in graph.inputs]
    for sources, _, call_id in graph.steps:
        ancestors.append({call_id}.union(*(ancestors[i] for i in sources)))
    reachable = set().union(*(ancestors[i] for i in outputs))
    assert len(program.nodes) == len(reachable)
    assert_topological(program.nodes, model.outputs)

    _check_round_trip(model, program, inputs, out, data.draw(st.booleans()), tree_allclose)
