"""Array operations that work on arrays and on KerasTensors alike.

On arrays they are ``jax.numpy``; on KerasTensors each call becomes a graph node (an
``Operation``, a weightless layer), so ``(x * 2 + 1) @ w`` builds a graph when ``x`` is
symbolic and computes when it is an array.

>>> import kgraph as kg, jax.numpy as jnp
>>> ops.add(jnp.ones(2), 1).tolist()
[2.0, 2.0]
>>> ops.add(kg.Input(shape=(2,)), 1).shape
(None, 2)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph import naming, shape_inference
from kgraph.keras_tensor import KerasTensor
from kgraph.layer import Layer

_shared_spec_cache: dict = {}


class Operation(Layer):
    """A weightless layer wrapping an array function (one per symbolic op call)."""

    autocast = False  # operations keep their operands' dtypes, as jax.numpy does

    def __init__(self, fn, name=None, **fn_kwargs):
        super().__init__(name=name or naming.unique_name(fn.__name__))
        self.fn = fn
        self.fn_kwargs = fn_kwargs
        self.built = True
        # Operations are stateless, so shape inference is shared across instances.
        self._output_spec_cache = _shared_spec_cache.setdefault(
            (fn, repr(sorted(fn_kwargs.items()))), {})

    def call(self, *args):
        return self.fn(*args, **self.fn_kwargs)

    def compute_output_spec(self, *args, **kwargs):
        if self.fn in _ELEMENTWISE:
            shapes = [a.shape if isinstance(a, KerasTensor) else jnp.shape(a) for a in args]
            dtypes = [a.dtype if isinstance(a, KerasTensor) else a for a in args]
            try:
                return KerasTensor(shape_inference.broadcast_shapes(shapes), jnp.result_type(*dtypes))
            except ValueError as error:
                raise ValueError(f'Operation "{self.name}" cannot broadcast input shapes '
                                 f"{shapes}: {error}") from None
        return super().compute_output_spec(*args, **kwargs)

    def get_config(self):
        return {"name": self.name, "fn": self.fn.__name__}


def _symbolic(*args):
    return any(isinstance(a, KerasTensor) for a in jax.tree_util.tree_leaves(args))


def _op(fn, name):
    def op(*args, **kwargs):
        if _symbolic(args, kwargs):
            return Operation(fn, name=None, **kwargs)(*args)
        return fn(*args, **kwargs)

    op.__name__ = name
    op.__doc__ = f"``jax.numpy.{fn.__name__}`` on arrays; a graph node on KerasTensors."
    return op


def _get_item(x, index):
    return x[index]


_get_item.__name__ = "get_item"
add = _op(jnp.add, "add")
subtract = _op(jnp.subtract, "subtract")
multiply = _op(jnp.multiply, "multiply")
divide = _op(jnp.divide, "divide")
power = _op(jnp.power, "power")
negative = _op(jnp.negative, "negative")
matmul = _op(jnp.matmul, "matmul")
get_item = _op(_get_item, "get_item")
_ELEMENTWISE = {jnp.add, jnp.subtract, jnp.multiply, jnp.divide, jnp.power, jnp.negative}
