"""``keras.src.ops``: Keras's op modules as Keras's own code reads them, each with its
functions (kgraph's ops) and Keras's op classes made from the op registry
(``kgraph.ops.operation_classes``). As Keras's, the package itself offers every module's
functions and classes (``ops.Unstack``, ``ops.Map``: looked up on use), ``KerasTensor``
and its backend's ``random`` module (``from keras.src.ops import random``), here
``kgraph.random``.

>>> random.uniform((2,), seed=1).shape
(2,)
"""

import importlib

from kgraph import random
from kgraph.base.name_scope import name_scope
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.src.ops import image, operation_utils

# Keras's package star-imports these modules in this order (a later one's name wins)
_OP_MODULES = ("core", "linalg", "math", "nn", "numpy")

__all__ = ["KerasTensor", "image", "name_scope", "operation_utils", "random"]


def __getattr__(name):
    # Looked up on use, not star-imported: Keras's internal paths under ``keras.src.ops``
    # fall back to this package, and their names must stay their own modules'.
    if not name.startswith("_"):
        for module_name in reversed(_OP_MODULES):
            module = importlib.import_module(f"{__name__}.{module_name}")
            if name in module.__all__:
                return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
