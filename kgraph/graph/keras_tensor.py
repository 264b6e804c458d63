"""``KerasTensor``: a symbolic tensor (shape, dtype, and where it came from).

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,))
>>> y = (x * 2 + 1)[:, :2]
>>> y.shape, y._keras_history.layer.name.startswith("get_item")
((None, 2), True)
>>> (x > 0.5).dtype.name, (abs(x) // 2).shape
('bool', (None, 3))
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["KerasTensor", "OPERATORS", "any_keras_tensor", "is_keras_tensor",
           "standard_shape"]


_BOOL_ERROR = (
    "A symbolic KerasTensor has no value yet, so it cannot be used as a Python bool "
    "(in `if`, `while`, `and`/`or`, or `assert`). Use kgraph.ops.where / jax.lax.cond "
    "inside a layer's call, where the values are real arrays."
)
_ARRAY_ERROR = (
    "A symbolic KerasTensor was passed to a function that needs a concrete array "
    "(e.g. a jax.numpy or numpy function). Use kgraph.ops on KerasTensors, or put the "
    "computation inside a Layer's call(), where the inputs are real arrays."
)


class KerasTensor:
    """Shape (None where unknown), dtype, name, ``_keras_history`` and ``_keras_mask`` of a
    graph edge."""

    __slots__ = ("shape", "dtype", "name", "_keras_history", "_keras_mask", "__weakref__")
    __array_priority__ = 1000  # numpy defers to our reflected operators
    sparse = False  # Keras's flags: kgraph's tensors are always dense
    ragged = False
    # No __jax_array__: without it jax arrays also defer to our reflected operators
    # (``jnp_array * tensor`` builds a node), and jax functions given a KerasTensor
    # raise a TypeError naming the KerasTensor type.

    def __init__(self, shape, dtype="float32", sparse=False, ragged=False, name=None):
        for kind, flag in (("sparse", sparse), ("ragged", ragged)):
            if flag:
                raise ValueError(f"KerasTensor: {kind}=True is not supported (kgraph's tensors "
                                 f"are dense JAX arrays); leave {kind}=False.")
        self.shape = standard_shape(shape)
        self.dtype = jnp.dtype(dtype)
        self.name = name
        self._keras_history = None
        self._keras_mask = None  # a symbolic call's output mask (boolean, without history)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self):
        name = f" name={self.name}" if self.name else ""
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype.name}{name}>"

    def __bool__(self):
        raise TypeError(_BOOL_ERROR)

    def __array__(self, *args, **kwargs):
        raise TypeError(_ARRAY_ERROR)

    def __len__(self):
        if not self.shape or self.shape[0] is None:
            raise TypeError(f"len() of a KerasTensor with unknown first dimension: {self}")
        return self.shape[0]

    def __iter__(self):
        raise TypeError("Iterating over a symbolic KerasTensor is not supported; index it.")

    # Operators build graph nodes through the ops of OPERATORS.
    def __add__(self, other): return OPERATORS["add"](self, other)
    def __radd__(self, other): return OPERATORS["add"](other, self)
    def __sub__(self, other): return OPERATORS["subtract"](self, other)
    def __rsub__(self, other): return OPERATORS["subtract"](other, self)
    def __mul__(self, other): return OPERATORS["multiply"](self, other)
    def __rmul__(self, other): return OPERATORS["multiply"](other, self)
    def __truediv__(self, other): return OPERATORS["divide"](self, other)
    def __rtruediv__(self, other): return OPERATORS["divide"](other, self)
    def __matmul__(self, other): return OPERATORS["matmul"](self, other)
    def __rmatmul__(self, other): return OPERATORS["matmul"](other, self)
    def __pow__(self, other): return OPERATORS["power"](self, other)
    def __rpow__(self, other): return OPERATORS["power"](other, self)
    def __floordiv__(self, other): return OPERATORS["floor_divide"](self, other)
    def __rfloordiv__(self, other): return OPERATORS["floor_divide"](other, self)
    def __mod__(self, other): return OPERATORS["mod"](self, other)
    def __rmod__(self, other): return OPERATORS["mod"](other, self)
    def __lt__(self, other): return OPERATORS["less"](self, other)
    def __le__(self, other): return OPERATORS["less_equal"](self, other)
    def __gt__(self, other): return OPERATORS["greater"](self, other)
    def __ge__(self, other): return OPERATORS["greater_equal"](self, other)
    # as Keras's: &, |, ^ and ~ are logical
    def __and__(self, other): return OPERATORS["logical_and"](self, other)
    def __rand__(self, other): return OPERATORS["logical_and"](other, self)
    def __or__(self, other): return OPERATORS["logical_or"](self, other)
    def __ror__(self, other): return OPERATORS["logical_or"](other, self)
    def __xor__(self, other): return OPERATORS["logical_xor"](self, other)
    def __rxor__(self, other): return OPERATORS["logical_xor"](other, self)
    def __invert__(self): return OPERATORS["logical_not"](self)
    def __neg__(self): return OPERATORS["negative"](self)
    def __abs__(self): return OPERATORS["absolute"](self)
    def __round__(self, ndigits=None): return OPERATORS["round"](self, ndigits or 0)
    def __getitem__(self, index): return OPERATORS["get_item"](self, index)

    __hash__ = object.__hash__  # identity: tensors are graph edges, not values


def standard_shape(shape) -> tuple:
    """``shape`` as a tuple of ints and Nones; Keras's ValueError for what is not a shape.

    >>> standard_shape([2, None]), standard_shape(range(1, 3))
    ((2, None), (1, 2))
    >>> standard_shape(3)
    Traceback (most recent call last):
    ...
    ValueError: Cannot convert '3' to a shape.
    """
    if shape is None or isinstance(shape, str) or not hasattr(shape, "__iter__"):
        raise ValueError(f"Cannot convert '{shape}' to a shape.")
    dims = []
    for d in shape:
        if d is None or isinstance(d, int) and d >= 0:
            dims.append(d)
            continue
        if isinstance(d, (str, float)):
            raise ValueError(f"Cannot convert '{shape}' to a shape. Found invalid dimension "
                             f"'{d}' of type '{type(d)}'.")
        try:
            d = int(d)  # NumPy integers, 0-d integer arrays
        except (TypeError, ValueError) as error:
            raise ValueError(f"Cannot convert '{shape}' to a shape. Found invalid dimension "
                             f"'{d}' of type '{type(d)}'.") from error
        if d < 0:
            raise ValueError(f"Cannot convert '{shape}' to a shape. Negative dimensions are "
                             "not allowed.")
        dims.append(d)
    return tuple(dims)


# The ops behind KerasTensor's operators, by op name; ``kgraph.ops.numpy`` fills it where
# it defines them (``import kgraph`` always does). The ops make Operation layers and nodes,
# which know KerasTensor: so the ops come to this module rather than it importing them.
OPERATORS: dict = {}


def is_keras_tensor(x) -> bool:
    """True for a symbolic tensor."""
    return isinstance(x, KerasTensor)


def any_keras_tensor(structure) -> bool:
    """Whether a ``KerasTensor`` is anywhere in ``structure`` (nested lists, tuples, dicts).

    >>> any_keras_tensor([1.0, {"x": KerasTensor((None, 2))}]), any_keras_tensor((1, [2]))
    (True, False)
    """
    return any(isinstance(leaf, KerasTensor) for leaf in jax.tree_util.tree_leaves(structure))
