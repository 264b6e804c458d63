"""Repeated blocks compile once: a run of identical layers runs as one ``lax.scan``.

XLA compile time grows with the number of operations, so a deep stack of equal blocks
(a custom block layer or a nested model repeated N times) compiles N times over. This pass
finds, in a model's graph, runs of consecutive nodes that are the same computation on
different weights, chained output to input, and runs each as one ``lax.scan`` over the
blocks' weights stacked inside the step: the loop body is compiled once.

What counts as the same computation is checked, not assumed: every layer of a candidate
run is traced on its own weights and the traces (jaxprs) must be equal, so a block whose
behaviour differs in something its config does not show is never folded into a scan. The
params pytree stays as it is (one entry per layer, by name); each step stacks the blocks'
weights, and the gradients flow back to each layer's own entry. Dropout keys are each
layer's own (the hash of its path is scanned over), BatchNormalization updates go back to
each layer's state, and added losses are summed: the numbers are the unrolled program's,
to float round-off.

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

MIN_REPEATS = 4  # runs shorter than this stay unrolled
MAX_BLOCKS = 256  # longer runs are split into scans of at most this many blocks


class BlockRun(NamedTuple):
    """Consecutive nodes ``nodes`` (of distinct layers) that may run as one scan;
    ``trusted``: kgraph's own layers, whose configs say all they compute."""

    nodes: list
    trusted: bool = False

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


def _signature(node):
    layer = node.layer
    weights = tuple((tuple(v.shape), str(v.dtype), v.trainable) for v in layer.weights)
    return (type(layer), _config_signature(layer), weights, repr(node.call_kwargs))


def find_runs(model, min_repeats: int = MIN_REPEATS) -> list[BlockRun]:
    """Candidate runs in ``model``'s graph (top level): consecutive nodes of one
    signature, each taking exactly the previous one's single output, used nowhere else."""
    nodes = list(getattr(model, "_nodes", ()))
    consumers: dict = {}
    for node in nodes:
        for tensor in node._keras_inputs:
            consumers[id(tensor)] = consumers.get(id(tensor), 0) + 1
    for tensor in jax.tree_util.tree_leaves(getattr(model, "outputs", [])):
        consumers[id(tensor)] = consumers.get(id(tensor), 0) + 1

    def single_in_out(node):
        return (len(node._keras_inputs) == 1 and len(node.outputs) == 1
                and bool(node.layer.weights) and type(node.layer).__name__ != "Lambda")

    runs, current = [], []
    for node in nodes:
        extends = (current and single_in_out(node)
                   and node._keras_inputs[0] is current[-1].outputs[0]
                   and consumers.get(id(current[-1].outputs[0])) == 1
                   and _signature(node) == _signature(current[0])
                   and all(node.layer is not other.layer for other in current))
        if extends:
            current.append(node)
            continue
        if len(current) >= min_repeats:
            runs.extend(_runs(current, min_repeats))
        current = [node] if single_in_out(node) else []
    if len(current) >= min_repeats:
        runs.extend(_runs(current, min_repeats))
    return runs


def _runs(nodes, min_repeats) -> list[BlockRun]:
    layer = nodes[0].layer
    trusted = (type(layer).__module__.startswith("kgraph.layers")
               and not hasattr(layer, "layers"))
    chunks = [nodes[i:i + MAX_BLOCKS] for i in range(0, len(nodes), MAX_BLOCKS)]
    return [BlockRun(chunk, trusted) for chunk in chunks if len(chunk) >= min_repeats]
