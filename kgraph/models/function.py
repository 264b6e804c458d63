"""``Function`` (Keras 3's ``keras.Function``): a graph of ops from input KerasTensors to
output ones, run again on new inputs. Unlike a model it holds no weights of its own and
has no layer API; its inputs may be bare ``KerasTensor``s.

>>> import numpy as np, kgraph as kg
>>> a, b = kg.KerasTensor(shape=(None, 2)), kg.KerasTensor(shape=(None, 2))
>>> fn = Function([a, b], kg.ops.sigmoid(a + b))
>>> fn([np.zeros((1, 2)), np.zeros((1, 2))]).tolist()
[[0.5, 0.5]]
"""

from __future__ import annotations

import jax

from kgraph.graph.keras_tensor import KerasTensor
from kgraph.interpreter import execute, walk
from kgraph.interpreter.plan import Plan

__all__ = ["Function"]


class Function:
    """The ops from ``inputs`` to ``outputs`` (KerasTensors; a tensor, list or dict each),
    callable on arrays (or KerasTensors) in the inputs' structure."""

    def __init__(self, inputs, outputs, name=None):
        self.name = name or "function"
        self.inputs, self._in_treedef = jax.tree_util.tree_flatten(inputs)
        self.outputs, self._out_treedef = jax.tree_util.tree_flatten(outputs)
        for tensor in self.inputs + self.outputs:
            if not isinstance(tensor, KerasTensor):
                raise TypeError(f"Function {self.name!r}: inputs and outputs must be "
                                f"KerasTensors, received {tensor!r}.")
        self._plan = Plan(walk.topological_order(self.inputs, self.outputs), self.inputs,
                          self.outputs)

    @property
    def operations(self) -> list:
        """The ops (and layers) of the graph, in the order they run."""
        return [node.layer for node in self._plan.nodes]

    def _run(self, inputs, run_node):
        flat = self._in_treedef.flatten_up_to(inputs)
        values, _ = walk.run_graph(self._plan, flat, run_node)
        return jax.tree_util.tree_unflatten(self._out_treedef, values)

    def __call__(self, inputs):
        return self._run(inputs, execute.call_node)

    def compute_output_spec(self, inputs):
        """The outputs' KerasTensors for inputs of the shapes and dtypes given."""
        return self._run(inputs, execute.infer_node)
