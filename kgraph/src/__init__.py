"""Keras's internal module paths that libraries written for Keras import (``keras.src.*``,
e.g. KerasHub's ``from keras.src.backend import get_keras_mask``), so that they run on kgraph
under ``kgraph.compat.install()``. Each name here has its Keras 3 semantics and is
implemented by kgraph (most are kgraph's own functions under Keras's internal path). Only
the names such libraries use are offered; this is not a copy of Keras's internals.

>>> import kgraph.compat
>>> with kgraph.compat.install():
...     from keras.src.backend import get_keras_mask
...     get_keras_mask.__module__
'kgraph.src.backend.keras_mask'
"""

from kgraph.src import backend, legacy, saving, trainers, utils

# ``keras.src.testing`` (Keras's TestCase on kgraph, which needs absl-py) is imported on use.
__all__ = ["backend", "legacy", "saving", "trainers", "utils"]


def __getattr__(name):
    """``keras.src.<name>`` for a module kgraph keeps at ``kgraph.<name>`` (``keras.src.tree``
    is ``kgraph.tree``), as Keras's internal paths resolve (``kgraph.compat.internal_paths``)."""
    if not name.startswith("_"):
        import importlib

        try:
            return importlib.import_module(f"kgraph.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"kgraph.{name}":
                raise
    raise AttributeError(f"module 'kgraph.src' has no attribute {name!r}")
