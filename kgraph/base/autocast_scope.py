"""Keras's ``AutocastScope``: inside it, reading a float weight that autocasts (made with
``autocast=True``, the default) gives its value cast to the scope's float dtype. Weights
made with ``autocast=False`` (``BatchNormalization``'s moving statistics) keep their own.

>>> import jax.numpy as jnp
>>> from kgraph.base.variables import Variable
>>> weight = Variable(jnp.ones(2))
>>> with AutocastScope("bfloat16"):
...     print(weight.value.dtype)
bfloat16
>>> print(weight.value.dtype)
float32
"""

from __future__ import annotations

import threading

import jax.numpy as jnp

from kgraph.backend import is_float_dtype, standardize_dtype

__all__ = ["AutocastScope", "get_autocast_scope"]

_active = threading.local()


def get_autocast_scope():
    """The innermost open ``AutocastScope`` (None outside any)."""
    return getattr(_active, "scope", None)


class AutocastScope:
    """Cast float weights read inside the scope to ``dtype`` (a float dtype; None: no
    casting)."""

    def __init__(self, dtype):
        if dtype is not None:
            dtype = standardize_dtype(dtype)
            if not is_float_dtype(dtype):
                raise ValueError("`AutocastScope` can only be used with a floating-point "
                                 f"target dtype, such as 'float16'. Received: dtype={dtype}")
        self.dtype = dtype
        self.original_scope = None

    def maybe_cast(self, value):
        """``value`` in the scope's dtype if it is a float array, else as it is."""
        if self.dtype is not None and jnp.issubdtype(jnp.result_type(value), jnp.floating):
            return jnp.asarray(value, self.dtype)
        return value

    def __enter__(self):
        self.original_scope = get_autocast_scope()
        _active.scope = self
        return self

    def __exit__(self, *exc_info):
        _active.scope = self.original_scope
