"""Property test: random DAGs compile to programs that agree with eager evaluation.

Each example builds a random graph step by step (Dense layers, Add/Concatenate merges of
earlier tensors, a second call of an existing Dense on a compatible tensor, operators with
constants and between tensors, slicing) and records, next to every symbolic step, how to
compute it eagerly with the same layer objects. The compiled ``apply`` on the model's own
weights must match that eager evaluation, every symbolic shape must match its eager shape,
and ``program.nodes`` must hold exactly the reachable steps in a topological order.
"""

import hypothesis.strategies as st
import jax.numpy as jnp
import numpy as np
from hypothesis import event, given, settings

import compiler
import kgraph as kg
from kgraph import layers, ops

BATCH = 3
KINDS = ["dense", "dense", "shared", "add", "concat", "mul_const", "add_const", "subtract",
         "negate", "slice"]


def _pick(data, candidates):
    return data.draw(st.sampled_from(candidates))


def _build_step(data, tensors, dense_layers):
    """Add one symbolic step; return ``(tensor, sources, eager_fn)``."""
    indices = list(range(len(tensors)))
    kind = _pick(data, KINDS)
    event(kind)
    if kind == "shared":
        usable = [(layer, i) for layer in dense_layers for i in indices
                  if tensors[i].shape[-1] == layer.weights[0].shape[0]]
        if usable:
            layer, i = _pick(data, usable)
            return layer(tensors[i]), [i], layer
        kind = "dense"
    if kind == "dense":
        i = _pick(data, indices)
        layer = layers.Dense(data.draw(st.integers(1, 4)),
                             activation=_pick(data, [None, "relu", "tanh"]))
        dense_layers.append(layer)
        return layer(tensors[i]), [i], layer
    if kind == "add":
        width = _pick(data, sorted({t.shape[-1] for t in tensors}))
        same = [i for i in indices if tensors[i].shape[-1] == width]
        chosen = data.draw(st.lists(st.sampled_from(same), min_size=2, max_size=3))
        layer = layers.Add()
        return layer([tensors[i] for i in chosen]), chosen, lambda *v: layer(list(v))
    if kind == "concat":
        chosen = data.draw(st.lists(st.sampled_from(indices), min_size=2, max_size=3))
        layer = layers.Concatenate()
        return layer([tensors[i] for i in chosen]), chosen, lambda *v: layer(list(v))
    if kind == "subtract":
        a = _pick(data, indices)
        b = _pick(data, [i for i in indices if tensors[i].shape == tensors[a].shape])
        return tensors[a] - tensors[b], [a, b], ops.subtract
    i = _pick(data, indices)
    if kind == "slice":
        stop = data.draw(st.integers(1, tensors[i].shape[-1]))
        return tensors[i][:, :stop], [i], lambda v: ops.get_item(v, (slice(None), slice(stop)))
    if kind == "negate":
        return -tensors[i], [i], ops.negative
    c = data.draw(st.floats(-2, 2, allow_nan=False, width=32))
    if kind == "mul_const":
        return tensors[i] * c, [i], lambda v: ops.multiply(v, c)
    return c + tensors[i], [i], lambda v: jnp.add(c, v)  # add_const (reflected operator)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_random_dag_compiled_equals_eager(data, tree_allclose, assert_topological):
    widths = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=2))
    inputs = [kg.Input(shape=(w,)) for w in widths]
    tensors, sources, eager_fns, dense_layers = list(inputs), [], [], []
    for _ in range(data.draw(st.integers(1, 8))):
        tensor, srcs, fn = _build_step(data, tensors, dense_layers)
        tensors.append(tensor)
        sources.append(srcs)
        eager_fns.append(fn)
    outputs = data.draw(st.lists(st.integers(0, len(tensors) - 1), min_size=1, max_size=3,
                                 unique=True))
    model = kg.Model(inputs, [tensors[i] for i in outputs])

    # eager, step by step, with the same layer objects (their stored weights)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    values = [rng.normal(size=(BATCH, w)).astype(np.float32) for w in widths]
    for srcs, fn in zip(sources, eager_fns):
        values.append(fn(*[values[i] for i in srcs]))
    for tensor, value in zip(tensors, values):
        assert tensor.shape == (None,) + tuple(value.shape[1:])
        assert tensor.dtype == value.dtype

    program = compiler.compile(model)
    out, state = program.apply(*compiler.variables(model), values[:len(inputs)])
    expected = [values[i] for i in outputs]
    assert tree_allclose(out, [jnp.asarray(v) for v in expected], rtol=1e-5, atol=1e-5)
    assert state == {}

    # exactly the steps some output depends on, each once, parents first
    ancestors = [set() for _ in inputs]
    for step, srcs in enumerate(sources):
        ancestors.append({len(inputs) + step}.union(*(ancestors[i] for i in srcs)))
    reachable = set().union(*(ancestors[i] for i in outputs))
    assert len(program.nodes) == len(reachable)
    assert_topological(program.nodes, model.outputs)
