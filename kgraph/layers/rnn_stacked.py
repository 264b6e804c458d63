"""``StackedRNNCells``: several RNN cells run as one, each feeding the next (Keras 3).

``RNN([cell_a, cell_b])`` wraps a list of cells in one. ``return_state=True`` returns the
states per cell: a list for a cell with several states (LSTM's ``[h, c]``), else the state.

>>> import jax.numpy as jnp, kgraph as kg
>>> cells = [kg.layers.LSTMCell(4), kg.layers.GRUCell(3)]
>>> layer = kg.layers.RNN(cells, return_state=True)
>>> out, *states = layer(jnp.ones((2, 5, 6)))
>>> out.shape, [[x.shape for x in s] if isinstance(s, list) else s.shape for s in states]
((2, 3), [[(2, 4), (2, 4)], (2, 3)])
"""

from __future__ import annotations

from kgraph.base.layer import Layer
from kgraph.layers.wrappers import deserialize_layer, serialize_layer

__all__ = ["StackedRNNCells"]


def _sizes(cell) -> list:
    size = cell.state_size
    return list(size) if isinstance(size, (list, tuple)) else [size]


def _output_size(cell):
    size = getattr(cell, "output_size", None)
    return _sizes(cell)[0] if size is None else size


class StackedRNNCells(Layer):
    """Cells applied in order at each time step: ``cells[i]``'s output is ``cells[i+1]``'s
    input; ``state_size`` lists every cell's state sizes in order."""

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        for cell in cells:
            if not callable(getattr(cell, "call", None)) or getattr(
                    cell, "state_size", None) is None:
                raise ValueError(f'StackedRNNCells "{self.name}": every cell needs a `call` '
                                 f"method and a `state_size`. Received: cell={cell!r}")
        self.cells = list(cells)

    @property
    def state_size(self) -> list:
        return [size for cell in self.cells for size in _sizes(cell)]

    @property
    def output_size(self):
        return _output_size(self.cells[-1])

    @property
    def output_state_index(self) -> int:
        """The position in the flat states of the last cell's first state: its previous
        output, which a masked step outputs again."""
        return len(self.state_size) - len(_sizes(self.cells[-1]))

    def nest_states(self, flat) -> list:
        """A flat list of states grouped per cell: a list for a cell with several states,
        the state itself for a cell with one (Keras's structure)."""
        nested, flat = [], list(flat)
        for cell in self.cells:
            count = len(_sizes(cell))
            own, flat = flat[:count], flat[count:]
            nested.append(own if isinstance(cell.state_size, (list, tuple)) else own[0])
        return nested

    def build(self, input_shape):
        shape = tuple(input_shape)
        for cell in self.cells:
            if not cell.built:
                cell.build(shape)
                cell.built = True
            shape = shape[:-1] + (_output_size(cell),)
        self.built = True

    def call(self, inputs, states, training=None):
        states = list(states)
        new_states = []
        for cell in self.cells:
            count = len(_sizes(cell))
            own, states = states[:count], states[count:]
            inputs, updated = cell(inputs, own, training=training)
            updated = list(updated) if isinstance(updated, (list, tuple)) else [updated]
            new_states.extend(updated)
        return inputs, new_states

    def get_config(self):
        return {**super().get_config(), "cells": [serialize_layer(c) for c in self.cells]}

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=True):
        config = dict(config)
        cells = [deserialize_layer(c, custom_objects, safe_mode) for c in config.pop("cells")]
        return cls(cells, **config)
