"""Run code written for Keras on kgraph: ``install()`` makes ``import keras`` (and
``keras.layers``, ``from keras import ops``, ...) resolve to kgraph's modules of the same
names, for every import that follows, until ``uninstall()``. Code that imports Keras, a
keras.io example or a library, then builds and trains kgraph models unchanged.

Opt-in, process-wide, and undone by ``uninstall()`` (which puts back any ``keras`` that was
imported before). Also a context manager::

    with kgraph.compat.install():
        import keras                      # kgraph
        model = keras.Sequential([keras.layers.Dense(2)])

>>> import sys
>>> with install():
...     import keras
...     from keras import layers
...     keras.__name__, layers.__name__
('kgraph', 'kgraph.layers')
>>> sys.modules.get("keras") is None or sys.modules["keras"].__name__ != "kgraph"
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["install", "installed", "uninstall"]


class _KerasIsKgraph(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``keras`` and ``keras.x.y`` as the modules ``kgraph`` and ``kgraph.x.y``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "keras" or fullname.startswith("keras."):
            if importlib.util.find_spec("kgraph" + fullname[len("keras"):]) is None:
                return None  # then ``import keras.src...`` fails as a missing module
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def __init__(self):
        self._own_specs = {}  # a kgraph module's own __spec__, by the module's id

    def create_module(self, spec):
        module = importlib.import_module("kgraph" + spec.name[len("keras"):])
        self._own_specs[id(module)] = module.__spec__
        return module

    def exec_module(self, module):
        # the kgraph module is imported already; the import machinery has just set its
        # __spec__ to the ``keras`` one, which would outlive ``uninstall()``: put its own back
        module.__spec__ = self._own_specs.pop(id(module))


class _Installation:
    """The active installation: what it replaced, and how to undo it."""

    def __init__(self):
        self.finder = _KerasIsKgraph()
        self.saved = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        uninstall()
        return False


_active: _Installation | None = None


def _keras_modules() -> list:
    return [name for name in sys.modules if name == "keras" or name.startswith("keras.")]


def install() -> _Installation:
    """Make ``import keras`` give kgraph from now on (a ``keras`` imported before is set
    aside and comes back with ``uninstall()``). Installing twice is the same as once."""
    global _active
    if _active is None:
        _active = _Installation()
        _active.saved = {name: sys.modules.pop(name) for name in _keras_modules()}
        sys.meta_path.insert(0, _active.finder)
    return _active


def uninstall() -> None:
    """Undo ``install()``: ``import keras`` finds what it found before."""
    global _active
    if _active is None:
        return
    sys.meta_path.remove(_active.finder)
    for name in _keras_modules():
        del sys.modules[name]
    sys.modules.update(_active.saved)
    _active = None


def installed() -> bool:
    """Whether ``import keras`` gives kgraph now."""
    return _active is not None
