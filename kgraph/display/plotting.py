"""``plot_model`` / ``model_to_dot``: a model's graph drawn by Graphviz.

``model_to_dot`` writes the DOT text itself (one box per layer, an edge per connection,
nested models as dashed clusters with ``expand_nested``); ``plot_model`` runs Graphviz's
``dot`` program on it to write a PNG, SVG, PDF... Graph layout is Graphviz's job: it lays
out large DAGs far better than hand-written code would. Only the ``dot`` executable is
needed (no Python binding).

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,), name="x")
>>> model = kg.Model(x, kg.layers.Dense(2, name="d")(x), name="tiny")
>>> print(model_to_dot(model).splitlines()[0])
digraph "tiny" {
"""

from __future__ import annotations

import html
import os
import shutil
import subprocess

from kgraph import activations
from kgraph.base import catalog
from kgraph.base.layer import Layer
from kgraph.base.shape_inference import format_shapes
from kgraph.display.summary import _count, layer_nodes, summary_rows

__all__ = [
    "INSTALL_HINT", "dot_available", "model_to_dot", "plot_model", "repr_html", "run_dot",
    "summary_html"
]


INSTALL_HINT = (
    "plot_model needs Graphviz's `dot` program, which was not found on PATH. Install "
    "Graphviz: `apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS), "
    "`conda install graphviz`, or see https://graphviz.org/download/.")
_FORMATS = ("png", "svg", "pdf", "jpg", "jpeg", "gif", "ps", "eps", "bmp", "tif", "tiff")
_REPR_MAX_LAYERS = 400  # above this, notebooks show the summary table instead of a drawing


def dot_available() -> bool:
    """True if Graphviz's ``dot`` executable is on PATH."""
    return shutil.which("dot") is not None


def _quote(text) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _is_graph_model(layer) -> bool:
    return catalog.is_instance(layer, "Functional") and layer.built


def _is_sequential(layer) -> bool:
    return catalog.is_instance(layer, "Sequential")


def _shapes_text(tensors):
    return format_shapes([t.shape for t in tensors])


def _same_or_multiple(values):
    values = set(values)
    return values.pop() if len(values) == 1 else ("multiple" if values else "?")


class _DotWriter:
    def __init__(self, show_shapes, show_dtype, show_layer_names, expand_nested,
                 show_layer_activations, show_trainable):
        self.show_shapes = show_shapes
        self.show_dtype = show_dtype
        self.show_layer_names = show_layer_names
        self.expand_nested = expand_nested
        self.show_layer_activations = show_layer_activations
        self.show_trainable = show_trainable
        self.ids: dict = {}  # id(layer) -> DOT node id
        self.taken: set = set()
        self.edges: list = []
        self.edge_set: set = set()

    def node_id(self, layer) -> str:
        key = id(layer)
        if key not in self.ids:
            base, candidate, i = layer.name, layer.name, 1
            while candidate in self.taken:
                candidate = f"{base}#{i}"
                i += 1
            self.taken.add(candidate)
            self.ids[key] = candidate
        return self.ids[key]

    def expands(self, layer) -> bool:
        return self.expand_nested and _is_graph_model(layer)

    # ------------------------------------------------------------------ labels
    def label(self, layer, nodes) -> str:
        e = html.escape
        class_name = type(layer).__name__
        cells = []
        if self.show_shapes:
            if not getattr(layer, "is_input_layer", False):
                shape = _same_or_multiple(_shapes_text(n._keras_inputs) for n in nodes
                                          if n._keras_inputs)
                cells.append(f"Input shape: <b>{e(shape)}</b>")
            shape = _same_or_multiple(_shapes_text(n.outputs) for n in nodes)
            cells.append(f"Output shape: <b>{e(shape)}</b>")
        if self.show_dtype:
            dtype = _same_or_multiple(", ".join(t.dtype.name for t in n.outputs) for n in nodes)
            cells.append(f"Output dtype: <b>{e(dtype)}</b>")
        if self.show_trainable and layer.weights:
            cells.append("<b>Trainable</b>" if layer.trainable else "<b>Non-trainable</b>")
        span = max(1, len(cells))
        title = (f"<b>{e(layer.name)}</b> ({e(class_name)})" if self.show_layer_names
                 else f"<b>{e(class_name)}</b>")
        rows = [f'<tr><td colspan="{span}" bgcolor="black"><font color="white">{title}'
                "</font></td></tr>"]
        activation = getattr(layer, "activation", None)
        if self.show_layer_activations and activation is not None and not isinstance(
                activation, str):
            rows.append(f'<tr><td colspan="{span}">Activation: '
                        f"<b>{e(activations.name_of(activation))}</b></td></tr>")
        if cells:
            rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        return ('<<table border="0" cellborder="1" cellspacing="0" cellpadding="6">'
                + "".join(rows) + "</table>>")

    # ------------------------------------------------------------------- graph
    def add_edge(self, source, destination):
        if id(source) not in self.ids or id(destination) not in self.ids:
            return  # an end not drawn (a Sequential's InputLayer)
        edge = (self.ids[id(source)], self.ids[id(destination)])
        if edge not in self.edge_set:
            self.edge_set.add(edge)
            self.edges.append(edge)

    def model_body(self, model, indent) -> list:
        """DOT lines for the boxes of ``model`` (clusters for expanded nested models)."""
        pad = "  " * indent
        lines = []
        entries = layer_nodes(model)
        if _is_sequential(model):
            entries = [(layer, nodes) for layer, nodes in entries
                       if not getattr(layer, "is_input_layer", False)]
        for layer, nodes in entries:
            if self.expands(layer):
                cluster = f"cluster_{self.node_id(layer)}"
                lines.append(f"{pad}subgraph {_quote(cluster)} {{")
                lines.append(f"{pad}  label={_quote(layer.name)}; style=dashed; "
                             "labeljust=l;")
                lines.extend(self.model_body(layer, indent + 1))
                lines.append(f"{pad}}}")
            else:
                lines.append(f"{pad}{_quote(self.node_id(layer))} "
                             f"[label={self.label(layer, nodes)}];")
        return lines

    def model_edges(self, model):
        """One edge per connection of ``model``'s graph (into/out of expanded models)."""
        stack, seen = [model], {id(model)}
        while stack:
            current = stack.pop()
            for node in getattr(current, "_nodes", ()):
                if self.expands(node.layer) and id(node.layer) not in seen:
                    seen.add(id(node.layer))
                    stack.append(node.layer)
                for input_index, tensor in enumerate(node._keras_inputs):
                    source, _, output_index = tensor._keras_history
                    while self.expands(source):  # the box inside that produces it
                        source, _, output_index = source.outputs[output_index]._keras_history
                    destination = node.layer
                    while self.expands(destination):  # the box inside that receives it
                        if _is_sequential(destination):
                            destination = destination.layers[0]
                        else:
                            destination = destination.inputs[input_index]._keras_history.layer
                    self.add_edge(source, destination)


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True,
                 rankdir="TB", expand_nested=False, dpi=200, show_layer_activations=False,
                 show_trainable=False) -> str:
    """The DOT text (Graphviz) of ``model``'s graph: one box per layer, one edge per
    connection (repeated connections between two layers are drawn once).

    ``expand_nested`` draws nested Functional/Sequential models as clusters of their own
    layers instead of one box. A model that is not a graph (subclassed) is one box.
    """
    if not isinstance(model, Layer):
        raise TypeError(f"model_to_dot expects a kgraph Model, received {type(model).__name__}.")
    if not model.built:
        raise ValueError(f"Model {model.name!r} is not built yet: call it on data (or start "
                         "a Sequential with kg.Input(shape=...)) before plotting it.")
    if rankdir not in ("TB", "LR", "BT", "RL"):
        raise ValueError(f"rankdir must be 'TB', 'LR', 'BT' or 'RL', received {rankdir!r}.")
    writer = _DotWriter(show_shapes, show_dtype, show_layer_names, expand_nested,
                        show_layer_activations, show_trainable)
    lines = [f"digraph {_quote(model.name)} {{",
             f"  graph [rankdir={rankdir}, concentrate=true, dpi={int(dpi)}, "
             'fontname="Helvetica"];',
             '  node [shape=plaintext, fontname="Helvetica", margin=0];']
    if _is_graph_model(model):
        lines.extend(writer.model_body(model, 1))
        if _is_sequential(model) and not expand_nested:
            layers = model.layers
            for source, destination in zip(layers, layers[1:]):
                writer.add_edge(source, destination)
        else:
            writer.model_edges(model)
    else:
        nodes = [n for _, ns in layer_nodes(model) for n in ns if n.layer is model]
        lines.append(f"  {_quote(writer.node_id(model))} [label={writer.label(model, nodes)}];")
    lines.extend(f"  {_quote(a)} -> {_quote(b)};" for a, b in writer.edges)
    lines.append("}")
    return "\n".join(lines) + "\n"


def run_dot(dot_text: str, fmt: str, to_file=None) -> bytes:
    """Run Graphviz ``dot -T<fmt>`` on ``dot_text``; writes ``to_file`` or returns bytes."""
    executable = shutil.which("dot")
    if executable is None:
        raise ImportError(INSTALL_HINT)
    command = [executable, f"-T{fmt}"] + (["-o", os.fspath(to_file)] if to_file else [])
    result = subprocess.run(command, input=dot_text.encode("utf-8"), capture_output=True,
                            timeout=300, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"Graphviz dot failed (exit {result.returncode}): "
                           f"{result.stderr.decode('utf-8', 'replace').strip()}")
    return result.stdout


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False,
               show_layer_names=True, rankdir="TB", expand_nested=False, dpi=200,
               show_layer_activations=False, show_trainable=False):
    """Draw ``model``'s graph to ``to_file`` (format from its extension: .png, .svg, .pdf,
    .dot for the DOT text itself...). Needs Graphviz's ``dot`` program (except for .dot).

    Returns an IPython image of the file when IPython is installed (inline display in a
    notebook, as Keras), else None.
    """
    text = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype,
                        show_layer_names=show_layer_names, rankdir=rankdir,
                        expand_nested=expand_nested, dpi=dpi,
                        show_layer_activations=show_layer_activations,
                        show_trainable=show_trainable)
    extension = os.path.splitext(os.fspath(to_file))[1][1:].lower() or "png"
    if extension in ("dot", "gv"):
        with open(to_file, "w", encoding="utf-8") as f:
            f.write(text)
        return None
    if extension not in _FORMATS:
        raise ValueError(f"plot_model cannot write {to_file!r}: unknown extension "
                         f"{extension!r}; use one of {('dot',) + _FORMATS}.")
    run_dot(text, extension, to_file)
    try:
        from IPython import display
    except ImportError:
        return None
    if extension == "svg":
        return display.SVG(filename=os.fspath(to_file))
    if extension in ("png", "jpg", "jpeg", "gif"):
        return display.Image(filename=os.fspath(to_file))
    return None


def summary_html(model) -> str:
    """The summary table as HTML (the notebook display when Graphviz is missing)."""
    e = html.escape
    rows = summary_rows(model)
    head = "".join(f"<th style='text-align:left'>{h}</th>"
                   for h in ("Layer (type)", "Output Shape", "Param #", "Connected to"))
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in (name, shape, params))
                   + f"<td>{'<br>'.join(e(c) for c in conns)}</td></tr>"
                   for name, shape, params, conns in rows)
    total = f"{_count(model.weights):,}"
    return (f"<b>Model: {e(repr(model.name))}</b><table><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table><p>Total params: {total}</p>")


def repr_html(model) -> str:
    """Jupyter's view of a model: its SVG graph when ``dot`` is installed, else a table."""
    if dot_available() and model.built and _is_graph_model(model) and \
            len(model._nodes) <= _REPR_MAX_LAYERS:
        try:
            svg = run_dot(model_to_dot(model, show_shapes=True), "svg").decode("utf-8")
            start = svg.find("<svg")
            return "<div>" + (svg[start:] if start >= 0 else svg) + "</div>"
        except Exception:  # noqa: BLE001 - fall back to the table, display must not fail
            pass
    return summary_html(model)
