"""Data for fit/evaluate/predict: in-memory arrays and Python iterables of batches.

Arrays (a single array, a list or a dict, as the model's inputs) are put on the device
once; each epoch only sends a table of row indices. The compiled step gathers its batch
on the device, or, for small batches, one gather puts the epoch's rows in order and each
step slices its batch from them. The last partial batch is padded to the full batch size
with a weight-0 row mask (``valid``), so one compiled step serves every batch and padded
rows count for nothing. Iterables yield host batches, which are padded the same way (to the
largest batch so far: a larger batch than the first is one more compiled step) and put on
the device one step ahead of their use. Where a loss cannot
leave padding rows out (one value for the whole batch), the last batch runs unpadded, as
Keras runs it (``pad_check``; one more compiled step).

>>> import numpy as np
>>> data = ArrayData(np.zeros((5, 2)), np.zeros(5), batch_size=2)
>>> index, valid = data.epoch_table()
>>> index.shape, valid[-1].tolist()
((3, 2), [1.0, 0.0])
"""

from __future__ import annotations

import collections
import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.utils.class_weights import class_weights_to_sample_weights
from kgraph.utils.py_dataset import PyDataset
from runtime import data_checks

__all__ = [
    "ArrayData", "DEVICE_RESIDENT_BYTES", "EPOCH_GATHER_MAX_BATCH_BYTES", "IterableData",
    "as_numpy", "bucket", "class_weights_to_sample_weights", "num_samples",
    "prefetch_to_device", "split_validation", "stack", "take_rows"
]


DEVICE_RESIDENT_BYTES = 1 << 30  # arrays larger than this are batched on the host
# Batches up to this size are gathered once per epoch (one copy of the data, in the
# epoch's order, sliced contiguously by the steps): a small gather in every step costs
# more in fixed overhead than its share of one big copy. Larger batches gather per step.
EPOCH_GATHER_MAX_BATCH_BYTES = 1 << 16


def take_rows(tree, rows):
    """Rows ``rows`` of every array in ``tree`` (traceable; indices are clipped)."""
    return jax.tree_util.tree_map(lambda a: jnp.take(a, rows, axis=0, mode="clip"), tree)


_gather_rows = jax.jit(take_rows)


def bucket(n: int) -> int:
    """``n`` rounded up to one of 8 sizes per power of two (at most 12.5% more).

    Device-resident data and index tables are padded to bucketed sizes, so datasets of
    similar size share compiled steps instead of compiling one program per size.

    >>> [bucket(n) for n in (5, 16, 17, 100, 1000)]
    [16, 16, 18, 104, 1024]
    """
    if n <= 16:
        return 16
    unit = 1 << (n.bit_length() - 4)
    return -(-n // unit) * unit


def as_numpy(tree):
    return jax.tree_util.tree_map(np.asarray, tree)


def num_samples(x, y=None, sample_weight=None, source=None) -> int:
    """The common first dimension of every array, with a clear error if they differ or are
    not numbers (``source`` names the data in errors, e.g. ``"validation_data"``)."""
    sizes = {}
    prefix = f"{source} " if source else ""
    for label, tree in ((f"{prefix}x", x), (f"{prefix}y", y),
                        (f"{prefix}sample_weight", sample_weight)):
        for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
            name = f"{label}{jax.tree_util.keystr(path)}"
            if np.ndim(leaf) == 0:
                raise ValueError(f"{name} is a scalar; expected an array with a first "
                                 "(sample) dimension.")
            kind = np.asarray(leaf).dtype
            if kind.kind not in "biufc" and not jax.dtypes.issubdtype(kind, np.floating):
                # (NumPy names bfloat16 and the float8 types "V": they are floats)
                raise TypeError(
                    f"{name} has dtype {kind}; expected numeric arrays (ints, floats or "
                    "bools), which is what a model computes on. Encode strings first (e.g. "
                    "layers.StringLookup outside the model, or map labels to class "
                    "indices).")
            sizes[name] = np.shape(leaf)[0]
    if not sizes:
        raise ValueError("No data: x is empty.")
    if len(set(sizes.values())) > 1:
        detail = ", ".join(f"{k}: {v}" for k, v in sizes.items())
        raise ValueError(f"Data cardinality is ambiguous: all arrays must have the same "
                         f"number of samples. Received sizes {detail}.")
    return next(iter(sizes.values()))


def _merge_weights(y, sample_weight, class_weight, source="sample_weight"):
    """``class_weight`` as the sample weights of ``y`` (``sample_weight`` without one). Both
    given is an error, as in Keras (``source`` says where the sample weights came from)."""
    if class_weight is None:
        return sample_weight
    if sample_weight is not None:
        raise ValueError(f"Both sample weights ({source}) and class_weight={class_weight!r} "
                         "were given; as Keras, fit takes only one of them. To weigh by "
                         "both, multiply the class weights into the sample weights.")
    leaves = jax.tree_util.tree_leaves(y)
    if len(leaves) != 1:
        raise ValueError("class_weight is only supported for models with a single output; "
                         "use sample_weight for multi-output models.")
    return class_weights_to_sample_weights(leaves[0], class_weight)


def split_validation(x, y, sample_weight, fraction: float):
    """Keras's ``validation_split``: the last ``fraction`` of the samples (before shuffling)."""
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"validation_split must be in (0, 1), received {fraction}.")
    n = num_samples(x, y, sample_weight)
    cut = int(math.floor(n * (1.0 - fraction)))
    if cut == 0 or cut == n:
        raise ValueError(f"validation_split={fraction} of {n} samples leaves an empty "
                         "training or validation set.")

    def part(tree, s):
        return jax.tree_util.tree_map(lambda a: np.asarray(a)[s], tree)

    first, last = slice(0, cut), slice(cut, n)
    return ((part(x, first), part(y, first), part(sample_weight, first)),
            (part(x, last), part(y, last), part(sample_weight, last)))


class ArrayData:
    """In-memory arrays batched by row-index tables (see the module docstring).

    Args:
      x, y, sample_weight: arrays (or lists/dicts of arrays) with a common first axis.
      batch_size: rows per step; the last batch is padded to it.
      class_weight: optional ``{class: weight}``, folded into the sample weights.
      source: what the data is called in errors (``"validation_data"``; default ``x``...).
    """

    def __init__(self, x, y=None, sample_weight=None, *, batch_size=32, class_weight=None,
                 source=None):
        if batch_size is None or int(batch_size) < 1:
            raise ValueError(f"batch_size must be a positive integer, received {batch_size}.")
        x, y = as_numpy(x), as_numpy(y)
        sample_weight = None if sample_weight is None else as_numpy(sample_weight)
        self.size = num_samples(x, y, sample_weight, source)
        if self.size == 0:
            raise ValueError(f"{source or 'The data'} has 0 samples (x has a first dimension "
                             "of 0): expected at least one row to train on, evaluate or "
                             "predict.")
        data_checks.check_sample_weight(sample_weight, y)
        sample_weight = _merge_weights(y, sample_weight, class_weight)
        if sample_weight is not None:
            sample_weight = jax.tree_util.tree_map(lambda a: np.asarray(a, np.float32),
                                                   sample_weight)
        self.arrays = (x, y, sample_weight)
        self.batch_size = int(batch_size)
        self.steps = math.ceil(self.size / self.batch_size)
        nbytes = sum(a.nbytes for a in jax.tree_util.tree_leaves(self.arrays))
        self.device_resident = nbytes <= DEVICE_RESIDENT_BYTES
        self.batch_bytes = self.batch_size * nbytes // max(self.size, 1)
        self._on_device = None
        self._in_order = None  # the unshuffled epoch's rows, gathered once
        self.sharding = None  # where resident arrays go (on a mesh: every device, replicated)
        self.shuffle = True  # fit's ``shuffle`` (see ``epoch_order``)
        self.steps_per_epoch = None  # fit's, when fewer than ``steps`` (see ``window``)
        # ``(x, y) -> bool``: may a batch like this be padded (its losses mask the padding
        # rows out)? None: always. Else a partial last batch comes unpadded (``exact_last``).
        self.pad_check = None

    @property
    def exact_last(self) -> bool:
        """Whether the last batch is partial and must run unpadded (``pad_check``)."""
        if self.size % self.batch_size == 0 or self.pad_check is None:
            return False
        x, y, _ = jax.tree_util.tree_map(lambda a: a[:self.batch_size], self.arrays)
        return not self.pad_check(x, y)

    def last_batch(self, order=None):
        """The last batch as a host batch ``((x, y, sample_weight, valid), rows)``, padded
        unless ``exact_last``."""
        return self._host_batch(*self.epoch_table(order), self.steps - 1)

    def window(self, epoch: int):
        """``(pass, first, count)``: epoch ``epoch`` of a ``fit`` (counted from its
        ``initial_epoch``) trains on batches ``first .. first + count - 1`` of pass ``pass``
        over the data. Without ``steps_per_epoch`` every epoch is a whole pass. With fewer
        steps than a pass holds, epochs go on through the same pass, as Keras's do, and one
        that reaches the pass's end stops there; the next epoch starts a new pass (a new
        order, when shuffling)."""
        per = self.steps_per_epoch
        if not per or per >= self.steps:
            return epoch, 0, self.steps
        done, index = divmod(epoch, -(-self.steps // per))  # epochs per pass: ceil
        first = index * per
        return done, first, min(per, self.steps - first)

    def epoch_order(self, rng):
        """The epoch's order of the samples from ``rng`` (None: in order). With
        ``shuffle="batch"`` (Keras's, for data read in chunks) the batches stay where
        they are and only the samples inside each one are shuffled."""
        if rng is None:
            return None
        if self.shuffle != "batch":
            return rng.permutation(self.size)
        starts = range(0, self.size, self.batch_size)
        return np.concatenate([start + rng.permutation(min(self.batch_size, self.size - start))
                               for start in starts])

    def on_device(self):
        """The arrays on the device (put there once), rows padded to a bucketed size."""
        if self._on_device is None:
            extra = bucket(self.size) - self.size
            arrays = _pad(self.arrays, extra) if extra else self.arrays
            self._on_device = jax.device_put(arrays, self.sharding)
        return self._on_device

    def device_epoch(self, order=None):
        """What fit's device steps read for one epoch: ``(arrays, index, valid)``.

        Small batches: ``arrays`` are the epoch's rows already in table order (batch
        ``n`` is rows ``n * batch_size ...``) and ``index`` is None. Larger batches:
        ``arrays`` are the resident data and step ``n`` gathers rows ``index[n]``.
        """
        index, valid = self.epoch_table(order, padded_rows=True)
        valid = jax.device_put(valid, self.sharding)
        if self.batch_bytes > EPOCH_GATHER_MAX_BATCH_BYTES:
            return self.on_device(), jax.device_put(index, self.sharding), valid
        if order is None and self._in_order is not None:
            return self._in_order, None, valid
        arrays = _gather_rows(self.on_device(), jax.device_put(index.reshape(-1),
                                                               self.sharding))
        if order is None:
            self._in_order = arrays
        return arrays, None, valid

    def epoch_table(self, order=None, padded_rows=False):
        """``(index, valid)``: ``(steps, batch)`` row indices and 0/1 real-row mask.

        ``padded_rows=True`` appends all-padding rows up to ``bucket(steps)`` rows (for
        device-side loops, so tables of similar length share one compiled program).
        """
        order = np.arange(self.size) if order is None else np.asarray(order)
        padded = math.ceil(self.size / self.batch_size) * self.batch_size
        index = np.zeros((padded,), np.int32)
        index[:self.size] = order
        valid = np.zeros((padded,), np.float32)
        valid[:self.size] = 1.0
        shape = (-1, self.batch_size)
        index, valid = index.reshape(shape)[:self.steps], valid.reshape(shape)[:self.steps]
        if padded_rows and bucket(self.steps) > self.steps:
            index, valid = _pad((index, valid), bucket(self.steps) - self.steps)
        return index, valid

    def host_batches(self, order=None):
        """Padded host batches ``(x, y, sample_weight, valid)`` for arrays too big to
        keep on the device."""
        index, valid = self.epoch_table(order)
        for n in range(self.steps):
            yield self._host_batch(index, valid, n)

    def _host_batch(self, index, valid, n):
        rows, mask = index[n], valid[n]
        if n == self.steps - 1 and self.exact_last:
            rows, mask = rows[:self.size % self.batch_size], mask[:self.size % self.batch_size]
        x, y, w = jax.tree_util.tree_map(lambda a: a[rows], self.arrays)
        return (x, y, w, mask), int(mask.sum())


def _signature(tree):
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    return treedef, [(np.shape(a)[1:], np.asarray(a).dtype) for a in leaves]


_EMPTY = object()


def _inputs_of(item):
    """The inputs of a batch as Keras unpacks one: a tuple (or list) of one to three items
    is ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``; anything else is ``x``."""
    if isinstance(item, (tuple, list)) and 1 <= len(item) <= 3:
        return item[0]
    return item


class IterableData:
    """Batches from a Python iterable or generator.

    Each item is ``(x, y)``, ``(x, y, sample_weight)`` (``x`` alone for predict). A
    re-iterable (a list, or an object whose ``__iter__`` starts over) restarts every
    epoch, unless epochs have ``steps``: then, as a one-shot iterator, the next epoch
    continues where the last one stopped (one that runs out starts over the next).
    Batches are padded to the largest batch seen so far; every batch must have the first
    batch's structure.
    """

    def __init__(self, source, *, steps=None, targets=True, class_weight=None):
        if isinstance(source, (np.ndarray, dict)) or not hasattr(source, "__iter__"):
            raise TypeError(f"Expected arrays or an iterable of batches, received "
                            f"{type(source).__name__}.")
        self.source = source
        self.one_shot = iter(source) is source
        self._iterator = None
        self.steps = steps
        self.targets = targets
        self.class_weight = class_weight
        self.batch_size = None
        self._signature = None
        self.count = 0
        self.pad_check = None  # as ``ArrayData.pad_check``

    def _items(self, rng=None):
        # a one-shot iterator, and any data read in epochs of ``steps``, go on where the
        # last epoch stopped (as Keras's do); else each epoch is a new pass
        keeps = self.one_shot or self.steps is not None
        if keeps and self._iterator is not None:
            return self._iterator
        count = getattr(self.source, "num_batches", None)
        if rng is not None and isinstance(self.source, PyDataset) and count is not None:
            items = self._shuffled(count, rng)
        else:
            items = iter(self.source)
        if keeps:
            self._iterator = items
        return items

    def first_inputs(self):
        """The first batch's inputs, read ahead (a one-shot iterator yields that batch
        still), or None for an empty iterable."""
        if self.one_shot:
            iterator = self._iterator or iter(self.source)
            first = next(iterator, _EMPTY)
            self._iterator = itertools.chain([] if first is _EMPTY else [first], iterator)
        else:
            first = next(iter(self.source), _EMPTY)
        return None if first is _EMPTY else as_numpy(_inputs_of(first))

    def _shuffled(self, count, rng):
        """A PyDataset's batches in a shuffled order (Keras's ``shuffle`` of one)."""
        for index in rng.permutation(count):
            yield self.source[int(index)]
        self.source.on_epoch_end()

    def _standardize(self, item, number):
        if self.targets:
            if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
                raise ValueError(f"Batch {number} from the data iterable is a "
                                 f"{type(item).__name__}"
                                 f"{f' of length {len(item)}' if isinstance(item, (tuple, list)) else ''}"
                                 "; expected (x, y) or (x, y, sample_weight).")
            x, y, w = item[0], item[1], item[2] if len(item) == 3 else None
        else:  # inputs only: Keras's unpacking, ``x``, ``(x,)``, ``(x, y)``, ``(x, y, w)``
            x, y, w = _inputs_of(item), None, None
        x, y = as_numpy(x), as_numpy(y)
        w = None if w is None else np.asarray(w, np.float32)
        if self.class_weight is not None:
            w = _merge_weights(y, w, self.class_weight,
                               f"batch {number} of the data is (x, y, sample_weight)")
        batch = (x, y, w)
        rows = num_samples(x, y, w)
        signature = _signature(batch)
        if self._signature is None:
            self._signature, self.batch_size = signature, rows
        elif signature != self._signature:
            if (signature[0] != self._signature[0]
                    or [d for _, d in signature[1]] != [d for _, d in self._signature[1]]):
                raise ValueError(f"Batch {number} from the data iterable does not match the "
                                 f"first batch: expected structure {self._signature[0]} with "
                                 f"per-sample shapes/dtypes {self._signature[1]}, received "
                                 f"{signature[0]} with {signature[1]}.")
            # other per-sample shapes (sequences of another length): batches of this shape
            # run a program of their own, as Keras compiles one for each input shape
            self._signature, self.batch_size = signature, rows
        if rows > self.batch_size:  # a larger batch: batches are padded to it from now on
            self.batch_size = rows      # (one more compiled program, as Keras compiles anew)
        return batch, rows

    def epoch(self, shuffle_rng=None):
        """Yield padded host batches ``((x, y, sample_weight, valid), n_real)``; with
        ``shuffle_rng`` a ``PyDataset``'s batches come in a shuffled order, as Keras's
        ``fit(shuffle=True)`` takes them (other iterables keep their own order)."""
        items = self._items(shuffle_rng)
        taken = 0
        while self.steps is None or taken < self.steps:
            try:
                item = next(items)
            except StopIteration:
                if self.steps is not None:  # the next epoch starts it over
                    self._iterator = None
                break
            self.count += 1
            batch, rows = self._standardize(item, self.count)
            if rows < self.batch_size and (self.pad_check is None
                                           or self.pad_check(batch[0], batch[1])):
                valid = np.ones((self.batch_size,), np.float32)
                valid[rows:] = 0.0
                batch = _pad(batch, self.batch_size - rows)
            else:
                valid = np.ones((rows,), np.float32)
            taken += 1
            yield (*batch, valid), rows


def _pad(tree, rows):
    return jax.tree_util.tree_map(
        lambda a: np.concatenate([a, np.zeros((rows, *a.shape[1:]), a.dtype)]), tree)


def stack(batches):
    """Batches (same structure) stacked on a new leading axis."""
    return jax.tree_util.tree_map(lambda *parts: np.stack(parts), *batches)


def prefetch_to_device(iterator, size: int = 2, place=None):
    """Put ``(batch, n_real)`` items on the device ``size`` steps ahead of their use
    (with ``place(batch)``: where it says, e.g. split over a mesh)."""
    queue = collections.deque()
    for batch, real in iterator:
        queue.append((jax.device_put(batch) if place is None else place(batch), real))
        if len(queue) >= size:
            yield queue.popleft()
    while queue:
        yield queue.popleft()
