"""Repeated blocks compile once: a run of identical layers runs as one ``lax.scan``.

XLA compile time grows with the number of operations, so a deep stack of equal blocks
(a custom block layer or a nested model repeated N times) compiles N times over. This pass
finds, in a model's graph, runs of consecutive nodes that may be the same computation on
different weights, chained output to input, and the interpreter runs each as one
``lax.scan`` over the blocks' weights stacked inside the step: the loop body is compiled
once.

Here only candidates are found, by what is cheap to see: the same layer class, config,
weight shapes and call arguments, each block taking the previous one's single output.
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

__all__ = ["BlockRun", "MAX_BLOCKS", "MIN_REPEATS", "find_runs"]


MIN_REPEATS = 4  # runs shorter than this stay unrolled
MAX_BLOCKS = 256  # longer runs are split into scans of at most this many blocks


class BlockRun(NamedTuple):
    """Consecutive nodes ``nodes`` (of distinct layers, owning their weights) that may run
    as one scan."""

    nodes: list

    @property
    def layers(self):
        return [node.layer for node in self.nodes]


def _config_signature(layer) -> str:
    try:
        config = dict(layer.get_config())
    except (NotImplementedError, TypeError):
        config = {}
    config.pop("name", None)
    if "layers" in config:  # a nested model: its structure, not its layers' names
        config = {"class": type(layer).__name__,
                  "layers": [type(inner).__name__ for inner in getattr(layer, "layers", [])]}
    return json.dumps(config, sort_keys=True, default=str)


def _signature(node, weights):
    layer = node.layer
    shapes = tuple((tuple(v.shape), v.dtype, v.trainable) for v in weights)
    return (type(layer), _config_signature(layer), shapes, repr(node.call_kwargs))


def _shared_layers(nodes, weights_of) -> set:
    """Ids of the layers of ``nodes`` that hold a weight some other node also uses."""
    users: dict = {}
    for node in nodes:
        for variable in weights_of[id(node)]:
            users.setdefault(id(variable), set()).add(id(node))
    return {id(node.layer) for node in nodes
            if any(len(users[id(v)]) > 1 for v in weights_of[id(node)])}


def find_runs(model, min_repeats: int = MIN_REPEATS) -> list[BlockRun]:
    """Candidate runs in ``model``'s graph (top level): consecutive nodes of one
    signature, each taking exactly the previous one's single output, used nowhere else,
    whose layers share no weight with any other node. One pass over the nodes; each
    node's weights and signature are read once."""
    nodes = list(getattr(model, "_nodes", ()))
    weights_of = {id(node): node.layer.weights for node in nodes}
    shared = _shared_layers(nodes, weights_of)
    consumers: dict = {}
    for node in nodes:
        for tensor in node._keras_inputs:
            consumers[id(tensor)] = consumers.get(id(tensor), 0) + 1
    for tensor in jax.tree_util.tree_leaves(getattr(model, "outputs", [])):
        consumers[id(tensor)] = consumers.get(id(tensor), 0) + 1

    def single_in_out(node):
        return (len(node._keras_inputs) == 1 and len(node.outputs) == 1
                and bool(weights_of[id(node)]) and id(node.layer) not in shared)

    runs, current, first = [], [], None
    for node in nodes:
        candidate = single_in_out(node)
        signature = _signature(node, weights_of[id(node)]) if candidate else None
        if (current and candidate
                and node._keras_inputs[0] is current[-1].outputs[0]
                and consumers.get(id(current[-1].outputs[0])) == 1
                and signature == first):
            current.append(node)
            continue
        if len(current) >= min_repeats:
            runs.extend(_runs(current, min_repeats))
        current, first = ([node], signature) if candidate else ([], None)
    if len(current) >= min_repeats:
        runs.extend(_runs(current, min_repeats))
    return runs


def _runs(nodes, min_repeats) -> list[BlockRun]:
    chunks = [nodes[i:i + MAX_BLOCKS] for i in range(0, len(nodes), MAX_BLOCKS)]
    return [BlockRun(chunk) for chunk in chunks if len(chunk) >= min_repeats]
