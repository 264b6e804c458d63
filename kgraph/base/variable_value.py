"""``VariableValue``: a layer's weight read through an attribute by code outside kgraph.

Keras gives ``self.kernel`` as the ``Variable``: code assigns it (``self.total.assign_add``
in ``call``, a kernel masked in place) and computes with it (``ops.matmul(x, self.kernel)``,
``self.kernel * mask``). A ``VariableValue`` is both: the ``Variable``'s API (``assign``,
``assign_add``, ``path``, ``trainable``...) and its value where it is read, autocast inside a
call, usable as an array: operators, ``kgraph.ops``, ``jax.numpy`` (it is a pytree of its
value, so ``jit`` and ``jnp`` functions see the array) and NumPy. Each read gives the
current value, so after ``assign`` it reads the new one. ``jax.lax`` primitives take arrays
only: pass them ``w.value``, as with Keras's variables.

kgraph's own layers read their weights as arrays (see ``Layer.__getattr__``).

>>> import numpy as np
>>> import kgraph as kg
>>> class Total(kg.layers.Layer):
...     def build(self, input_shape):
...         self.total = self.add_weight(shape=(input_shape[-1],), initializer="zeros",
...                                      trainable=False)
...     def call(self, x):
...         self.total.assign_add(kg.ops.sum(x, axis=0))
...         return x * self.total
>>> layer = Total(name="total")
>>> layer(np.ones((2, 3))).tolist()
[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]
>>> layer.total.numpy().tolist(), layer.total.path
([2.0, 2.0, 2.0], 'total/total')
"""

from __future__ import annotations

import jax
import numpy as np

from kgraph.base.array_operators import ArrayOperators, plain_values

__all__ = ["VariableValue", "values_of"]


class VariableValue(ArrayOperators):
    """``variable`` as ``layer`` reads it (``layer._read_weight``); ``fixed``: a value
    given instead (inside ``jit``, where the pytree is rebuilt from its traced value)."""

    __slots__ = ("variable", "_layer", "_fixed")

    def __init__(self, variable, layer, fixed=None):
        self.variable, self._layer, self._fixed = variable, layer, fixed

    @property
    def value(self):
        if self._fixed is not None:
            return self._fixed
        return self._layer._read_weight(self.variable)

    # ------------------------------------------------------------ the variable
    def assign(self, value):
        self.variable.assign(values_of(value))
        return self

    def assign_add(self, delta):
        self.variable.assign(self.value + values_of(delta))
        return self

    def assign_sub(self, delta):
        self.variable.assign(self.value - values_of(delta))
        return self

    def numpy(self) -> np.ndarray:
        return np.asarray(self.value)

    def __getattr__(self, name):
        try:
            return getattr(self.variable, name)
        except AttributeError:
            return getattr(self.value, name)  # the array's own (``T``, ``sum``, ``tolist``)

    def __setattr__(self, name, value):
        if name in VariableValue.__slots__:
            object.__setattr__(self, name, value)
        else:  # the variable's own (``w.trainable = False``, as Keras's)
            setattr(self.variable, name, value)

    def __repr__(self):
        return repr(self.variable)

    # ---------------------------------------------------------------- an array
    @property
    def shape(self):
        return self.variable.shape

    @property
    def dtype(self):
        """The dtype it reads as, as Keras's: inside a call under a mixed policy the compute
        dtype (the value is autocast), elsewhere the variable's."""
        if self._fixed is None and not self._layer._autocasts(self.variable):
            return self.variable.dtype
        return self.value.dtype

    @property
    def ndim(self) -> int:
        return len(self.variable.shape)

    def __len__(self):
        return self.variable.shape[0]


values_of = plain_values  # ``tree`` with each ``VariableValue`` replaced by its value


class _Same:
    """``held`` in a pytree's metadata, equal only to itself (a variable's ``==`` compares
    its values elementwise, as Keras's)."""

    __slots__ = ("held",)

    def __init__(self, held):
        self.held = held

    def __eq__(self, other):
        return isinstance(other, _Same) and other.held is self.held

    def __hash__(self):
        return id(self.held)


jax.tree_util.register_pytree_node(
    VariableValue, lambda v: ((v.value,), (_Same(v.variable), _Same(v._layer))),
    lambda aux, children: VariableValue(aux[0].held, aux[1].held, fixed=children[0]))
