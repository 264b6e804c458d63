"""A Keras imported before ``kgraph.compat.install()`` keeps working: while kgraph answers
``import keras``, the imports that Keras's own modules run (its lazy ``from keras.src.saving
import serialization_lib`` inside functions) find Keras's modules, set aside by ``install``.

Only the code of those modules is routed so, by its globals: a Keras module's globals are
its module's ``__dict__``. Every other import, user code's and libraries', finds kgraph.
"""

from __future__ import annotations

import _imp
import builtins
import importlib
import importlib.util
import sys

__all__ = ["SetAsideKeras", "keras_module_names"]


def keras_module_names() -> list:
    return [name for name in sys.modules if name == "keras" or name.startswith("keras.")]


class SetAsideKeras:
    """Routes the imports of the set-aside Keras modules (``saved``: name -> module, kept
    up to date with what they import) back to them; ``start`` / ``stop`` install and remove
    the routing (``builtins.__import__``); ``finder`` is kgraph's, taken out meanwhile."""

    def __init__(self, saved: dict, finder):
        self.saved = saved
        self.finder = finder
        self._original = builtins.__import__
        self._active = False

    def start(self) -> None:
        self._active = True
        builtins.__import__ = self._import

    def stop(self) -> None:
        # (an import hook set over this one since keeps calling it: it then passes through)
        self._active = False
        if builtins.__import__ is self._import:
            builtins.__import__ = self._original

    def _is_keras_code(self, globals) -> bool:
        module = self.saved.get(globals.get("__name__")) if globals else None
        return module is not None and module.__dict__ is globals

    def _import(self, name, globals=None, locals=None, fromlist=(), level=0):
        if not (self._active and self._is_keras_code(globals)):
            return self._original(name, globals, locals, fromlist, level)
        if level:
            name = importlib.util.resolve_name("." * level + name, globals["__package__"])
        if not (name == "keras" or name.startswith("keras.")):
            return self._original(name, globals, locals, fromlist, 0)
        module = self.saved.get(name)
        if module is None or any(not hasattr(module, n) for n in fromlist or () if n != "*"):
            module = self._import_into_keras(name, fromlist or ())
        return module if fromlist else self.saved["keras"]

    def _import_into_keras(self, name, fromlist):
        """Import ``name`` (and ``fromlist``'s submodules) as Keras itself: with Keras's
        modules in ``sys.modules`` and kgraph's finder out, for the time of the import."""
        _imp.acquire_lock()
        ours = {n: sys.modules.pop(n) for n in keras_module_names()}
        sys.modules.update(self.saved)
        sys.meta_path.remove(self.finder)
        try:
            module = importlib.import_module(name)
            for child in fromlist:
                if child != "*" and not hasattr(module, child):
                    try:
                        importlib.import_module(f"{name}.{child}")
                    except ModuleNotFoundError:
                        pass  # a name, not a module: the from-import reports it
            return module
        finally:
            self.saved.update({n: sys.modules.pop(n) for n in keras_module_names()})
            sys.modules.update(ours)
            sys.meta_path.insert(0, self.finder)
            _imp.release_lock()
