"""``keras.src.ops``: Keras's op modules as Keras's own code reads them, each with its
functions (kgraph's ops) and Keras's op classes made from the op registry
(``kgraph.ops.operation_classes``). The package also offers its backend's ``random``
module (``from keras.src.ops import random``), here ``kgraph.random``.

>>> random.uniform((2,), seed=1).shape
(2,)
"""

from kgraph import random
from kgraph.base.name_scope import name_scope
from kgraph.src.ops import image

__all__ = ["image", "name_scope", "random"]
