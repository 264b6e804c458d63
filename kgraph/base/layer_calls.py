"""A layer's calls in graphs: ``layer.input`` and ``layer.output``, the tensors of its
first call on KerasTensors, as Keras 3 (a base of ``kgraph.base.layer.Layer``).

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,), name="x")
>>> dense = kg.layers.Dense(2)
>>> y = dense(x)
>>> dense.input is x, dense.output is y
(True, True)
"""

from __future__ import annotations

__all__ = ["LayerCalls"]


class LayerCalls:
    """``input`` / ``output`` of a layer's first call on KerasTensors (Keras 3's; a later
    call's are the tensors that call returned)."""

    def _node_outputs(self, attr):
        if not self._inbound_nodes:
            raise AttributeError(f'Layer "{self.name}" has never been called and thus has no '
                                 f"defined {attr}.")
        return self._inbound_nodes[0]

    @property
    def input(self):
        node = self._node_outputs("input")
        inputs = node._keras_inputs
        return inputs[0] if len(inputs) == 1 else inputs

    @property
    def output(self):
        node = self._node_outputs("output")
        return node.structure_outputs(node.outputs)
