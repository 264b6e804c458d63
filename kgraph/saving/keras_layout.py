"""Where Keras 3 keeps each weight of a model in its weights file (``model.weights.h5``).

Keras does not address a layer by its name: a model's layers sit in a ``layers`` folder under
``snake_case(class name)``, numbered ``_1``, ``_2``... in the order of ``model.layers`` as
Keras rebuilds it (by graph depth, ``map_graph`` in ``keras/src/ops/function.py``), nested
models recurse, a layer's sub-layers sit under the attribute that holds them
(``lstm/cell``, ``multi_head_attention/query_dense``), and a layer's own weights are
``vars/0..n``: the weights created trainable first, then the others, each in creation order.
Every layer and model, weights or not, has a ``vars`` group whose ``name`` attribute is its
name. ``weight_groups(model)`` lists those groups, so that writing and reading a file are
the same walk.

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,), name="x")
>>> h = kg.layers.Dense(4, name="second")(kg.layers.Dense(3, name="first")(x))
>>> [(g.path, [v.name for v in g.variables]) for g in weight_groups(kg.Model(x, h))]
... # doctest: +NORMALIZE_WHITESPACE
[('', []), ('layers/input_layer', []), ('layers/dense', ['kernel', 'bias']),
 ('layers/dense_1', ['kernel', 'bias'])]
"""

from __future__ import annotations

from typing import NamedTuple

from kgraph.base import naming
from kgraph.base.layer import Layer


class WeightGroup(NamedTuple):
    """One ``<path>/vars`` group: the layer (or model) and its own weights in file order."""

    path: str
    layer: Layer
    variables: list

    @property
    def name(self) -> str:
        return self.layer.name


def _is_operation(layer) -> bool:
    from kgraph.saving import registry

    return registry.is_operation(type(layer))


def _node_of(tensor):
    layer, node_index, _ = tensor._keras_history
    return layer._inbound_nodes[node_index]


def depth_ordered_layers(model) -> list:
    """``model.layers`` as Keras 3 orders them when it builds or rebuilds ``model``: deepest
    first (inputs), ties in order of first visit by a depth-first walk from the outputs
    (``map_graph``). Operations (``ops`` nodes) are not layers and are left out."""
    input_ids = {id(t) for t in model.inputs}
    finished, in_progress, post_order, op_index = set(), set(), [], {}
    for output in model.outputs:
        stack = []  # (node, inputs still to visit)

        def enter(tensor):
            node = _node_of(tensor)
            if id(node) in finished:
                return
            if not node.is_input and id(tensor) in input_ids:
                finished.add(id(node))
                return
            if id(node) in in_progress:
                raise ValueError(f'Tensor from layer "{node.layer.name}" is part of a cycle.')
            op_index.setdefault(id(node.layer), len(op_index))
            in_progress.add(id(node))
            stack.append((node, [] if node.is_input else list(reversed(node._keras_inputs))))

        enter(output)
        while stack:
            node, pending = stack[-1]
            if pending:
                enter(pending.pop())
                continue
            stack.pop()
            finished.add(id(node))
            in_progress.discard(id(node))
            post_order.append(node)

    in_graph = {id(node) for node in post_order}
    node_depth, layer_depth, layers = {}, {}, {}
    for node in reversed(post_order):
        depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = depth
        layers[id(node.layer)] = node.layer
        node_depth[id(node)] = depth
        for parent in node.parent_nodes:
            if id(parent) in in_graph:
                node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
    for tensor in model.inputs:  # inputs the outputs do not use
        node = _node_of(tensor)
        if node.is_input and id(node.layer) not in layer_depth:
            layer_depth[id(node.layer)] = 0
            op_index[id(node.layer)] = -1
            layers[id(node.layer)] = node.layer
    order = sorted(layers, key=lambda key: (-layer_depth[key], op_index[key]))
    return [layers[key] for key in order if not _is_operation(layers[key])]


def _saved_layers(model) -> list:
    """The layers Keras saves under a model's ``layers`` folder."""
    from kgraph.models.sequential import Sequential

    layers = depth_ordered_layers(model)
    if isinstance(model, Sequential):  # Keras's Sequential.layers leaves its InputLayer out
        layers = [layer for layer in layers if not getattr(layer, "is_input_layer", False)]
    return layers


def _name_key(name: str) -> str:
    return f"~{name}" if name.startswith("_") else name  # private attributes last, as Keras


def named_sublayers(layer) -> list:
    """``[(attribute, layer or container)]``: what a layer holds, by the attribute that
    holds it (kgraph's layers use Keras's attribute names), in Keras's visiting order."""
    found = []
    for attr, value in vars(layer).items():
        if attr in ("_inbound_nodes", "_output_spec_cache", "_var_attrs", "_own_variables"):
            continue
        if isinstance(value, Layer) or (isinstance(value, (list, tuple, dict)) and value):
            found.append((attr, value))
    return sorted(found, key=lambda item: _name_key(item[0]))


def weight_groups(model) -> list[WeightGroup]:
    """Every ``vars`` group Keras 3 writes for ``model`` (a model or a layer), in file order."""
    from kgraph.models.functional import Functional

    groups, visited = [], set()

    def visit(obj, path):
        if id(obj) in visited:
            return
        visited.add(id(obj))
        groups.append(WeightGroup(path, obj, obj._keras_ordered_variables()))
        if isinstance(obj, Functional):
            container(_saved_layers(obj), join(path, "layers"))
            return
        for attr, value in named_sublayers(obj):
            if isinstance(value, Layer):
                visit(value, join(path, attr))
            else:
                container(value, join(path, attr))

    def container(items, path):
        used: dict = {}
        for item in (items.values() if isinstance(items, dict) else items):
            if isinstance(item, Layer):
                visit(item, join(path, unique(naming.to_snake_case(type(item).__name__), used)))
            elif isinstance(item, (list, tuple, dict)):
                container(item, join(path, unique("container", used)))

    visit(model, "")
    return groups


def unique(name, used):
    """Keras's ``_get_unique_name``: ``name``, then ``name_1``, ``name_2``..."""
    if name in used:
        used[name] += 1
        return f"{name}_{used[name]}"
    used[name] = 0
    return name


def join(path, name):
    return f"{path}/{name}" if path else name
