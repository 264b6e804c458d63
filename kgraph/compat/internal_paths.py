"""Keras's internal module paths (``keras.src.layers.core.dense``) under
``kgraph.compat.install()``: each is an ``InternalPath`` module whose names are those of
kgraph's modules on the same path, so code written against Keras's internals (Keras's own
test files, libraries such as KerasHub) finds kgraph's objects of the same names.

>>> sources = internal_path_sources("keras.src.layers.core.dense")
>>> sources[-1]
'kgraph.layers'
>>> InternalPath("keras.src.layers.core.dense", sources).Dense.__name__
'Dense'
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import importlib.util
import pathlib
import sys
import types

__all__ = ["InternalPath", "internal_path_sources", "module_exists", "names_internal_module"]


class InternalPath(types.ModuleType):
    """A Keras-internal module path (``keras.src.layers.core.dense``) that kgraph has no
    module of its own for: its names are those of the nearest kgraph modules on the same
    path (``kgraph.src.layers.core.dense``, ``kgraph.layers.core.dense``, then the same for
    ``...core`` and ``...layers``), so ``from keras.src.layers.core.dense import Dense`` is
    ``kgraph.layers.Dense``. A package: deeper paths import too."""

    def __init__(self, name: str, sources: list[str]):
        super().__init__(name)
        self.__path__ = []
        self._sources = sources

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        for source in self._sources:
            module = sys.modules.get(source) or importlib.import_module(source)
            if hasattr(module, name):
                value = getattr(module, name)
                if isinstance(value, types.ModuleType) and names_internal_module(
                        f"{self.__name__}.{name}"):
                    # a submodule: its Keras path, so that deeper imports stay on that path
                    return importlib.import_module(f"{self.__name__}.{name}")
                return value
        if names_internal_module(f"{self.__name__}.{name}"):  # a submodule not imported yet
            try:
                return importlib.import_module(f"{self.__name__}.{name}")
            except ImportError:
                pass
        raise AttributeError(f"kgraph has no {name!r} under Keras's internal path "
                             f"{self.__name__!r} (looked in {', '.join(self._sources)}).")

    def __setattr__(self, name, value):
        # Setting a name the module's own kgraph module defines sets it there too, so that
        # kgraph's code sees it (``mock.patch("keras.src.backend.common.remat.remat")``);
        # deleting it puts the original back. (Not a submodule: the import system sets those
        # on their parent.)
        own = (self._own_module()
               if not name.startswith("_") and not isinstance(value, types.ModuleType) else None)
        if own is not None and hasattr(own, name):
            replaced = self.__dict__.setdefault("_replaced", {})
            replaced.setdefault(name, getattr(own, name))
            setattr(own, name, value)
        super().__setattr__(name, value)

    def __delattr__(self, name):
        super().__delattr__(name)
        replaced = self.__dict__.get("_replaced", {})
        if name in replaced:
            setattr(self._own_module(), name, replaced.pop(name))

    def _own_module(self):
        """The kgraph module of exactly this path (``kgraph.src.<path>``, ``kgraph.<path>``
        or its relocation), if there is one."""
        exact = _candidates(self.__name__[len("keras.src."):]) if self.__name__.startswith(
            "keras.src.") else []
        for source in self._sources:
            if source in exact:
                return sys.modules.get(source) or importlib.import_module(source)
        return None

    def __dir__(self):
        names = set(super().__dir__())
        for source in self._sources:  # their names, not their own module attributes
            names.update(name for name in dir(importlib.import_module(source))
                         if not name.startswith("__"))
        return sorted(names)


def module_exists(module_name: str) -> bool:
    try:
        return importlib.util.find_spec(module_name) is not None
    except ImportError:  # a parent is a plain module, not a package
        return False


@functools.cache
def _keras_folder() -> pathlib.Path | None:
    """The installed Keras's package folder, if any (found on disk, not imported)."""
    spec = importlib.machinery.PathFinder.find_spec("keras")
    return pathlib.Path(spec.origin).parent if spec is not None and spec.origin else None


def names_internal_module(fullname: str) -> bool:
    """Whether ``keras.src.<path>`` names a module: one Keras has (when Keras is installed),
    else a lowercase name (``from keras.src.x import SomeClass`` must not make a module)."""
    parts = fullname.split(".")
    folder = _keras_folder()
    if folder is not None:
        where = folder.joinpath(*parts[1:])
        return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()
    return all(part.isidentifier() and part == part.lower() for part in parts)


# Keras's internal modules whose names kgraph keeps elsewhere: a path under ``keras.src``
# -> the same path's place under ``kgraph`` (its submodules follow).
RELOCATED = {
    "backend.config": ("config",),
    "backend.common.dtypes": ("dtypes",),
    "backend.numpy": ("src.ops.numpy",),  # kgraph's backend ops, not Keras's NumPy backend
    "backend.common.remat": ("base.remat_scope",),
    "backend.numpy": ("ops.numpy",),  # the backend's numpy module (Keras's NumPy backend aside)
    "dtype_policies.dtype_policy": ("dtype_policy", "config"),
    "layers.preprocessing.image_preprocessing.bounding_boxes": ("utils.bounding_boxes",),
    "layers.preprocessing.feature_space": ("utils.feature_space",),
    "losses.loss": ("losses.weighting",),
    "ops.node": ("graph.node",),
    "ops.symbolic_arguments": ("graph.symbolic_arguments",),
    "trainers.data_adapters.py_dataset_adapter": ("utils",),
    "utils.naming": ("base.naming",),
}


def _candidates(path: str) -> list[str]:
    """The kgraph modules that may hold the names of ``keras.src.<path>``."""
    found = [f"kgraph.{new}{path[len(old):]}" for old, places in RELOCATED.items()
             if path == old or path.startswith(old + ".") for new in places]
    return found + [f"kgraph.src.{path}", f"kgraph.{path}"]


def internal_path_sources(fullname: str) -> list[str]:
    """The kgraph modules whose names a ``keras.src.<path>`` module offers, nearest first
    (``keras.src`` itself: ``kgraph.src``, then ``kgraph``); none if it names no module."""
    parts = fullname.split(".")[2:]
    if not parts:
        return ["kgraph.src", "kgraph"]
    if not names_internal_module(fullname):
        return []
    sources = []
    for end in range(len(parts), 0, -1):
        sources += [name for name in _candidates(".".join(parts[:end]))
                    if name not in sources and module_exists(name)]
    return sources
