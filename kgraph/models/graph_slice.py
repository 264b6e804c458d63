"""A model on intermediate tensors of a graph (Keras's functional "slicing").

``Model(x2, outputs)``, where ``x2`` is a layer's output rather than an ``Input``, makes a
model of the part of the graph between them. As Keras's ``clone_graph_nodes``: each such
input gets a new ``Input`` of its shape and dtype (named ``<name>CLONE``), and every call
between the inputs and the outputs is repeated on the same layers as a new node over
new tensors, so the original graph keeps its own nodes and tensors untouched.

>>> import kgraph as kg
>>> x = kg.Input((2,))
>>> h = kg.layers.Dense(3, name="first")(x)
>>> y = kg.layers.Dense(4, name="second")(h)
>>> inputs, outputs = clone_between(h, y)
>>> second = y._keras_history.layer
>>> type(inputs._keras_history.layer).__name__, outputs.shape, len(second._inbound_nodes)
('InputLayer', (None, 4), 2)
"""

from __future__ import annotations

import jax

from kgraph.graph.input_layer import Input
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.graph.node import Node
from kgraph.interpreter import walk

__all__ = ["clone_between", "is_input_tensor"]


def is_input_tensor(tensor) -> bool:
    """Whether ``tensor`` is an ``Input``'s (its layer is an input layer)."""
    history = getattr(tensor, "_keras_history", None)
    return history is not None and getattr(history.layer, "is_input_layer", False)


def _copy(tensor: KerasTensor) -> KerasTensor:
    made = KerasTensor(tensor.shape, tensor.dtype, name=tensor.name)
    made._keras_mask = tensor._keras_mask
    return made


def clone_between(inputs, outputs):
    """``(inputs, outputs)`` of the graph between them, with a new ``Input`` for each
    input that is not one and new nodes for the calls in between (same structures)."""
    flat_inputs = jax.tree_util.tree_leaves(inputs)
    flat_outputs = jax.tree_util.tree_leaves(outputs)
    nodes = walk.topological_order(flat_inputs, flat_outputs)
    mapping: dict[int, KerasTensor] = {}
    for tensor in flat_inputs:
        if is_input_tensor(tensor):
            mapping[id(tensor)] = tensor
            continue
        layer = tensor._keras_history.layer
        mapping[id(tensor)] = Input(batch_shape=tensor.shape, dtype=tensor.dtype,
                                    name=f"{tensor.name or layer.name}CLONE",
                                    optional=getattr(layer, "optional", False))
    for node in nodes:
        new_inputs = [mapping.get(id(t), t) for t in node._keras_inputs]
        args, kwargs = node.arguments_with(new_inputs)
        made = [_copy(t) for t in node.outputs]
        Node(node.layer, args, kwargs, node.structure_outputs(made))
        for old, new in zip(node.outputs, made):
            mapping[id(old)] = new
    new = lambda tensor: mapping.get(id(tensor), tensor)  # noqa: E731
    return jax.tree_util.tree_map(new, inputs), jax.tree_util.tree_map(new, outputs)
