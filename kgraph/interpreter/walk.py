"""The graph walk, written once: discovery, topological order, and interpretation.

``topological_order`` walks from the outputs back to the inputs with an explicit stack
(no Python recursion, so depth is unlimited), visits each node once (shared ancestors are
not re-walked, so a ladder of diamonds stays linear), and returns the nodes in an order
where every node comes after the nodes that feed it: O(V + E).

``run_graph`` executes a ``Plan`` (ordered nodes, and runs of repeated blocks to scan) with a
caller-supplied ``run_node``; the same
interpreter serves eager calls and pure ``apply`` (run the layer), shape inference (infer
specs), Keras masks (carried beside the values) and node hooks (intermediate capture).
"""

from __future__ import annotations

from typing import Callable, Sequence

import jax

from kgraph.graph.keras_tensor import KerasTensor
from kgraph.interpreter import block_scan, context
from kgraph.interpreter.plan import Plan
from kgraph.graph.node import Node

__all__ = ["NodeHook", "keras_layer_order", "node_paths", "run_graph", "topological_order"]


def _describe_input(tensor: KerasTensor) -> str:
    layer = tensor._keras_history.layer
    return f'Input "{layer.name}" (shape={tensor.shape}, dtype={tensor.dtype.name})'


def _is_input_node(node: Node) -> bool:
    """Whether the walk stops at ``node``: an ``Input``'s node (a call of another layer on
    no KerasTensor is computed, from its constant arguments)."""
    return node.is_input and getattr(node.layer, "is_input_layer", False)


def topological_order(inputs: Sequence[KerasTensor], outputs: Sequence[KerasTensor]) -> list:
    """Nodes needed to compute ``outputs`` from ``inputs``, parents before children.

    Raises ``ValueError("Graph disconnected ...")`` if an output needs an ``Input`` that is
    not among ``inputs``, naming that Input and the layer that needs it.
    """
    input_ids = {id(t) for t in inputs}
    for t in list(inputs) + list(outputs):
        if not isinstance(t, KerasTensor) or (t._keras_history is None
                                              and id(t) not in input_ids):
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
                if _is_input_node(parent):
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
                if not _is_input_node(node):
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


def keras_layer_order(inputs: Sequence[KerasTensor], outputs: Sequence[KerasTensor]) -> list:
    """The layers of the graph from ``inputs`` to ``outputs`` (operation nodes too) in the
    order Keras 3 gives ``model.layers`` when it builds or rebuilds a model: deepest first
    (inputs), ties in order of first visit by a depth-first walk from the outputs
    (``map_graph`` in ``keras/src/ops/function.py``)."""
    input_ids = {id(t) for t in inputs}
    finished, in_progress, post_order, op_index = set(), set(), [], {}
    for output in outputs:
        stack = []  # (node, inputs still to visit)

        def enter(tensor):
            node = _producer(tensor)
            if id(node) in finished:
                return
            if not _is_input_node(node) and id(tensor) in input_ids:
                finished.add(id(node))
                return
            if id(node) in in_progress:
                raise ValueError(f'Tensor from layer "{node.layer.name}" is part of a cycle.')
            op_index.setdefault(id(node.layer), len(op_index))
            in_progress.add(id(node))
            stack.append((node, [] if _is_input_node(node) else list(reversed(node._keras_inputs))))

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
    for tensor in inputs:  # inputs the outputs do not use
        node = _producer(tensor)
        if _is_input_node(node) and id(node.layer) not in layer_depth:
            layer_depth[id(node.layer)] = 0
            op_index[id(node.layer)] = -1
            layers[id(node.layer)] = node.layer
    order = sorted(layers, key=lambda key: (-layer_depth[key], op_index[key]))
    return [layers[key] for key in order]


def node_paths(model, prefix=()) -> list:
    """The paths of every node of ``model``'s graph and of the graphs nested in it, as node
    hooks see them (``"dense_1"``, ``"encoder/dense"``); empty for a model without a graph."""
    paths = []
    for node in getattr(model, "_nodes", None) or ():
        path = (*prefix, node.layer.name)
        paths.append("/".join(path))
        if getattr(node.layer, "_nodes", None):
            paths.extend(node_paths(node.layer, path))
    return paths


class NodeHook:
    """Code run around every node of a graph run (as Chainer's function hooks).

    Pass hooks to ``program.apply(..., hooks=[...])``. ``before_node`` sees a node's
    arguments; ``after_node`` sees its outputs and may return replacements (or None to
    keep them). Nested models' nodes are visited too; ``path`` is the node's layer path
    inside the compiled model (``"inner/dense"``).
    """

    def before_node(self, node, path, args, kwargs):
        pass

    def after_node(self, node, path, args, kwargs, outputs):
        return None

    def wrap_node(self, node, path, run):
        """``run(node, args, kwargs, input_masks) -> (outputs, mask)`` runs the node; a
        hook may return another such function that calls it (e.g. under
        ``jax.checkpoint``), or None to leave it."""
        return None

    def same_for(self, paths) -> bool:
        """Whether this hook treats the nodes at ``paths`` (a run of repeated blocks)
        alike, so that they may run as one scan wrapped like their first node."""
        return True


def _input_masks(node, masks):
    """The masks of the node's input tensors (a list, None where unmasked), or None."""
    if not masks:
        return None
    found = [masks.get(id(t)) for t in node._keras_inputs]
    return found if any(m is not None for m in found) else None


def _observes_nodes(hook) -> bool:
    return (type(hook).before_node is not NodeHook.before_node
            or type(hook).after_node is not NodeHook.after_node)


def run_graph(plan: Plan, values: Sequence, run_node: Callable, input_masks=None, hooks=(),
              prefix=()):
    """Run ``plan``'s nodes in order on ``values`` (one per ``plan.inputs``); returns the
    outputs' values and masks (two flat lists).

    ``run_node(node, args, kwargs, input_masks) -> (result, output_mask)`` runs one node,
    where ``input_masks`` lists the Keras masks of ``node._keras_inputs`` (None where
    unmasked), or is None when none is masked (``kgraph.interpreter.masking`` routes them
    to the layer).
    ``hooks`` are ``NodeHook``s; ``prefix`` is the path of the graph's model inside the
    compiled one.
    """
    env = {id(t): v for t, v in zip(plan.inputs, values)}
    masks = {id(t): m for t, m in zip(plan.inputs, input_masks or ()) if m is not None}
    run_context = context.current()
    training = run_context.options.training if run_context is not None else None
    # ``plan.runs``: runs of identical blocks (``compiler.scan_blocks``), by their first
    # node; not while a hook watches single nodes (captures, activation hints).
    starts = ({id(run.nodes[0]): run for run in plan.runs}
              if plan.runs and not any(_observes_nodes(h) for h in hooks) else {})
    skip: set = set()
    for node in plan.nodes:
        if id(node) in skip:
            continue
        path = "/".join((*prefix, node.layer.name))
        run = starts.get(id(node))
        if run is not None and _input_masks(node, masks) is None and all(
                hook.same_for(["/".join((*prefix, n.layer.name)) for n in run.nodes])
                for hook in hooks):
            runner = run_node
            for hook in hooks:  # e.g. rematerialisation: applied to every block
                runner = hook.wrap_node(node, path, runner) or runner
            result = block_scan.run_scanned(
                run.nodes, [env[id(t)] for t in node._keras_inputs], run.carry, runner,
                training)
            if result is not None:
                env[id(run.nodes[-1].outputs[0])] = result
                skip.update(id(n) for n in run.nodes[1:])
                continue
        args, kwargs = node.arguments_with([env[id(t)] for t in node._keras_inputs], training)
        for hook in hooks:
            hook.before_node(node, path, args, kwargs)
        runner = run_node
        for hook in hooks:
            runner = hook.wrap_node(node, path, runner) or runner
        result, output_mask = runner(node, args, kwargs, _input_masks(node, masks))
        for hook in hooks:
            replaced = hook.after_node(node, path, args, kwargs, result)
            result = result if replaced is None else replaced
        # one output: the value itself, also where a call unpacks a list of one (a
        # model's ``Model(x, [y])`` on arrays gives y, as Keras's)
        flat = (jax.tree_util.tree_leaves(result) if len(node.outputs) == 1
                else node._output_treedef.flatten_up_to(result))
        for tensor, value in zip(node.outputs, flat):
            env[id(tensor)] = value
        if output_mask is not None:
            flat_masks = ([output_mask] if len(node.outputs) == 1
                          else node._output_treedef.flatten_up_to(output_mask))
            for tensor, mask in zip(node.outputs, flat_masks):
                if mask is not None:
                    masks[id(tensor)] = mask
    return [env[id(t)] for t in plan.outputs], [masks.get(id(t)) for t in plan.outputs]
