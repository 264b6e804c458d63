"""Repeated blocks compile once: a run of identical layers runs as one ``lax.scan``.

XLA compile time grows with the number of operations, so a deep stack of equal blocks
(a custom block layer or a nested model repeated N times) compiles N times over. This pass
finds, in a model's graph, runs of consecutive nodes that may be the same computation on
different weights, chained output to input, and the interpreter runs each as one
``lax.scan`` over the blocks' weights stacked inside the step: the loop body is compiled
once.

Here only candidates are found, by what is cheap to see: the same layer class, config,
weight shapes and call arguments, each block taking the previous one's single output (the
scan's carry) at the same argument position. A block may take other inputs too, when
every block of the run takes the very same tensors there (a transformer block's shared
attention mask): they are loop invariants of the scan.
A candidate block owns its weights: a weight (or layer) that another block of the run,
or any other node of the graph, also uses ends the run there (the unrolled walk chains
such shared state from block to block; a scan would not). Whether the blocks really are
one computation is then proven when the program runs, by tracing each block on its own
weights and comparing the traces, constants' values included
(``kgraph.interpreter.block_scan``): a block that differs in something its config does
not show (a callable activation, a NumPy table it holds) runs unrolled.

>>> import jax, kgraph as kg, compiler
>>> x = kg.Input(shape=(8,))
>>> h = x
>>> for _ in range(4):
...     h = kg.layers.Dense(8, activation="tanh")(h)
>>> program = compiler.compile(kg.Model(x, h))
>>> [len(run.nodes) for run in find_runs(program.model)]
[4]
"""

from __future__ import annotations

import json
from typing import NamedTuple

import jax

from kgraph.models.functional import Functional

__all__ = ["BlockRun", "MAX_BLOCKS", "MIN_REPEATS", "find_runs", "runs_its_graph"]


MIN_REPEATS = 4  # runs shorter than this stay unrolled
MAX_BLOCKS = 256  # longer runs are split into scans of at most this many blocks


class BlockRun(NamedTuple):
    """Consecutive nodes ``nodes`` (of distinct layers, owning their weights) that may run
    as one scan. ``carry``: the position, among each node's input tensors
    (``node._keras_inputs``), of the previous block's output; the others are the same
    tensors for every block. ``graph``: the model whose graph holds the nodes (the
    compiled one, or a model nested in it), at weight path ``prefix`` (``()`` at the top
    level, ``("llama_backbone",)`` inside a nested backbone)."""

    nodes: list
    carry: int = 0
    graph: object = None
    prefix: tuple = ()

    @property
    def layers(self):
        return [node.layer for node in self.nodes]


def _config_signature(layer) -> str:
    try:
        config = dict(layer.get_config())
    except Exception:  # noqa: BLE001 - a config that can't be read: the traces decide
        config = {}
    config.pop("name", None)
    if "layers" in config:  # a nested model: its structure, not its layers' names
        config = {"class": type(layer).__name__,
                  "layers": [type(inner).__name__ for inner in getattr(layer, "layers", [])]}
    return json.dumps(config, sort_keys=True, default=str)


def _call_signature(node) -> str:
    """The call's arguments with each input tensor as a placeholder: their structure and
    every other value."""
    tensors = set(node._tensor_positions)
    leaves = ["<tensor>" if i in tensors else repr(leaf)
              for i, leaf in enumerate(node._arg_leaves)]
    return f"{node._arg_treedef}{leaves}"


def _signature(node, weights):
    layer = node.layer
    shapes = tuple((tuple(v.shape), v.dtype, v.trainable) for v in weights)
    return (type(layer), _config_signature(layer), shapes, _call_signature(node))


def _carry_position(node, previous):
    """The position of ``previous``'s output among ``node``'s inputs, when it is there
    once and every other input is the tensor ``previous`` takes at that position; else
    None."""
    output = previous.outputs[0]
    mine, theirs = node._keras_inputs, previous._keras_inputs
    found = [i for i, tensor in enumerate(mine) if tensor is output]
    if len(found) != 1 or len(mine) != len(theirs):
        return None
    if any(a is not b for i, (a, b) in enumerate(zip(mine, theirs)) if i != found[0]):
        return None
    return found[0]


def runs_its_graph(layer) -> bool:
    """Whether calling ``layer`` walks its graph (a functional model whose ``call`` is
    not its own code)."""
    return (getattr(layer, "__dict__", {}).get("_nodes") is not None
            and type(layer).call is Functional.call)


def _shared_layers(nodes, weights_of, used_outside) -> set:
    """Ids of the layers of ``nodes`` that hold a weight some other node also uses (one
    of ``nodes``, or one outside the graph: ``used_outside``, ids of weights)."""
    users: dict = {}
    for node in nodes:
        for variable in weights_of[id(node)]:
            users.setdefault(id(variable), set()).add(id(node))
    return {id(node.layer) for node in nodes
            if any(len(users[id(v)]) > 1 or id(v) in used_outside
                   for v in weights_of[id(node)])}


def find_runs(model, min_repeats: int = MIN_REPEATS) -> list[BlockRun]:
    """Candidate runs in ``model``'s graph and in the graphs of the functional models it
    calls as nodes (a KerasHub backbone inside its task model), each a ``BlockRun`` whose
    ``graph`` is the model that holds it."""
    runs: list = []
    _find_in(model, (), frozenset(), min_repeats, runs, {id(model)})
    return runs


def _find_in(model, prefix, used_outside, min_repeats, runs, seen) -> None:
    """The runs of ``model``'s graph (at weight path ``prefix``): consecutive nodes of one
    signature, each taking the previous one's single output, used nowhere else, at one
    position, and otherwise the same inputs as the previous one, whose layers share no
    weight with any other node (``used_outside``: weights the graphs around this one
    use). One pass over the nodes; each node's weights and signature are read once.
    Then the graphs of its nested models, each called once."""
    nodes = list(getattr(model, "_nodes", ()))
    weights_of = {id(node): node.layer.weights for node in nodes}
    shared = _shared_layers(nodes, weights_of, used_outside)
    consumers: dict = {}
    for node in nodes:
        for tensor in node._keras_inputs:
            consumers[id(tensor)] = consumers.get(id(tensor), 0) + 1
    for tensor in jax.tree_util.tree_leaves(getattr(model, "outputs", [])):
        consumers[id(tensor)] = consumers.get(id(tensor), 0) + 1

    def is_block(node):
        return (bool(node._keras_inputs) and len(node.outputs) == 1
                and bool(weights_of[id(node)]) and id(node.layer) not in shared)

    def close(current, carry):
        if len(current) >= min_repeats:
            chunks = [current[i:i + MAX_BLOCKS] for i in range(0, len(current), MAX_BLOCKS)]
            runs.extend(BlockRun(chunk, carry or 0, model, prefix) for chunk in chunks
                        if len(chunk) >= min_repeats)

    current, first, carry = [], None, None
    for node in nodes:
        candidate = is_block(node)
        signature = _signature(node, weights_of[id(node)]) if candidate else None
        if current and candidate and signature == first:
            position = _carry_position(node, current[-1])
            if (position is not None and (carry is None or position == carry)
                    and consumers.get(id(current[-1].outputs[0])) == 1):
                current.append(node)
                carry = position
                continue
        close(current, carry)
        current, first, carry = ([node], signature, None) if candidate else ([], None, None)
    close(current, carry)
    for node in nodes:
        inner = node.layer
        if runs_its_graph(inner) and id(inner) not in seen:
            seen.add(id(inner))
            outside = used_outside | {id(v) for other in nodes if other is not node
                                      for v in weights_of[id(other)]}
            _find_in(inner, (*prefix, inner.name), outside, min_repeats, runs, seen)
