"""``SymbolicArguments``: the arguments of one symbolic call (a node's), as Keras keeps
them: the positional and keyword arguments, their KerasTensors in order, and the same
arguments with values in place of the KerasTensors (``fill_in``).

>>> from kgraph.graph.keras_tensor import KerasTensor
>>> a, b = KerasTensor((2,)), KerasTensor((2,))
>>> arguments = SymbolicArguments(a, scale=2.0, other=b)
>>> arguments.keras_tensors == [a, b]
True
>>> arguments.fill_in({id(a): "A", id(b): "B"})
(('A',), {'other': 'B', 'scale': 2.0})
"""

from __future__ import annotations

import jax

from kgraph.graph.keras_tensor import KerasTensor

__all__ = ["SymbolicArguments"]


def _is_leaf(x):
    return x is None or isinstance(x, KerasTensor)


class SymbolicArguments:
    """``args`` and ``kwargs`` of a call; ``keras_tensors``: the KerasTensors among them,
    in order (nested lists, tuples and dicts included)."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs
        self._flat_arguments = jax.tree_util.tree_leaves((args, kwargs), is_leaf=_is_leaf)
        self._single_positional_tensor = (
            args[0] if not kwargs and len(args) == 1 and isinstance(args[0], KerasTensor)
            else None)
        self.keras_tensors = [x for x in self._flat_arguments if isinstance(x, KerasTensor)]

    def convert(self, conversion_fn):
        """``(args, kwargs)`` with ``conversion_fn`` applied to each leaf."""
        return jax.tree_util.tree_map(conversion_fn, (self.args, self.kwargs),
                                      is_leaf=_is_leaf)

    def fill_in(self, tensor_dict):
        """``(args, kwargs)`` with each KerasTensor replaced by ``tensor_dict[id(tensor)]``
        (None when the dict has no value for it)."""
        if self._single_positional_tensor is not None:
            return (tensor_dict[id(self._single_positional_tensor)],), {}
        return self.convert(lambda x: tensor_dict.get(id(x)) if isinstance(x, KerasTensor)
                            else x)
