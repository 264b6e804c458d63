"""``SymbolicScope`` (Keras 3's ``keras.SymbolicScope``): marks the symbolic stage, where
layers run on abstract values to find their output shapes and dtypes (kgraph opens it
around every shape inference trace). Code a layer runs can ask ``in_symbolic_scope()`` to
skip work that only matters on real values.

>>> from kgraph.base.symbolic_scope import SymbolicScope, in_symbolic_scope
>>> in_symbolic_scope()
False
>>> with SymbolicScope():
...     in_symbolic_scope()
True
"""

from __future__ import annotations

import threading

__all__ = ["SymbolicScope", "get_symbolic_scope", "in_symbolic_scope"]

_state = threading.local()


class SymbolicScope:
    """Scope of the symbolic stage (nests; each thread has its own)."""

    def __enter__(self):
        self.original_scope = get_symbolic_scope()
        _state.scope = self
        return self

    def __exit__(self, *exc_info):
        _state.scope = self.original_scope
        return False


def get_symbolic_scope():
    """The innermost open ``SymbolicScope``, or None."""
    return getattr(_state, "scope", None)


def in_symbolic_scope() -> bool:
    """Whether a ``SymbolicScope`` is open in this thread."""
    return get_symbolic_scope() is not None
