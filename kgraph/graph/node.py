"""``Node`` and ``KerasHistory``: how the symbolic graph is recorded.

Calling a layer on KerasTensors runs no computation. It creates a ``Node`` for that call,
appends it to ``layer._inbound_nodes``, and gives every output tensor a
``_keras_history = KerasHistory(layer, node_index, tensor_index)``: the producing layer,
which of its calls produced it, and which of that call's outputs it is. A node keeps the
call's arguments (``node.call_args`` / ``node.call_kwargs``, with KerasTensors in place of
values; ``node.arguments``) and the flat list of its input tensors, ``node.input_tensors``;
each input tensor's own history points at its parent node, and the parent layer lists the
node among its ``_outbound_nodes``. These back-pointers form a DAG whose vertices are
layer calls and whose edges are KerasTensors; ``kgraph.interpreter.walk`` walks it from the outputs
back to the inputs. A layer called twice has two nodes and one set of weights.
"""

from __future__ import annotations

from typing import NamedTuple

import jax

from kgraph.graph.keras_tensor import KerasTensor
from kgraph.graph.symbolic_arguments import SymbolicArguments

__all__ = ["KerasHistory", "Node"]


class KerasHistory(NamedTuple):
    """Where a KerasTensor came from: ``(layer, node_index, tensor_index)``."""

    layer: object
    node_index: int
    tensor_index: int


def _is_tensor(x):
    return isinstance(x, KerasTensor)


class Node:
    """One call of ``layer`` on symbolic inputs."""

    __slots__ = ("layer", "call_args", "call_kwargs", "outputs", "_keras_inputs",
                 "_arg_leaves", "_arg_treedef", "_tensor_positions", "_output_treedef",
                 "_tensor_args")

    def __init__(self, layer, call_args=(), call_kwargs=None, outputs=()):
        self.layer = layer
        self.call_args = tuple(call_args)
        self.call_kwargs = dict(call_kwargs or {})
        leaves, self._arg_treedef = jax.tree_util.tree_flatten((self.call_args, self.call_kwargs))
        self._arg_leaves = leaves
        self._tensor_positions = [i for i, leaf in enumerate(leaves) if _is_tensor(leaf)]
        self._keras_inputs = [leaves[i] for i in self._tensor_positions]
        self._tensor_args = None  # {name: argument}, filled by kgraph.interpreter.masking when needed
        flat_outputs, self._output_treedef = jax.tree_util.tree_flatten(outputs)
        for output in flat_outputs:
            if not _is_tensor(output):
                raise ValueError(f"All operation outputs must be tensors. Operation "
                                 f"{getattr(layer, 'name', layer)} returned a non-tensor. "
                                 f"Non-tensor received: {output}")
        self.outputs = flat_outputs
        node_index = len(layer._inbound_nodes)
        layer._inbound_nodes.append(self)
        for tensor in self._keras_inputs:
            history = getattr(tensor, "_keras_history", None)
            if history is not None and hasattr(history.layer, "_outbound_nodes"):
                history.layer._outbound_nodes.append(self)
        for tensor_index, tensor in enumerate(flat_outputs):
            tensor._keras_history = KerasHistory(layer, node_index, tensor_index)

    @property
    def operation(self):
        """The layer (operation) this node is a call of (Keras's name)."""
        return self.layer

    @property
    def input_tensors(self) -> list:
        """The KerasTensors among the call's arguments, in order."""
        return list(self._keras_inputs)

    @property
    def output_tensors(self) -> list:
        return self.outputs

    @property
    def arguments(self) -> SymbolicArguments:
        """The call's arguments (``.args``, ``.kwargs``, ``.keras_tensors``)."""
        return SymbolicArguments(*self.call_args, **self.call_kwargs)

    @property
    def node_index(self) -> int:
        return self.outputs[0]._keras_history.node_index if self.outputs else -1

    @property
    def parent_nodes(self) -> list:
        """The nodes that produced this node's inputs (with repeats, in input order; an
        input made by no layer call has none)."""
        return [t._keras_history.layer._inbound_nodes[t._keras_history.node_index]
                for t in self._keras_inputs if t._keras_history is not None]

    @property
    def is_input(self) -> bool:
        """True when no KerasTensor is among the call's arguments (an ``Input``'s node), as
        Keras says; the graph walk computes such a node unless its layer is an ``Input``."""
        return not self._keras_inputs

    def arguments_with(self, values, training=None):
        """``(args, kwargs)`` of this call with ``values[i]`` for the i-th input tensor.

        ``training``: the run's training mode, if it has one; as in Keras it wins over a
        flag written at the call site (``Dropout(0.5)(x, training=True)`` does not drop in
        ``model(x, training=False)``). Every executor of a node (the graph walk, a scanned
        run of blocks) takes its arguments from here.
        """
        leaves = list(self._arg_leaves)
        for position, value in zip(self._tensor_positions, values):
            leaves[position] = value
        args, kwargs = jax.tree_util.tree_unflatten(self._arg_treedef, leaves)
        if training is not None and "training" in kwargs:
            kwargs = {**kwargs, "training": training}
        return args, kwargs

    def structure_outputs(self, flat):
        """Put a flat list of output values back into the call's output structure."""
        return jax.tree_util.tree_unflatten(self._output_treedef, flat)

    def __repr__(self):
        return f"<Node {self.layer.name}[{self.node_index}]>"
