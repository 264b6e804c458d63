"""``model.summary()``: layers, output shapes, parameter counts and connections."""

from __future__ import annotations

import math

from kgraph.base.shape_inference import format_shapes

__all__ = ["layer_nodes", "summary_rows", "summary_text"]


def _output_shape(nodes):
    shapes = {format_shapes([t.shape for t in node.outputs]) for node in nodes}
    return shapes.pop() if len(shapes) == 1 else "multiple"


def _connections(nodes):
    parts = []
    for node in nodes:
        for t in node._keras_inputs:
            h = t._keras_history
            parts.append(f"{h.layer.name}[{h.node_index}][{h.tensor_index}]")
    return parts or ["-"]


def _count(weights):
    return sum(math.prod(v.shape) for v in weights)


def _bytes(weights):
    n = sum(math.prod(v.shape) * v.dtype.itemsize for v in weights)
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.2f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024


def layer_nodes(model) -> list:
    """``[(layer, [its nodes in this model]), ...]`` in ``model.layers``' order (Keras's:
    by depth), each layer's nodes in run order."""
    nodes_of = {}
    for t in getattr(model, "inputs", []):
        layer = t._keras_history.layer
        nodes_of.setdefault(id(layer), (layer, []))[1].append(
            layer._inbound_nodes[t._keras_history.node_index])
    for node in getattr(model, "_nodes", []):
        nodes_of.setdefault(id(node.layer), (node.layer, []))[1].append(node)
    position = {id(layer): i for i, layer in enumerate(getattr(model, "_layers", []))}
    return sorted(nodes_of.values(), key=lambda item: position.get(id(item[0]), len(position)))


def _unbuilt_layers(model):
    """The layers of a model that is not built yet (a Sequential without input shape)."""
    if getattr(model, "built", True) or not hasattr(model, "_stack"):
        return None
    return list(model._stack)


def summary_rows(model):
    """``(name (type), output shape, params, [connections])`` per layer, in run order."""
    unbuilt = _unbuilt_layers(model)
    if unbuilt is not None:
        return [(f"{layer.name} ({type(layer).__name__})", "?",
                 f"{_count(layer.weights):,}" if layer.built else "0 (unbuilt)", ["-"])
                for layer in unbuilt]
    rows = []
    for layer, nodes in layer_nodes(model):
        rows.append((f"{layer.name} ({type(layer).__name__})", _output_shape(nodes),
                     f"{_count(layer.weights):,}", _connections(nodes)))
    return rows


def _is_nested_model(layer) -> bool:
    """A built layer with a graph of its own (only models have ``_nodes``, the graph
    ``layer_nodes`` lists), so kgraph.models.model can import this module."""
    return layer.built and bool(getattr(layer, "_nodes", None))


def _trainable_flag(layer) -> str:
    if not layer.weights:
        return "-"
    return "Y" if layer.trainable else "N"


def _table_rows(model, expand_nested, depth=0):
    """``(row, layer, depth)`` for the model's layers, nested models' layers under theirs."""
    unbuilt = _unbuilt_layers(model)
    layers = unbuilt if unbuilt is not None else [layer for layer, _ in layer_nodes(model)]
    result = []
    for row, layer in zip(summary_rows(model), layers):
        if depth:
            row = ("   " * (depth - 1) + "\u2514 " + row[0], *row[1:])
        result.append((row, layer, depth))
        if expand_nested and _is_nested_model(layer):
            result.extend(_table_rows(layer, True, depth + 1))
    return result


def summary_text(model, line_length=None, expand_nested=False, show_trainable=False) -> str:
    table = _table_rows(model, expand_nested)
    rows = [row for row, _, _ in table]
    headers = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    widths = [max([len(headers[i])] + [len(r[i]) for r in rows]) + 2 for i in range(3)]
    widths.append(max([len(headers[3])] + [len(c) for r in rows for c in r[3]]) + 1)
    if show_trainable:
        headers.append("Trainable")
        widths[3] += 1
        widths.append(len("Trainable"))
    total = sum(widths)
    if line_length:
        total = max(total, line_length)
    lines = [f'Model: "{model.name}"', "=" * total,
             "".join(h.ljust(w) for h, w in zip(headers, widths)), "=" * total]
    for i, ((name, shape, params, conns), layer, depth) in enumerate(table):
        cells = [name, shape, params, conns[0]]
        if show_trainable:
            cells.append(_trainable_flag(layer).center(widths[4]))
        lines.append("".join(c.ljust(w) for c, w in zip(cells, widths)))
        for extra in conns[1:]:
            lines.append(" " * sum(widths[:3]) + extra)
        if i + 1 == len(table) or table[i + 1][2] == 0:
            lines.append("-" * total)
    if table:
        lines[-1] = "=" * total
    trainable = model.trainable_weights
    non_trainable = model.non_trainable_weights
    lines += [f"Total params: {_count(model.weights):,} ({_bytes(model.weights)})",
              f"Trainable params: {_count(trainable):,} ({_bytes(trainable)})",
              f"Non-trainable params: {_count(non_trainable):,} ({_bytes(non_trainable)})"]
    if _unbuilt_layers(model) is not None:
        lines.append(f"Model {model.name!r} is not built yet: call it on data, or start it "
                     "with kg.Input(shape=...), to see output shapes and all parameters.")
    return "\n".join(lines)
