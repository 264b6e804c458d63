"""plot_model / model_to_dot: DOT text written by kgraph, drawn by Graphviz's dot.

The drawing tests need the Graphviz ``dot`` program and skip without it (.ci/run installs it).
"""

import re

import pytest

import kgraph as kg
from kgraph import layers
from kgraph.display import plotting
from tests.support.helpers import needs_dot

NODE = re.compile(r'^\s*"([^"]+)" \[label=<(.*)>\];$')
EDGE = re.compile(r'^\s*"([^"]+)" -> "([^"]+)";$')


def _parse(dot):
    """``({node_id: label}, [(source, destination), ...], [cluster lines])``."""
    nodes, edges = {}, []
    for line in dot.splitlines():
        if (m := NODE.match(line)):
            assert m.group(1) not in nodes, f"node {m.group(1)} declared twice"
            nodes[m.group(1)] = m.group(2)
        elif (m := EDGE.match(line)):
            edges.append((m.group(1), m.group(2)))
    return nodes, edges


def _diamond_with_shared_layer():
    x = kg.Input(shape=(4,), name="x")
    shared = layers.Dense(4, name="shared")
    left = layers.Dense(3, activation="relu", name="left")(shared(x))
    right = layers.Dense(3, name="right")(shared(shared(x)))  # shared: 3 calls
    merged = layers.Concatenate(name="merge")([left, right])
    return kg.Model(x, layers.Dense(1, name="head")(merged), name="diamond")


def test_one_node_per_layer_and_one_edge_per_connection():
    model = _diamond_with_shared_layer()
    dot = kg.model_to_dot(model, show_shapes=True)
    assert dot.startswith('digraph "diamond" {') and dot.rstrip().endswith("}")
    nodes, edges = _parse(dot)
    assert set(nodes) == {"x", "shared", "left", "right", "merge", "head"}
    assert sorted(edges) == sorted([("x", "shared"), ("shared", "shared"), ("shared", "left"),
                                    ("shared", "right"), ("left", "merge"), ("right", "merge"),
                                    ("merge", "head")])
    assert "<b>left</b> (Dense)" in nodes["left"]
    assert "Input shape: <b>(None, 4)</b>" in nodes["left"]
    assert "Output shape: <b>(None, 3)</b>" in nodes["left"]
    assert "Input shape: <b>[(None, 3), (None, 3)]</b>" in nodes["merge"]
    assert "Input shape" not in nodes["x"] and "Output shape: <b>(None, 4)</b>" in nodes["x"]
    plain = kg.model_to_dot(model)
    assert "Output shape" not in plain and "rankdir=TB" in plain and "dpi=200" in plain


def test_label_options():
    model = _diamond_with_shared_layer()
    nodes, _ = _parse(kg.model_to_dot(model, show_layer_names=False, show_dtype=True,
                                      show_layer_activations=True, show_trainable=True,
                                      rankdir="LR", dpi=72))
    assert "<b>Dense</b>" in nodes["left"] and "left" not in nodes["left"]
    assert "Activation: <b>relu</b>" in nodes["left"]
    assert "Output dtype: <b>float32</b>" in nodes["left"]
    assert "<b>Trainable</b>" in nodes["left"] and "Trainable" not in nodes["merge"]
    model.get_layer("head").trainable = False
    nodes, _ = _parse(kg.model_to_dot(model, show_trainable=True))
    assert "Non-trainable" in nodes["head"]
    assert "rankdir=LR" in kg.model_to_dot(model, rankdir="LR")
    with pytest.raises(ValueError, match="rankdir"):
        kg.model_to_dot(model, rankdir="XY")


def test_shared_layer_called_with_different_shapes_shows_multiple():
    a, b = kg.Input(shape=(3,), name="a"), kg.Input(shape=(5, 3), name="b")
    shared = layers.Dense(2, name="shared")
    model = kg.Model([a, b], [shared(a), shared(b)])
    nodes, edges = _parse(kg.model_to_dot(model, show_shapes=True))
    assert "Output shape: <b>multiple</b>" in nodes["shared"]
    assert sorted(edges) == [("a", "shared"), ("b", "shared")]


def _nested():
    i = kg.Input(shape=(3,), name="inner_in")
    inner = kg.Model(i, layers.Dense(2, name="inner_dense")(i), name="inner")
    x = kg.Input(shape=(3,), name="x")
    h = layers.Dense(3, name="pre")(x)
    return kg.Model(x, layers.Dense(1, name="post")(inner(h)), name="outer")


def test_nested_model_is_one_box_or_an_expanded_cluster():
    model = _nested()
    nodes, edges = _parse(kg.model_to_dot(model))
    assert set(nodes) == {"x", "pre", "inner", "post"}
    assert edges == [("x", "pre"), ("pre", "inner"), ("inner", "post")]
    dot = kg.model_to_dot(model, expand_nested=True, show_shapes=True)
    nodes, edges = _parse(dot)
    assert set(nodes) == {"x", "pre", "inner_in", "inner_dense", "post"}
    assert sorted(edges) == sorted([("x", "pre"), ("pre", "inner_in"),
                                    ("inner_in", "inner_dense"), ("inner_dense", "post")])
    cluster = dot[dot.index('subgraph "cluster_inner" {'):]
    cluster = cluster[:cluster.index("  }")]
    assert 'label="inner"' in cluster and '"inner_dense" [label=' in cluster
    assert '"pre" [label=' not in cluster


def test_sequential_plots_without_its_input_layer():
    block = kg.Sequential([layers.Dense(4, name="b1"), layers.Dense(4, name="b2")],
                          name="block")
    model = kg.Sequential([kg.Input(shape=(3,)), layers.Dense(4, name="first"), block,
                           layers.Dense(1, name="last")], name="seq")
    nodes, edges = _parse(kg.model_to_dot(model))
    assert set(nodes) == {"first", "block", "last"}
    assert edges == [("first", "block"), ("block", "last")]
    nodes, edges = _parse(kg.model_to_dot(model, expand_nested=True))
    assert set(nodes) == {"first", "b1", "b2", "last"}
    assert sorted(edges) == sorted([("first", "b1"), ("b1", "b2"), ("b2", "last")])


def test_unbuilt_model_cannot_be_plotted():
    with pytest.raises(ValueError, match="not built yet"):
        kg.model_to_dot(kg.Sequential([layers.Dense(2)]))


@needs_dot
def test_plot_model_writes_png_svg_and_pdf(tmp_path):
    model = _diamond_with_shared_layer()
    png = tmp_path / "model.png"
    kg.plot_model(model, to_file=str(png), show_shapes=True, dpi=50)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = tmp_path / "model.svg"
    kg.plot_model(model, to_file=svg, expand_nested=True)
    text = svg.read_text()
    assert "<svg" in text and text.rstrip().endswith("</svg>")
    assert "merge" in text and "shared" in text
    pdf = tmp_path / "model.pdf"
    assert kg.plot_model(model, to_file=str(pdf)) is None
    assert pdf.read_bytes()[:5] == b"%PDF-"
    dot_file = tmp_path / "model.dot"
    kg.plot_model(model, to_file=str(dot_file))
    assert dot_file.read_text() == kg.model_to_dot(model)
    with pytest.raises(ValueError, match="unknown extension 'txt'"):
        kg.plot_model(model, to_file=str(tmp_path / "model.txt"))


def test_missing_graphviz_gives_install_instructions(monkeypatch, tmp_path):
    monkeypatch.setattr(plotting.shutil, "which", lambda name: None)
    model = _nested()
    with pytest.raises(ImportError, match="apt-get install graphviz.*brew install graphviz"):
        kg.plot_model(model, to_file=str(tmp_path / "m.png"))
    html = model._repr_html_()  # notebooks fall back to the summary table
    assert "<table>" in html and "inner (Functional)" in html and "<svg" not in html
    assert "pre[0][0]" in html


@needs_dot
def test_notebook_display_is_the_svg_graph():
    html = _nested()._repr_html_()
    assert html.startswith("<div><svg") and html.endswith("</div>") and "</svg>" in html
    assert "inner" in html and "(None, 3)" in html
