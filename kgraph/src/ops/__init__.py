"""``keras.src.ops``: Keras's internal ops package also offers its backend's ``random``
module (``from keras.src.ops import random``), here ``kgraph.random``; its other names are
``kgraph.ops``'s (``kgraph.compat`` looks here first, then there).

>>> random.uniform((2,), seed=1).shape
(2,)
"""

from kgraph import random
from kgraph.src.ops import image

__all__ = ["image", "random"]
