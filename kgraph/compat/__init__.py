"""Run code written for Keras on kgraph: ``install()`` makes ``import keras`` (and
``keras.layers``, ``from keras import ops``, ...) resolve to kgraph's modules of the same
names, for every import that follows, until ``uninstall()``. Code that imports Keras, a
keras.io example or a library, then builds and trains kgraph models unchanged.

Opt-in, process-wide, and undone by ``uninstall()`` (which puts back any ``keras`` that was
imported before; meanwhile that Keras keeps working: its own imports find its own modules,
see ``kgraph.compat.set_aside``). Keras's internal paths, ``keras.src.*``, are kgraph's
objects of the same names (``kgraph.compat.internal_paths``). Also a context manager::

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

from kgraph.compat.internal_paths import InternalPath, internal_path_sources, module_exists
from kgraph.compat.set_aside import SetAsideKeras, keras_module_names

__all__ = ["install", "installed", "uninstall"]


class _KerasIsKgraph(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``keras`` and ``keras.x.y`` as the modules ``kgraph`` and ``kgraph.x.y``, and
    Keras's internal paths ``keras.src.x.y`` as ``InternalPath`` modules onto kgraph's
    modules of the same path (``kgraph.src.x.y`` first: kgraph's own internals of Keras)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "keras.src" or fullname.startswith("keras.src."):
            if internal_path_sources(fullname):
                return importlib.util.spec_from_loader(fullname, self, is_package=True)
        elif fullname == "keras" or fullname.startswith("keras."):
            if module_exists("kgraph" + fullname[len("keras"):]):
                return importlib.util.spec_from_loader(fullname, self)
        return None  # then ``import keras...`` fails as a missing module

    def __init__(self):
        self._own_specs = {}  # a kgraph module's own __spec__, by the module's id

    def create_module(self, spec):
        if spec.name == "keras.src" or spec.name.startswith("keras.src."):
            return InternalPath(spec.name, internal_path_sources(spec.name))
        module = importlib.import_module("kgraph" + spec.name[len("keras"):])
        self._own_specs[id(module)] = module.__spec__
        return module

    def exec_module(self, module):
        # the kgraph module is imported already; the import machinery has just set its
        # __spec__ to the ``keras`` one, which would outlive ``uninstall()``: put its own back
        if not isinstance(module, InternalPath):
            module.__spec__ = self._own_specs.pop(id(module))


class _Installation:
    """The active installation: what it replaced (a Keras imported before, its modules set
    aside and still used by its own code), and how to undo it."""

    def __init__(self):
        self.finder = _KerasIsKgraph()
        self.saved = {}
        self.set_aside = SetAsideKeras(self.saved, self.finder)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        uninstall()
        return False


_active: _Installation | None = None


def install() -> _Installation:
    """Make ``import keras`` give kgraph from now on (a ``keras`` imported before is set
    aside and comes back with ``uninstall()``). Installing twice is the same as once."""
    global _active
    if _active is None:
        _active = _Installation()
        _active.saved.update({name: sys.modules.pop(name) for name in keras_module_names()})
        sys.meta_path.insert(0, _active.finder)
        if _active.saved:
            _active.set_aside.start()
    return _active


def uninstall() -> None:
    """Undo ``install()``: ``import keras`` finds what it found before."""
    global _active
    if _active is None:
        return
    _active.set_aside.stop()
    sys.meta_path.remove(_active.finder)
    for name in keras_module_names():
        del sys.modules[name]
    sys.modules.update(_active.saved)
    _active = None
    kgraph = sys.modules["kgraph"]
    if isinstance(kgraph.__dict__.get("src"), InternalPath):  # set by ``import keras.src``
        if "kgraph.src" in sys.modules:
            kgraph.src = sys.modules["kgraph.src"]
        else:
            del kgraph.src


def installed() -> bool:
    """Whether ``import keras`` gives kgraph now."""
    return _active is not None
