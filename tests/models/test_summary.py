"""model.summary(): layer names and types, shapes, parameter counts, connections, totals."""

import math

import numpy as np

import compiler
import kgraph as kg
from kgraph import layers


def _summary(model, **kwargs):
    lines = []
    model.summary(print_fn=lines.append, **kwargs)
    assert len(lines) == 1  # one call of print_fn with the whole table
    return lines[0]


def _row(text, name):
    """The table line that starts with ``name``."""
    (line,) = [line for line in text.splitlines() if line.startswith(name + " ")]
    return line


def _count(tree):
    return sum(math.prod(np.shape(leaf)) for leaf in _leaves(tree))


def _leaves(tree):
    if isinstance(tree, dict):
        return [leaf for value in tree.values() for leaf in _leaves(value)]
    return [tree]


def _model():
    x = kg.Input(shape=(32,), name="pixels")
    h = layers.Dense(64, activation="relu")(x)
    n = layers.BatchNormalization()(h)
    s = layers.Add()([h, n])
    return kg.Model(x, layers.Dense(10, name="logits")(s), name="classifier")


def test_summary_rows():
    model = _model()
    text = _summary(model)
    assert text.splitlines()[0] == 'Model: "classifier"'
    for header in ("Layer (type)", "Output Shape", "Param #", "Connected to"):
        assert header in text
    assert _row(text, "pixels (InputLayer)").split()[2:] == ["(None,", "32)", "0", "-"]
    dense = _row(text, "dense (Dense)")
    assert "(None, 64)" in dense and f"{32 * 64 + 64:,}" in dense
    assert dense.rstrip().endswith("pixels[0][0]")
    bn = _row(text, "batch_normalization (BatchNormalization)")
    assert f"{4 * 64}" in bn and bn.rstrip().endswith("dense[0][0]")
    add = _row(text, "add (Add)")
    assert add.rstrip().endswith("dense[0][0]")
    lines = text.splitlines()
    # a layer with several inputs lists each on its own line
    assert lines[lines.index(add) + 1].strip() == "batch_normalization[0][0]"
    logits = _row(text, "logits (Dense)")
    assert "(None, 10)" in logits and f"{64 * 10 + 10:,}" in logits
    assert logits.rstrip().endswith("add[0][0]")


def test_summary_totals_match_independent_counts():
    model = _model()
    model.get_layer("logits").trainable = False
    params, state = compiler.variables(model)
    trainable, frozen = _count(params), _count(state)
    text = _summary(model)
    total = trainable + frozen
    assert f"Total params: {total:,} ({total * 4 / 1024:.2f} KB)" in text  # float32: 4 bytes
    assert f"Trainable params: {trainable:,} (" in text
    assert f"Non-trainable params: {frozen:,} (" in text
    # and the same numbers from the layer sizes themselves
    assert trainable + frozen == (32 * 64 + 64) + 4 * 64 + (64 * 10 + 10)
    assert frozen == 2 * 64 + (64 * 10 + 10)
    assert model.count_params() == trainable + frozen


def test_summary_of_shared_layer_and_nested_model():
    a, b = kg.Input(shape=(3,), name="left"), kg.Input(shape=(3,), name="right")
    shared = layers.Dense(2, name="shared")
    i = kg.Input(shape=(2,))
    inner = kg.Model(i, layers.Dense(1)(i), name="head")
    model = kg.Model([a, b], inner(layers.Concatenate(axis=0)([shared(a), shared(b)])))
    text = _summary(model, line_length=120)
    assert all(len(line) <= 120 for line in text.splitlines())
    assert "=" * 120 in text
    row = _row(text, "shared (Dense)")
    assert "8" in row.split() and row.rstrip().endswith("left[0][0]")
    lines = text.splitlines()
    assert lines[lines.index(row) + 1].strip() == "right[0][0]"
    assert "concatenate[0][0]" in _row(text, "head (Functional)")
    assert "shared[1][0]" in text  # the second call is node 1
    assert f"Total params: {3 * 2 + 2 + 2 + 1}" in text


def test_summary_shared_layer_with_different_output_shapes():
    a, b = kg.Input(shape=(3,)), kg.Input(shape=(4, 3))
    shared = layers.Dense(2, name="shared")
    model = kg.Model([a, b], [shared(a), shared(b)])
    row = _row(_summary(model), "shared (Dense)")
    assert row.split()[2:4] == ["multiple", "8"]
