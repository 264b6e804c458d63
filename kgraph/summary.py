"""``model.summary()``: layers, output shapes, parameter counts and connections."""

from __future__ import annotations

import math


def _fmt_shape(shape):
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _output_shape(nodes):
    shapes = set()
    for node in nodes:
        s = [_fmt_shape(t.shape) for t in node.outputs]
        shapes.add(s[0] if len(s) == 1 else "[" + ", ".join(s) + "]")
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


def summary_rows(model):
    """``(name (type), output shape, params, [connections])`` per layer, in run order."""
    nodes_of = {}
    for t in getattr(model, "inputs", []):
        layer = t._keras_history.layer
        nodes_of.setdefault(id(layer), (layer, []))[1].append(
            layer._inbound_nodes[t._keras_history.node_index])
    for node in getattr(model, "_nodes", []):
        nodes_of.setdefault(id(node.layer), (node.layer, []))[1].append(node)
    rows = []
    for layer, nodes in nodes_of.values():
        rows.append((f"{layer.name} ({type(layer).__name__})", _output_shape(nodes),
                     f"{_count(layer.weights):,}", _connections(nodes)))
    return rows


def summary_text(model, line_length=None) -> str:
    rows = summary_rows(model)
    headers = ("Layer (type)", "Output Shape", "Param #", "Connected to")
    widths = [max([len(headers[i])] + [len(r[i]) for r in rows]) + 2 for i in range(3)]
    widths.append(max([len(headers[3])] + [len(c) for r in rows for c in r[3]]) + 1)
    total = sum(widths)
    if line_length:
        total = max(total, line_length)
    lines = [f'Model: "{model.name}"', "=" * total,
             "".join(h.ljust(w) for h, w in zip(headers, widths)), "=" * total]
    for name, shape, params, conns in rows:
        lines.append("".join(c.ljust(w) for c, w in zip((name, shape, params, conns[0]), widths)))
        for extra in conns[1:]:
            lines.append(" " * sum(widths[:3]) + extra)
        lines.append("-" * total)
    lines[-1] = "=" * total
    trainable = model.trainable_weights
    non_trainable = model.non_trainable_weights
    lines += [f"Total params: {_count(model.weights):,} ({_bytes(model.weights)})",
              f"Trainable params: {_count(trainable):,} ({_bytes(trainable)})",
              f"Non-trainable params: {_count(non_trainable):,} ({_bytes(non_trainable)})"]
    return "\n".join(lines)
