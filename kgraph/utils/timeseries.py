"""``timeseries_dataset_from_array``: sliding windows over a time series, batched.

Keras returns a ``tf.data.Dataset``; here the windows come as NumPy batches from a
re-iterable ``TimeseriesDataset`` that ``fit`` / ``evaluate`` / ``predict`` take directly
(no TensorFlow needed).

>>> import numpy as np
>>> data = np.arange(10)
>>> ds = timeseries_dataset_from_array(data, data[3:] * 10, sequence_length=3, batch_size=4)
>>> len(ds)
2
>>> x, y = next(iter(ds))
>>> x.tolist(), y.tolist()
([[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]], [30, 40, 50, 60])
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["TimeseriesDataset", "timeseries_dataset_from_array"]


def _check(value, name, data_length, low=1):
    if value < low:
        raise ValueError(f"`{name}` must be higher than {low - 1}. Received: {name}={value}")
    if value >= data_length:
        raise ValueError(f"`{name}` must be lower than the length of the data. Received: "
                         f"{name}={value}, for data of length {data_length}")


class TimeseriesDataset:
    """Batches of windows ``data[p : p + sequence_length * sampling_rate : sampling_rate]``
    (and ``targets[p]``), in a fixed order; iterate it again for another epoch."""

    def __init__(self, data, targets, positions, sequence_length, sampling_rate, batch_size):
        self.data, self.targets = data, targets
        self.positions = positions
        self.offsets = np.arange(0, sequence_length * sampling_rate, sampling_rate)
        self.batch_size = batch_size

    def __len__(self) -> int:
        if self.batch_size is None:
            return len(self.positions)
        return math.ceil(len(self.positions) / self.batch_size)

    def _item(self, positions):
        windows = self.data[positions[..., None] + self.offsets]
        return windows if self.targets is None else (windows, self.targets[positions])

    def __iter__(self):
        if self.batch_size is None:
            for p in self.positions:
                yield self._item(np.asarray(p))
            return
        for start in range(0, len(self.positions), self.batch_size):
            yield self._item(self.positions[start:start + self.batch_size])

    def take(self, count):
        """The first ``count`` batches (as ``tf.data.Dataset.take``)."""
        for i, batch in enumerate(self):
            if i >= count:
                return
            yield batch


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1,
                                  sampling_rate=1, batch_size=128, shuffle=False, seed=None,
                                  start_index=None, end_index=None):
    """Windows of ``sequence_length`` time steps (every ``sampling_rate``-th step), starting
    every ``sequence_stride`` steps within ``data[start_index:end_index]``; window ``i``'s
    target is ``targets[start]`` for its start position (Keras's arguments and checks).

    ``shuffle`` permutes the windows with ``np.random.RandomState(seed)`` as Keras does;
    Keras additionally shuffles within a buffer with TensorFlow's generator, which kgraph
    does not reproduce, so shuffled orders differ from Keras's.
    """
    data = np.asarray(data)
    targets = None if targets is None else np.asarray(targets)
    length = len(data)
    if start_index:
        if start_index < 0:
            raise ValueError(f"`start_index` must be 0 or greater. Received: "
                             f"start_index={start_index}")
        if start_index >= length:
            raise ValueError(f"`start_index` must be lower than the length of the data. "
                             f"Received: start_index={start_index}, for data of length "
                             f"{length}")
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(f"`end_index` must be higher than `start_index`. Received: "
                             f"start_index={start_index}, and end_index={end_index} ")
        if end_index >= length:
            raise ValueError(f"`end_index` must be lower than the length of the data. "
                             f"Received: end_index={end_index}, for data of length {length}")
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: "
                             f"end_index={end_index}")
    _check(sampling_rate, "sampling_rate", length)
    _check(sequence_stride, "sequence_stride", length)
    start_index = start_index or 0
    end_index = length if end_index is None else end_index
    count = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        count = min(count, len(targets))
    positions = np.arange(0, max(count, 0), sequence_stride)
    if shuffle:
        seed = np.random.randint(1e6) if seed is None else seed
        np.random.RandomState(seed).shuffle(positions)
    return TimeseriesDataset(data[start_index:end_index],
                             None if targets is None else targets[start_index:],
                             positions, sequence_length, sampling_rate, batch_size)
