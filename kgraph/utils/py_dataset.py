"""``PyDataset``: batches by index, as Keras's (``__getitem__``, ``__len__`` or
``num_batches``, ``on_epoch_end``). ``fit`` / ``evaluate`` / ``predict`` iterate it once per
epoch, calling ``on_epoch_end`` after each pass.

>>> import numpy as np
>>> class Halves(PyDataset):
...     def __len__(self):
...         return 2
...     def __getitem__(self, index):
...         return np.full((3, 1), index, np.float32), np.zeros((3, 1), np.float32)
>>> [x[0, 0] for x, _ in Halves()]
[np.float32(0.0), np.float32(1.0)]
"""

from __future__ import annotations

import itertools

__all__ = ["PyDataset", "Sequence"]


class PyDataset:
    """Base class: implement ``__getitem__(index) -> batch`` and ``__len__`` (or the
    ``num_batches`` property; None: endless, read by index until ``steps_per_epoch``).
    ``workers``, ``use_multiprocessing`` and ``max_queue_size`` are accepted as Keras's
    and batches are made in the calling thread."""

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self.workers = workers
        self.use_multiprocessing = use_multiprocessing
        self.max_queue_size = max_queue_size

    @property
    def num_batches(self):
        """The number of batches per epoch (``len(self)`` by default)."""
        length = type(self).__len__
        if length is PyDataset.__len__:
            return None
        return len(self)

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__ or "
                                  "num_batches.")

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__.")

    def on_epoch_end(self):
        """Called after every pass over the batches (e.g. to shuffle)."""

    def __iter__(self):
        count = self.num_batches
        if count is None:
            if type(self).num_batches is PyDataset.num_batches:
                raise ValueError(f"{type(self).__name__} defines neither __len__ nor "
                                 "num_batches.")
            # ``num_batches`` None: an endless dataset, read until ``steps_per_epoch``
            return (self[index] for index in itertools.count())
        return self._one_pass(count)

    def _one_pass(self, count):
        for index in range(count):
            yield self[index]
        self.on_epoch_end()


Sequence = PyDataset  # Keras's older name
