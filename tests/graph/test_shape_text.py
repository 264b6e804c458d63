"""Shapes are written one way everywhere: summary, plot labels, InputSpec and layer errors."""

import pytest

import kgraph as kg
from kgraph import layers
from kgraph.base.shape_inference import format_shape, format_shapes


def test_format_shape_and_shapes():
    assert format_shape((None, 3)) == "(None, 3)"
    assert format_shape((5,)) == "(5,)" and format_shape(()) == "()"
    assert format_shapes([(None, 3)]) == "(None, 3)"
    assert format_shapes([(None, 3), (4,)]) == "[(None, 3), (4,)]"


def test_summary_plot_and_merge_errors_use_the_same_text():
    a, b = kg.Input(shape=(3,), name="a"), kg.Input(shape=(4,), name="b")
    model = kg.Model([a, b], [layers.Dense(2, name="d")(a), b])
    lines = []
    model.summary(print_fn=lines.append)
    assert "(None, 2)" in lines[0]
    dot = kg.model_to_dot(model, show_shapes=True)
    assert "(None, 2)" in dot
    with pytest.raises(ValueError, match=r"\[\(None, 3\), \(None, 4\)\]"):
        layers.Add()([a, b])
