"""``keras.src.ops.numpy``: kgraph's NumPy-like ops and their Keras op classes
(``Sum``, ``ExpandDims``, ...).

>>> Sum(axis=0).get_config()["axis"]
0
"""

from kgraph.ops import numpy as _ops
from kgraph.ops.numpy import *  # noqa: F401,F403 - the module's functions
from kgraph.ops.operation_classes import operation_classes

_CLASSES = operation_classes(_ops.__all__)
globals().update(_CLASSES)
__all__ = [*_ops.__all__, *_CLASSES]
