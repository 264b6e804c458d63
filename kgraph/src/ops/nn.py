"""``keras.src.ops.nn``: kgraph's neural-network ops and their Keras op classes
(``Relu``, ``Softmax``, ``CTCLoss``, ...).

>>> Softmax(axis=-1).get_config()["axis"]
-1
"""

from kgraph.ops import nn as _ops
from kgraph.ops.nn import *  # noqa: F401,F403 - the module's functions
from kgraph.ops.operation_classes import operation_classes

_CLASSES = operation_classes(_ops.__all__)
globals().update(_CLASSES)
__all__ = [*_ops.__all__, *_CLASSES]
