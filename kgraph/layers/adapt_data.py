"""The data ``adapt`` reads, batch by batch, as Keras's preprocessing layers take it: an
array, a list or a tensor is one batch; a ``tf.data.Dataset``, a generator, a Grain dataset
or any other iterable gives one batch per item, at most ``steps`` of them.

>>> [b.tolist() for b in adapt_batches([[1, 2], [3, 4]])]
[[[1, 2], [3, 4]]]
>>> [b.tolist() for b in adapt_batches([np.array([1, 2]), np.array([3])])]
[[1, 2], [3]]
>>> def endless():
...     while True:
...         yield [1, 2]
>>> len(list(adapt_batches(endless(), steps=3)))
3
>>> [b.shape for b in document_batches(["a b", "c"])]
[(2, 1)]
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["adapt_batches", "document_batches", "is_single_batch"]


def is_single_batch(data) -> bool:
    """Whether ``data`` is one batch (an array, a tensor, a list of values or of rows)
    rather than an iterable of batches (a list of arrays counts as batches)."""
    if isinstance(data, (list, tuple)):
        return not (data and all(hasattr(item, "shape") for item in data))
    if isinstance(data, (np.ndarray, str, bytes)) or np.isscalar(data):
        return True
    return hasattr(data, "shape") and hasattr(data, "dtype") or not hasattr(data, "__iter__")


def adapt_batches(data, steps=None):
    """``data``'s batches as NumPy arrays (TensorFlow's strings arrive as ``bytes``), at
    most ``steps`` of them when ``data`` is an iterable of batches."""
    if is_single_batch(data):
        yield np.asarray(data)
        return
    if steps is not None and hasattr(data, "take") and hasattr(data, "element_spec"):
        data = data.take(steps)  # a tf.data.Dataset
    for batch in itertools.islice(data, steps):
        yield np.asarray(batch)


def document_batches(data, steps=None):
    """``adapt_batches`` of a layer that reads documents (lookups, text vectorization): a
    single batch of one document per entry comes as a column, ``(n, 1)``, as Keras's."""
    if is_single_batch(data):
        batch = np.asarray(data)
        yield batch[:, None] if batch.ndim == 1 else batch
        return
    yield from adapt_batches(data, steps)
