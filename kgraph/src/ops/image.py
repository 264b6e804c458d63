"""``keras.src.ops.image``: kgraph's image ops and their Keras op classes (``Resize``,
``MapCoordinates``, ...), made from the op registry as the other op modules' are.

>>> import numpy as np
>>> Resize((2, 2))(np.ones((1, 4, 4, 3), "float32")).shape
(1, 2, 2, 3)
>>> MapCoordinates(1).get_config()["order"]
1
"""

from kgraph.ops import image as _ops
from kgraph.ops.image import *  # noqa: F401,F403 - the module's functions
from kgraph.ops.operation_classes import operation_classes

_CLASSES = operation_classes(_ops.__all__)
globals().update(_CLASSES)
__all__ = [*_ops.__all__, *_CLASSES]
