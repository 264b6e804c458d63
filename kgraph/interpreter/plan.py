"""What the interpreter runs for one graph: a ``Plan``.

A plan holds the graph's nodes in topological order, its input and output tensors, and
the runs of repeated blocks to execute as one ``lax.scan`` each. A model's own plan
(``Functional.plan``) has no runs: every node is unrolled. A compiled program's plan
(``compiler.Program.plan``) adds the runs the compiler proved repeatable. Either way
``kgraph.interpreter.walk.run_graph(plan, ...)`` executes it. The plan is an argument of
the run; a functional model nested in a compiled one, called as a layer, finds its plan
in the run's options (``CallContext.options.plans``, set by the program for the run).

>>> import kgraph as kg
>>> x = kg.Input(shape=(2,))
>>> model = kg.Model(x, kg.layers.Dense(3, name="d")(x))
>>> [node.layer.name for node in model.plan.nodes], model.plan.runs
(['d'], ())
"""

from __future__ import annotations

__all__ = ["Plan"]


class Plan:
    """``nodes`` in order, ``inputs`` and ``outputs`` (flat lists of KerasTensors), and
    ``runs`` (``compiler.scan_blocks.BlockRun``s, each run as one scan). A plain object,
    not a pytree: it passes through ``jax.tree_util`` maps of a call's arguments whole."""

    __slots__ = ("nodes", "inputs", "outputs", "runs")

    def __init__(self, nodes, inputs, outputs, runs=()):
        self.nodes = tuple(nodes)
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.runs = tuple(runs)

    def with_runs(self, runs) -> Plan:
        """This plan, with ``runs`` of repeated blocks to scan."""
        return Plan(self.nodes, self.inputs, self.outputs, runs)

    def __repr__(self) -> str:
        return f"Plan({len(self.nodes)} nodes, {len(self.runs)} scanned runs)"
