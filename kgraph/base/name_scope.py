"""``keras.name_scope``: a sub-namespace for the paths of variables made inside it.

A ``Variable`` made without a layer inside ``with name_scope("block"):`` has the path
``block/<name>``; scopes nest (``outer/inner/<name>``), and ``override_parent`` starts from
another absolute path. A layer's weights keep ``layer_name/weight_name``: their paths are
the params tree's keys.

>>> from kgraph.base.variables import Variable
>>> with name_scope("encoder"):
...     with name_scope("block_0"):
...         Variable(1.0, name="scale").path
'encoder/block_0/scale'
"""

from __future__ import annotations

import threading

__all__ = ["current_path", "name_scope"]

_local = threading.local()


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
        if (override_parent is None and deduplicate
                and getattr(caller, "_parent_path", None) is not None):
            self.override_parent = caller._parent_path
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


def current_path() -> str:
    """The open scopes' path (``""`` outside any)."""
    parts: list = []
    for scope in _stack():
        if scope.override_parent is not None:
            parts = [p for p in scope.override_parent.split("/") if p]
        parts.append(scope.name)
    return "/".join(parts)
