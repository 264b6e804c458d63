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
    ``kgraph.layers.Dense``. A package: deeper paths import too. Setting a name one of
    those modules defines sets it in that module (patching a setting reaches its user)."""

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
        # A name one of its kgraph modules defines is set there (``mock.patch.object`` of
        # a Keras-internal setting reaches the code that reads it), its own value kept to
        # come back on ``del``; any other name, and a submodule (the import system sets
        # those on their parent), stays on this module.
        owner = None if isinstance(value, types.ModuleType) else self._owner_of(name)
        if owner is None:
            super().__setattr__(name, value)
            return
        self.__dict__.setdefault("_overridden", {}).setdefault(name, (owner, vars(owner)[name]))
        setattr(owner, name, value)

    def __delattr__(self, name):
        overridden = self.__dict__.get("_overridden", {})
        if name in overridden:  # the module's own value comes back
            owner, value = overridden.pop(name)
            setattr(owner, name, value)
            return
        super().__delattr__(name)

    def _owner_of(self, name):
        """The first of this path's kgraph modules that defines ``name`` (None if none)."""
        if (name.startswith("__") or name in ("_sources", "_overridden")
                or "_sources" not in self.__dict__):
            return None
        for source in self._sources:
            module = sys.modules.get(source) or importlib.import_module(source)
            if name in vars(module):
                return module
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
    "backend.common.remat": ("base.remat_scope",),
    # ``backend.numpy`` is the backend's array functions (Keras's JAX ones there); the
    # path also names Keras's NumPy backend, which has the same functions
    "backend.numpy": ("ops.numpy", "ops"),
    "dtype_policies.dtype_policy": ("dtype_policy", "config"),
    "layers.preprocessing.image_preprocessing.bounding_boxes": ("utils.bounding_boxes",),
    "layers.preprocessing.feature_space": ("utils.feature_space",),
    "losses.loss": ("losses.weighting",),
    "ops.node": ("graph.node",),
    "ops.symbolic_arguments": ("graph.symbolic_arguments",),
    "saving.saving_lib": ("saving.keras_file", "saving.archive"),
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
