"""Batching in-memory arrays for fit/evaluate/predict.

Arrays may be a single array, a list, or a dict (multi-input models). Batches are sliced
on the host and put on the device one step ahead, so the next transfer overlaps the
current step. With ``pad=True`` the last partial batch is padded to the full batch size
with weight-0 rows, so one compiled step serves every batch and the padded rows count
for nothing in losses and metrics.
"""

from __future__ import annotations

import collections

import jax
import numpy as np


def as_numpy(tree):
    return jax.tree_util.tree_map(np.asarray, tree)


def num_samples(x, y=None, sample_weight=None) -> int:
    """The common first dimension of every array, with a clear error if they differ."""
    sizes = {}
    for label, tree in (("x", x), ("y", y), ("sample_weight", sample_weight)):
        for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
            if np.ndim(leaf) == 0:
                raise ValueError(f"{label}{jax.tree_util.keystr(path)} is a scalar; expected "
                                 "an array with a first (sample) dimension.")
            sizes[f"{label}{jax.tree_util.keystr(path)}"] = np.shape(leaf)[0]
    if not sizes:
        raise ValueError("No data: x is empty.")
    if len(set(sizes.values())) > 1:
        detail = ", ".join(f"{k}: {v}" for k, v in sizes.items())
        raise ValueError(f"Data cardinality is ambiguous: all arrays must have the same "
                         f"number of samples. Received sizes {detail}.")
    return next(iter(sizes.values()))


def _take(tree, index):
    return jax.tree_util.tree_map(lambda a: a[index], tree)


def _pad(tree, rows):
    return jax.tree_util.tree_map(
        lambda a: np.concatenate([a, np.zeros((rows, *a.shape[1:]), a.dtype)]), tree)


def batches(arrays, batch_size: int, order=None, pad=False):
    """Yield ``(batch, n_real)``; ``batch`` is ``arrays`` sliced (and maybe padded).

    When padding, a last element ``weights`` (1 for real rows, 0 for padding) is appended
    to the batch tuple; ``arrays`` must then be a tuple.
    """
    n = num_samples(arrays)
    order = np.arange(n) if order is None else order
    for start in range(0, n, batch_size):
        index = order[start:start + batch_size]
        batch = _take(arrays, index)
        real = len(index)
        if pad:
            weights = np.ones((real,), np.float32)
            if real < batch_size:
                batch, weights = _pad((batch, weights), batch_size - real)
            batch = (*batch, weights)
        yield batch, real


def prefetch_to_device(iterator, size: int = 2):
    """Put items on the device ``size`` steps ahead of their use."""
    queue = collections.deque()
    for item in iterator:
        batch, real = item
        queue.append((jax.device_put(batch), real))
        if len(queue) >= size:
            yield queue.popleft()
    while queue:
        yield queue.popleft()
