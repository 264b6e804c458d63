"""``keras.callbacks``: the callbacks of ``runtime.callbacks``, by Keras's names.

Loaded on first use of ``kgraph.callbacks`` (``import kgraph`` does not import ``runtime``).

>>> import kgraph as kg
>>> kg.callbacks.EarlyStopping(patience=2).patience
2
"""

from runtime.callbacks import *  # noqa: F401,F403 - the public catalog
from runtime.callbacks import __all__  # noqa: F401
