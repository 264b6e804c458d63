"""Keras's data adapters (``keras.src.trainers.data_adapters``): the batches of one kind of
data, as NumPy, for ``EpochIterator``. In-memory arrays are batched by ``runtime.data``'s
``ArrayData`` (its checks, class weights and shuffled order: fit's own), unpadded.

>>> import numpy as np
>>> adapter = get_data_adapter(np.zeros((5, 2)), np.ones(5), batch_size=2)
>>> adapter.num_batches, [len(x) for x, y in adapter.get_numpy_iterator()]
(3, [2, 2, 1])
"""

from __future__ import annotations

import itertools
import types

import jax
import numpy as np

from kgraph.distribution import distribution_lib
from kgraph.utils.py_dataset import PyDataset
from runtime import data as data_lib

__all__ = ["ArrayDataAdapter", "DataAdapter", "GeneratorDataAdapter", "PyDatasetAdapter",
           "TFDatasetAdapter", "get_data_adapter", "is_tf_dataset"]


def _packed(x, y=None, sample_weight=None):
    """Keras's batch: ``x`` alone, ``(x, y)`` or ``(x, y, sample_weight)``."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def _as_numpy(batch):
    return jax.tree_util.tree_map(lambda a: a if a is None else np.asarray(a), batch)


class DataAdapter:
    """One kind of data, read one epoch at a time: ``num_batches`` (None: unknown or
    endless) and ``get_numpy_iterator()``; ``on_epoch_begin`` / ``on_epoch_end`` frame
    each epoch."""

    num_batches = None

    def get_numpy_iterator(self):
        raise NotImplementedError(f"{type(self).__name__} must implement get_numpy_iterator.")

    def on_epoch_begin(self):
        pass

    def on_epoch_end(self):
        pass


class ArrayDataAdapter(DataAdapter):
    """Arrays (or lists / dicts of them) in batches of ``batch_size`` rows, in a new
    shuffled order each epoch with ``shuffle`` (True, or "batch": within batches)."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps=None,
                 shuffle=False, class_weight=None):
        self._data = data_lib.ArrayData(x, y, sample_weight, batch_size=batch_size or 32,
                                        class_weight=class_weight)
        self._data.shuffle = shuffle
        self._shuffle = shuffle
        self.batch_size = self._data.batch_size
        self.num_batches = self._data.steps

    def get_numpy_iterator(self):
        data = self._data
        order = data.epoch_order(np.random.default_rng() if self._shuffle else None)
        index, valid = data.epoch_table(order)
        for rows, real in zip(index, valid):
            rows = rows[real > 0]
            yield _packed(*jax.tree_util.tree_map(lambda a: a[rows], data.arrays))


class GeneratorDataAdapter(DataAdapter):
    """A Python generator (or iterator) of batches; its length is unknown."""

    def __init__(self, generator):
        self.generator = generator

    def get_numpy_iterator(self):
        return (_as_numpy(batch) for batch in self.generator)


class PyDatasetAdapter(DataAdapter):
    """A ``PyDataset``: batch ``i`` is ``dataset[i]``, for ``num_batches`` batches (None:
    endless); its ``on_epoch_begin`` / ``on_epoch_end`` frame each epoch."""

    def __init__(self, x, class_weight=None, shuffle=False):
        self.py_dataset = x
        self.class_weight = class_weight
        self._shuffle = shuffle
        self.num_batches = x.num_batches

    def get_numpy_iterator(self):
        count = self.py_dataset.num_batches
        if count is None:
            indices = itertools.count()
        elif self._shuffle:
            indices = np.random.default_rng().permutation(count)
        else:
            indices = range(count)
        for index in indices:
            yield _as_numpy(self.py_dataset[int(index)])

    def on_epoch_begin(self):
        begin = getattr(self.py_dataset, "on_epoch_begin", None)
        if begin is not None:
            begin()

    def on_epoch_end(self):
        self.py_dataset.on_epoch_end()


class TFDatasetAdapter(DataAdapter):
    """A ``tf.data.Dataset`` of batches, read as NumPy."""

    def __init__(self, dataset, class_weight=None, distribution=None):
        self._dataset = dataset
        self.class_weight = class_weight
        cardinality = int(dataset.cardinality())
        self.num_batches = cardinality if cardinality >= 0 else None

    def get_numpy_iterator(self):
        return iter(self._dataset.as_numpy_iterator())


def is_tf_dataset(x) -> bool:
    """Whether ``x`` is a ``tf.data.Dataset`` (TensorFlow not imported for it)."""
    return any(cls.__module__.startswith("tensorflow.python.data")
               and cls.__name__ in ("DatasetV2", "DistributedDataset")
               for cls in type(x).__mro__)


def _refuse(argument, what, kind):
    raise ValueError(f"When providing `x` as a {kind}, `{argument}` should not be passed. "
                     f"Instead, {what} should be included as part of the {kind}.")


def _refuse_targets(y, sample_weight, kind):
    if y is not None:
        _refuse("y", "the targets", kind)
    if sample_weight is not None:
        _refuse("sample_weights", "the sample weights", kind)


def _is_arrays(x) -> bool:
    leaves = jax.tree_util.tree_leaves(x)
    return bool(leaves) and all(isinstance(leaf, (np.ndarray, jax.Array, int, float))
                                or type(leaf).__module__.startswith(("tensorflow", "pandas"))
                                and hasattr(leaf, "shape") for leaf in leaves)


def get_data_adapter(x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None,
                     shuffle=False, class_weight=None) -> DataAdapter:
    """The adapter of ``x`` (arrays, a ``PyDataset``, a ``tf.data.Dataset`` or a
    generator), as Keras picks it; a ValueError names what else was received."""
    if isinstance(x, DataAdapter):
        return x
    distribution = distribution_lib.distribution()
    if (distribution is not None and getattr(distribution, "_is_multi_process", False)
            and getattr(distribution, "auto_shard_dataset", False) and not is_tf_dataset(x)):
        raise ValueError("When using a multi-worker distribution with auto-sharding enabled, "
                         "the data must be provided as a `tf.data.Dataset` instance. "
                         f"Received: type(x)={type(x)}. If the dataset is already sharded "
                         "across workers, then set `distribution.auto_shard_dataset = False`.")
    if not isinstance(x, str) and _is_arrays(x):
        return ArrayDataAdapter(x, y, sample_weight=sample_weight, batch_size=batch_size,
                                steps=steps_per_epoch, shuffle=shuffle,
                                class_weight=class_weight)
    if is_tf_dataset(x):
        _refuse_targets(y, sample_weight, "tf.data.Dataset")
        return TFDatasetAdapter(x, class_weight=class_weight, distribution=distribution)
    if isinstance(x, PyDataset):
        _refuse_targets(y, sample_weight, "PyDataset")
        return PyDatasetAdapter(x, class_weight=class_weight, shuffle=shuffle)
    if isinstance(x, types.GeneratorType) or (hasattr(x, "__next__")
                                              and hasattr(x, "__iter__")):
        _refuse_targets(y, sample_weight, "generator")
        return GeneratorDataAdapter(x)
    raise ValueError(f"Unrecognized data type: x={x} (of type {type(x)})")
