"""``keras.name_scope``: a sub-namespace for the paths of variables made inside it.

A ``Variable`` made inside ``with name_scope("block"):`` has the path ``block/<name>``;
scopes nest (``outer/inner/<name>``), and ``override_parent`` starts from another absolute
path. A layer opens a scope of its own name while it builds, is called and makes a weight,
under the scopes open when it first did (its ``_parent_chain``), as Keras: a sub-layer built
in its parent's ``build`` or ``call`` has the path ``parent/sub``, and its weights
``parent/sub/kernel``. A scope a layer opened stands for the layer itself in the paths, so
a layer renamed later (``kgraph.base.naming`` gives auto-named layers model-local names)
renames the paths under it too.

>>> from kgraph.base.variables import Variable
>>> with name_scope("encoder"):
...     with name_scope("block_0"):
...         Variable(1.0, name="scale").path
'encoder/block_0/scale'
"""

from __future__ import annotations

import threading

__all__ = ["Chain", "chain_path", "current_chain", "current_path", "name_scope"]

_local = threading.local()


class Chain:
    """Scopes, outermost first: names, and the layers that opened scopes of their own name
    (read by their current names). Not a sequence, so walks of a layer's attributes for
    sub-layers (tracking, saving) do not take a sub-layer's parents for its children."""

    __slots__ = ("parts",)

    def __init__(self, parts=()):
        self.parts = tuple(parts)

    def __repr__(self):
        return f"Chain({chain_path(self)!r})"


def _stack() -> list:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


class name_scope:  # noqa: N801 - Keras's name
    """Keras's arguments: ``caller`` and ``deduplicate`` skip re-entering the scope the
    same caller just opened under the same name."""

    def __init__(self, name, caller=None, deduplicate=True, override_parent=None):
        if not isinstance(name, str) or "/" in name:
            raise ValueError("Argument `name` must be a string and cannot contain character "
                             f"`/`. Received: name={name}")
        self.name, self.caller = name, caller
        self.deduplicate, self.override_parent = deduplicate, override_parent
        # the scope's parent as a chain (names and layers), or None: the scopes around it
        self._parent = None if override_parent is None else Chain(
            p for p in override_parent.split("/") if p)
        if override_parent is None and deduplicate:
            chain = getattr(caller, "_parent_chain", None)
            if chain is not None:
                self._parent = chain
                self.override_parent = chain_path(chain)
        self._pop_on_exit = False

    def __enter__(self):
        stack = _stack()
        if self.deduplicate and stack and self.caller is not None and (
                self.caller is stack[-1].caller and self.name == stack[-1].name):
            return self
        stack.append(self)
        self._pop_on_exit = True
        return self

    def __exit__(self, *exc_info):
        if self._pop_on_exit and _stack():
            _stack().pop()
            self._pop_on_exit = False
        return False


def _part(scope):
    """A scope's part of a chain: the layer that opened it under its own name, else the name."""
    caller = scope.caller
    return caller if caller is not None and getattr(caller, "name", None) == scope.name else (
        scope.name)


def current_chain() -> Chain:
    """The open scopes, outermost first: names, and the layers that opened their own."""
    parts: tuple = ()
    for scope in _stack():
        if scope._parent is not None:
            parts = scope._parent.parts
        parts = (*parts, _part(scope))
    return Chain(parts)


def chain_path(chain: Chain) -> str:
    """``a/b/c`` for a chain, each layer in it by its current name."""
    return "/".join(part if isinstance(part, str) else part.name for part in chain.parts)


def current_path() -> str:
    """The open scopes' path (``""`` outside any)."""
    return chain_path(current_chain())
