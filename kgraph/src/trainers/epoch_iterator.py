"""``keras.src.trainers.epoch_iterator``: Keras's ``EpochIterator``, the runtime's
(``runtime.epoch_iterator``), reached through ``kgraph.engine`` on first use.

>>> import numpy as np
>>> from kgraph.src.trainers.epoch_iterator import EpochIterator
>>> EpochIterator(np.zeros((5, 2)), batch_size=2).num_batches
3
"""

from kgraph.engine import runtime

__all__ = ["EpochIterator"]


def __getattr__(name):
    if name in __all__:
        return getattr(runtime().epoch_iterator, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
