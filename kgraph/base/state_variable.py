"""``StateVariable``: one of Keras's variables that is a view of a state kgraph keeps
elsewhere (an optimizer's or a metric's state).

It holds no value of its own: ``read()`` gives its value from the state and
``write(value)`` puts a new one there, so reading one gives what the state holds now and
assigning one changes what the next step continues from. It is Keras's ``Variable``
(``.value``, ``.numpy()``, ``.assign(...)``, ``.path``, operators, and ``==`` elementwise,
as Keras's).

>>> import jax.numpy as jnp
>>> state = {"count": jnp.zeros(())}
>>> def write(value):
...     state["count"] = value
>>> count = StateVariable("count", (), "float32", lambda: state["count"], write, "mean")
>>> _ = count.assign(count + 2)
>>> count.path, float(state["count"]), bool(count == 2.0)
('mean/count', 2.0, True)
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from kgraph.base.variables import Variable

__all__ = ["StateVariable"]


class StateVariable(Variable):
    """A non-trainable ``Variable`` whose value is read with ``read()`` and written with
    ``write(value)``; ``scope`` prefixes its ``path`` (the name of its owner)."""

    def __init__(self, name, shape, dtype, read, write, scope=None):
        super().__init__("zeros", shape=shape, dtype=dtype, trainable=False, name=name)
        self._read, self._write, self._scope_name = read, write, scope

    @property
    def path(self) -> str:
        return f"{self._scope_name}/{self.name}" if self._scope_name else self.name

    @property
    def value(self):
        # a copy: the state's own buffers may be given to (and consumed by) the next step
        return jnp.array(self._read(), self.dtype, copy=True)

    def assign(self, value):
        value = jnp.asarray(getattr(value, "value", value), self.dtype)  # (jittable)
        if tuple(value.shape) != self.shape:
            raise ValueError(f'Cannot assign to variable "{self.path}": expected shape '
                             f"{self.shape}, received shape {tuple(value.shape)}.")
        self._write(value)
        return self

    def assign_add(self, delta):
        return self.assign(self.value + jnp.asarray(getattr(delta, "value", delta)))

    def assign_sub(self, delta):
        return self.assign(self.value - jnp.asarray(getattr(delta, "value", delta)))

    def __repr__(self):
        return (f"<Variable path={self.path}, shape={self.shape}, dtype={self.dtype.name}, "
                f"value={np.asarray(self.value)}>")
