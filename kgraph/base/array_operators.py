"""``ArrayOperators``: the array behaviour of Keras's ``Variable`` for objects that hold a
``value``: operators, ``float()`` / ``int()``, NumPy (``np.asarray``) and ``jax.numpy``
(``__jax_array__``), indexing and iteration, each reading the current ``value``.

>>> class Held(ArrayOperators):
...     def __init__(self, value):
...         self.value = value
>>> import numpy as np
>>> held = Held(np.arange(3.0))
>>> (held * 2).tolist(), float(held[1]), (1 - held).tolist(), np.asarray(held).shape
([0.0, 2.0, 4.0], 1.0, [1.0, 0.0, -1.0], (3,))
"""

from __future__ import annotations

import jax
import numpy as np

__all__ = ["ArrayOperators", "plain_values"]


class ArrayOperators:
    """Array operators over ``self.value`` (a subclass provides ``value``)."""

    __slots__ = ()
    __array_priority__ = 1000  # numpy defers to our reflected operators

    def __jax_array__(self):
        return self.value

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self.value)
        return value if dtype is None else value.astype(dtype)

    def __len__(self):
        return len(self.value)

    def __iter__(self):
        return iter(self.value)

    def __bool__(self):
        return bool(self.value)

    def __float__(self):
        return float(self.value)

    def __int__(self):
        return int(self.value)

    def __getitem__(self, key):
        return self.value[plain_values(key)]

    def __neg__(self):
        return -self.value

    def __pos__(self):
        return self.value

    def __abs__(self):
        return abs(self.value)

    def __invert__(self):
        return ~self.value


def _binary(name):
    def forward(self, other):
        return getattr(self.value, name)(plain_values(other))

    forward.__name__ = name
    return forward


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and",
              "or", "xor", "lshift", "rshift"):
    setattr(ArrayOperators, f"__{_name}__", _binary(f"__{_name}__"))
    setattr(ArrayOperators, f"__r{_name}__", _binary(f"__r{_name}__"))
for _name in ("lt", "le", "gt", "ge"):
    setattr(ArrayOperators, f"__{_name}__", _binary(f"__{_name}__"))
# as Keras's variables: ``==`` / ``!=`` compare the values elementwise; hashed by identity
for _name in ("eq", "ne"):
    setattr(ArrayOperators, f"__{_name}__", _binary(f"__{_name}__"))
ArrayOperators.__hash__ = object.__hash__


def plain_values(tree):
    """``tree`` with each ``ArrayOperators`` object replaced by its value (anything else
    kept)."""
    return jax.tree_util.tree_map(
        lambda leaf: leaf.value if isinstance(leaf, ArrayOperators) else leaf, tree,
        is_leaf=lambda leaf: isinstance(leaf, ArrayOperators))
