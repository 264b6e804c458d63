"""Keras's ``EpochIterator`` (``keras.src.trainers.epoch_iterator``): the batches of one
epoch, in executions of ``steps_per_execution`` batches, from any data Keras's ``fit``
takes (``runtime.data_adapters``).

With ``steps_per_epoch``, epochs go on through the data where the last one stopped (one
that runs out of data warns and ends early; the next starts the data over). Without it,
each epoch is one pass over the data.

>>> import numpy as np
>>> iterator = EpochIterator(np.zeros((5, 2)), np.ones(5), batch_size=2)
>>> [(begin, end, len(batches[0][0])) for begin, end, batches in iterator]
[(0, 0, 2), (1, 1, 2), (2, 2, 1)]
"""

from __future__ import annotations

import itertools
import warnings

from kgraph import config
from runtime.data_adapters import get_data_adapter

__all__ = ["EpochIterator"]


class EpochIterator:
    """Iterate it (or ``enumerate_epoch()``) once per epoch: each item is ``(begin_step,
    end_step, batches)``, the execution's first and last step and its list of batches (as
    NumPy, ``(x, y, sample_weight)`` as given)."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None,
                 shuffle=False, class_weight=None, steps_per_execution=1):
        cap = config.max_steps_per_epoch()
        if cap and (not steps_per_epoch or cap < steps_per_epoch):
            warnings.warn(f"Limiting steps_per_epoch to {cap}", stacklevel=2)
            steps_per_epoch = cap
        self.steps_per_epoch = steps_per_epoch
        self.steps_per_execution = steps_per_execution
        self.data_adapter = get_data_adapter(
            x, y=y, sample_weight=sample_weight, batch_size=batch_size,
            steps_per_epoch=steps_per_epoch, shuffle=shuffle, class_weight=class_weight)
        self._num_batches = self.data_adapter.num_batches
        self._batches = None  # the data's iterator, kept across epochs of steps_per_epoch
        self._taken = 0  # steps taken from it
        self._epoch = None
        self._ended = False

    @property
    def num_batches(self):
        """Steps per epoch: ``steps_per_epoch``, the data's, or (None) unknown so far."""
        return self.steps_per_epoch or self._num_batches

    def reset(self):
        """Start the data over (and end the data's epoch)."""
        self._batches, self._taken, self._epoch = None, 0, None
        self._num_batches = self.data_adapter.num_batches
        self.data_adapter.on_epoch_end()

    def _fresh(self):
        self._batches, self._taken = iter(self.data_adapter.get_numpy_iterator()), 0

    def _ran_out(self):
        warnings.warn("Your input ran out of data; interrupting the epoch. Make sure that "
                      "your dataset or generator can generate at least `steps_per_epoch * "
                      "epochs` batches (a tf.data.Dataset: `.repeat()`).", stacklevel=3)

    def _executions(self):
        """``(begin, end)`` of each execution of the epoch."""
        self.data_adapter.on_epoch_begin()
        steps, per = self.steps_per_epoch or self._num_batches, self.steps_per_execution
        if self._batches is None or not self.steps_per_epoch:
            self._fresh()
        for step in (range(0, steps, per) if steps else itertools.count(0, per)):
            if self._num_batches and self._taken >= self._num_batches:
                if self.steps_per_epoch:
                    self._ran_out()
                break
            self._taken += per
            yield step, step + per - 1
        if self._num_batches and self._taken >= self._num_batches:
            self._fresh()
        self.data_adapter.on_epoch_end()

    def __iter__(self):
        self._epoch, self._ended = self._executions(), False
        return self

    def __next__(self):
        if self._epoch is None:
            self.__iter__()
        if self._ended:
            raise StopIteration
        begin, end = next(self._epoch)
        batches = []
        try:
            for _ in range(self.steps_per_execution):
                batches.append(next(self._batches))
        except StopIteration:  # the data ran out: the epoch ends here
            if self._num_batches is None:
                self._num_batches = begin + len(batches)
            if self.steps_per_epoch:
                self._ran_out()
            self._batches, self._ended = None, True
            self.data_adapter.on_epoch_end()
            if not batches:
                raise
        return begin, end, batches

    def enumerate_epoch(self):
        """The epoch's executions (as iterating the object)."""
        yield from self
