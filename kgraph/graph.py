"""The graph walk, written once: discovery, topological order, and interpretation.

``topological_order`` walks from the outputs back to the inputs with an explicit stack
(no Python recursion, so depth is unlimited), visits each node once (shared ancestors are
not re-walked, so a ladder of diamonds stays linear), and returns the nodes in an order
where every node comes after the nodes that feed it: O(V + E).

``run_graph`` executes an ordered node list with a caller-supplied ``run_node``; the same
interpreter serves eager calls and pure ``apply`` (run the layer), shape inference (infer
specs) and intermediate capture.
"""

from __future__ import annotations

from typing import Callable, Sequence

from kgraph.keras_tensor import KerasTensor
from kgraph.node import Node


def _describe_input(tensor: KerasTensor) -> str:
    layer = tensor._keras_history.layer
    return f'Input "{layer.name}" (shape={tensor.shape}, dtype={tensor.dtype.name})'


def topological_order(inputs: Sequence[KerasTensor], outputs: Sequence[KerasTensor]) -> list:
    """Nodes needed to compute ``outputs`` from ``inputs``, parents before children.

    Raises ``ValueError("Graph disconnected ...")`` if an output needs an ``Input`` that is
    not among ``inputs``, naming that Input and the layer that needs it.
    """
    input_ids = {id(t) for t in inputs}
    for t in list(inputs) + list(outputs):
        if not isinstance(t, KerasTensor) or t._keras_history is None:
            raise TypeError(f"Model inputs and outputs must be symbolic tensors made by "
                            f"kg.Input and layer calls; received {t!r}.")
    done: set[int] = set()
    order: list[Node] = []
    for output in outputs:
        if id(output) in input_ids:
            continue
        root = _producer(output)
        if id(root) in done:
            continue
        done.add(id(root))
        stack = [(root, iter(root._keras_inputs))]
        while stack:
            node, pending = stack[-1]
            for tensor in pending:
                if id(tensor) in input_ids:
                    continue
                parent = _producer(tensor)
                if id(parent) in done:
                    continue
                if parent.is_input:
                    given = ", ".join(f'"{t._keras_history.layer.name}"' for t in inputs)
                    raise ValueError(
                        f'Graph disconnected: layer "{node.layer.name}" needs '
                        f"{_describe_input(tensor)}, which is not among the model's inputs "
                        f"[{given}]. Add it to Model(inputs=...).")
                done.add(id(parent))
                stack.append((parent, iter(parent._keras_inputs)))
                break
            else:
                stack.pop()
                if not node.is_input:
                    order.append(node)
                elif id(node.outputs[0]) not in input_ids:
                    raise ValueError(f"Graph disconnected: the output needs "
                                     f"{_describe_input(node.outputs[0])}, which is not among "
                                     f"the model's inputs. Add it to Model(inputs=...).")
    return order


def _producer(tensor: KerasTensor) -> Node:
    history = tensor._keras_history
    if history is None:
        raise ValueError(f"{tensor!r} was not produced by a layer call or kg.Input, so it "
                         "cannot be part of a model.")
    return history.layer._inbound_nodes[history.node_index]


def run_graph(nodes: Sequence[Node], inputs: Sequence[KerasTensor], values: Sequence,
              outputs: Sequence[KerasTensor], run_node: Callable, capture=None) -> list:
    """Run ``nodes`` in order: ``run_node(node, args, kwargs)`` returns a node's outputs.

    ``values`` are the inputs' values; returns the outputs' values (a flat list). If
    ``capture`` is a dict, every node's outputs are also stored in it by layer name.
    """
    env = {id(t): v for t, v in zip(inputs, values)}
    for node in nodes:
        args, kwargs = node.arguments([env[id(t)] for t in node._keras_inputs])
        result = run_node(node, args, kwargs)
        flat = node._output_treedef.flatten_up_to(result)
        for tensor, value in zip(node.outputs, flat):
            env[id(tensor)] = value
        if capture is not None:
            capture.setdefault(node.layer.name, result)
    return [env[id(t)] for t in outputs]
