"""Dataset helpers shared by the ``*_dataset_from_directory`` loaders, and
``split_dataset``, as Keras's ``keras.utils``.

Datasets are Grain datasets (``pip install grain``), Keras's own TensorFlow-free format:
``model.fit`` / ``evaluate`` / ``predict`` iterate them directly.

>>> import numpy as np
>>> left, right = split_dataset(np.arange(10), left_size=0.8)
>>> len(left), len(right), int(right[0])
(8, 2, 8)
"""

from __future__ import annotations

import importlib
import os
import random
import time
import warnings

import numpy as np

__all__ = ["check_validation_split_arg", "get_training_or_validation_split", "grain_module",
           "index_directory", "is_grain_dataset", "labels_dataset", "make_batch",
           "split_dataset"]


def grain_module():
    """The ``grain`` package, imported on first use (the loaders' datasets are Grain's)."""
    try:
        return importlib.import_module("grain")
    except ImportError:
        raise ImportError("The dataset loaders return Grain datasets and need Grain: "
                          "pip install grain.") from None


def is_grain_dataset(dataset) -> bool:
    """Whether ``dataset`` is a ``grain.MapDataset`` or ``grain.IterDataset``."""
    return any(cls.__name__ in ("MapDataset", "IterDataset")
               and str(cls.__module__).startswith("grain._src.python")
               for cls in type(dataset).__mro__)


def check_validation_split_arg(validation_split, subset, shuffle, seed):
    """Keras's checks of ``validation_split`` / ``subset`` / ``shuffle`` / ``seed``."""
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: "
                         f"{validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f'`subset` must be either "training", "validation" or "both", '
                         f"received: {subset}")
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide "
                         "a `seed` argument, to make sure that there is no overlap between "
                         "the training and validation subset.")


def _valid_files(directory, follow_links, formats):
    walk = os.walk(directory, followlinks=follow_links)
    for root, _, files in sorted(walk, key=lambda entry: entry[0]):
        for name in sorted(files):
            if name.lower().endswith(formats):
                yield root, name


def index_directory(directory, labels, formats, class_names=None, shuffle=True, seed=None,
                    follow_links=False, verbose=True):
    """``(file_paths, labels, class_names)`` of the files under ``directory`` whose names
    end with one of ``formats``, in Keras's order: class subdirectories sorted, files
    sorted by directory then name, then one seeded shuffle of the whole list."""
    if labels == "inferred":
        subdirs = [name.rstrip("/") for name in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, name)) and not name.startswith(".")]
        if class_names is not None:
            if not set(class_names).issubset(set(subdirs)):
                raise ValueError(
                    "The `class_names` passed did not match the names of the subdirectories "
                    f"of the target directory. Expected: {subdirs} (or a subset of it), but "
                    f"received: class_names={class_names}")
            subdirs = list(class_names)
    else:
        subdirs = [""]
        if class_names is not None:
            if labels is None:
                raise ValueError("When `labels=None` (no labels), argument `class_names` "
                                 "cannot be specified.")
            raise ValueError("When argument `labels` is specified, argument `class_names` "
                             "cannot be specified (the `class_names` will be the sorted list "
                             "of labels).")
    class_names = subdirs
    filenames, found_labels = [], []
    for index, subdir in enumerate(subdirs):
        path = os.path.join(directory, subdir)
        dirname = os.path.basename(path)
        for root, name in _valid_files(path, follow_links, formats):
            relative = os.path.relpath(os.path.join(root, name), path)
            filenames.append(os.path.join(dirname, relative))
            found_labels.append(index)
    if labels == "inferred":
        labels = np.asarray(found_labels, dtype="int32")
    elif labels is None:
        class_names = None
    else:
        if len(labels) != len(filenames):
            raise ValueError(
                "Expected the lengths of `labels` to match the number of files in the target "
                f"directory. len(labels) is {len(labels)} while we found {len(filenames)} "
                f"files in directory {directory}.")
        labels = list(labels)
        class_names = [str(label) for label in sorted(set(labels))]
    if verbose:
        if labels is None:
            print(f"Found {len(filenames)} files.")
        else:
            print(f"Found {len(filenames)} files belonging to {len(class_names)} classes.")
    file_paths = [os.path.join(directory, name) for name in filenames]
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(file_paths)
        if labels is not None:
            np.random.RandomState(seed).shuffle(labels)
    return file_paths, labels, class_names


def get_training_or_validation_split(samples, labels, validation_split, subset):
    """The last ``int(validation_split * len(samples))`` samples are the validation subset,
    the others the training subset."""
    if not validation_split:
        return samples, labels
    count = int(validation_split * len(samples))
    if subset == "training":
        print(f"Using {len(samples) - count} files for training.")
        keep = slice(None, -count)
    elif subset == "validation":
        print(f"Using {count} files for validation.")
        keep = slice(-count, None)
    else:
        raise ValueError(f'`subset` must be either "training" or "validation", received: '
                         f"{subset}")
    return samples[keep], (labels[keep] if labels is not None else None)


def _encode_label(label, label_mode, num_classes):
    if label_mode == "binary":
        return np.asarray([label], dtype="float32")
    if label_mode == "categorical":
        return np.eye(num_classes, dtype="float32")[int(label)]
    return np.asarray(label, dtype="int32")


def labels_dataset(labels, label_mode, num_classes):
    """A ``grain.MapDataset`` of encoded labels: ``int32`` scalars ("int"), ``float32``
    ``(1,)`` ("binary") or one-hot ``float32`` ``(num_classes,)`` ("categorical")."""
    if label_mode not in ("binary", "categorical", "int"):
        raise ValueError(f"Invalid `label_mode`: {label_mode}. Expected one of: 'binary', "
                         "'categorical', 'int'.")
    source = grain_module().MapDataset.source(list(labels))
    return source.map(lambda label: _encode_label(label, label_mode, num_classes))


def _stack(items):
    if isinstance(items[0], str):
        return tuple(items)  # strings batch as a tuple, as Keras's Grain datasets
    return np.stack([np.asarray(item) for item in items])


def make_batch(values):
    """Stack a list of samples (arrays, strings, or tuples of them) into one batch."""
    if not values:
        raise ValueError("Cannot batch 0 values.")
    if isinstance(values[0], tuple):
        return tuple(_stack([value[i] for value in values]) for i in range(len(values[0])))
    return _stack(values)


# split_dataset ---------------------------------------------------------------------------

def _check_same_length(dataset, kind):
    if len(dataset) == 0:
        raise ValueError(f"Received an empty {kind} dataset. Please provide a non-empty "
                         f"{kind} of arrays.")
    first = None
    for i, element in enumerate(dataset):
        if not isinstance(element, np.ndarray):
            raise ValueError(f"Expected a {kind} of `numpy.ndarray` objects, Received: "
                             f"{type(element)} at index {i}.")
        if first is None:
            first = element.shape
        elif element.shape[0] != first[0]:
            raise ValueError(
                f"Received a {kind} of NumPy arrays with different lengths. Mismatch found at "
                f"index {i}, Expected shape={first} Received shape={element.shape}. Please "
                f"provide a {kind} of NumPy arrays of the same length.")


def _is_string_batch(value):
    return isinstance(value, tuple) and bool(value) and all(isinstance(v, str) for v in value)


def _unbatch(batch):
    if isinstance(batch, tuple) and not _is_string_batch(batch):
        parts = [_unbatch(part) for part in batch]
        return [tuple(items) for items in zip(*parts)]
    return list(batch) if _is_string_batch(batch) else list(np.asarray(batch))


def _samples(dataset):
    if isinstance(dataset, (list, tuple)):
        _check_same_length(dataset, "list" if isinstance(dataset, list) else "tuple")
        return [tuple(np.asarray(leaf) for leaf in row) for row in zip(*dataset)]
    if isinstance(dataset, np.ndarray):
        return list(dataset)
    if getattr(dataset, "_batch_size", None) is not None:  # a batched Grain dataset
        return [sample for batch in dataset for sample in _unbatch(batch)]
    return list(dataset)


def _check_samples(samples, start):
    if not samples:
        raise ValueError("Received an empty dataset. Argument `dataset` must be a non-empty "
                         "list/tuple of `numpy.ndarray` objects or `tf.data.Dataset` objects.")
    if not isinstance(samples[0], np.ndarray):
        return
    shape = samples[0].shape
    for i, sample in enumerate(samples[1:]):
        if np.shape(sample) != shape:
            raise ValueError(f"All `dataset` samples must have same shape, Expected shape: "
                             f"{shape} Received shape: {np.shape(sample)} at index {i}.")
    if time.time() - start > 10:
        warnings.warn("The dataset is taking longer than 10 seconds to iterate over. This may "
                      "be due to the size of the dataset. Keep in mind that the "
                      "`split_dataset` utility is only for small in-memory dataset (e.g. < "
                      "10,000 samples).", ResourceWarning, stacklevel=3)


def _rescale_sizes(left_size, right_size, total):
    left_type, right_type = type(left_size), type(right_size)
    left_bad = left_size is not None and left_type not in (int, float)
    right_bad = right_size is not None and right_type not in (int, float)
    if left_bad and right_bad:
        raise TypeError("Invalid `left_size` and `right_size` Types. Expected: integer or "
                        f"float or None, Received: type(left_size)={left_type} and "
                        f"type(right_size)={right_type}")
    if left_bad:
        raise TypeError(f"Invalid `left_size` Type. Expected: int or float or None, Received: "
                        f"type(left_size)={left_type}.")
    if right_bad:
        raise TypeError(f"Invalid `right_size` Type. Expected: int or float or None, "
                        f"Received: type(right_size)={right_type}.")
    if left_size == 0 and right_size == 0:
        raise ValueError("Both `left_size` and `right_size` are zero. At least one of the "
                         "split sizes must be non-zero.")
    for size, kind, side, join in ((left_size, left_type, "left", ","),
                                   (right_size, right_type, "right", " and")):
        if (kind is int and not 0 < size < total) or (kind is float and not 0 < size < 1):
            raise ValueError(f"`{side}_size` should be either a positive integer{join} smaller "
                             f"than {total}, or a float within the range `[0, 1]`. Received: "
                             f"{side}_size={size}")
    if left_type is right_type is float and left_size + right_size > 1:
        raise ValueError("The sum of `left_size` and `right_size` is greater than 1. It must "
                         "be less than or equal to 1.")
    if left_type is float:
        left_size = round(left_size * total)
    if right_type is float:
        right_size = round(right_size * total)
    if left_size is None:
        left_size = total - right_size
    elif right_size is None:
        right_size = total - left_size
    if left_size + right_size > total:
        raise ValueError(f"The sum of `left_size` and `right_size` should be smaller than the "
                         f"{total}. Received: left_size + right_size = "
                         f"{left_size + right_size} and total_length = {total}")
    for size, side in ((left_size, "left"), (right_size, "right")):
        if size == 0:
            raise ValueError(f"With `dataset` of length={total}, `left_size`={left_size} and "
                             f"`right_size`={right_size}. Resulting {side} side dataset split "
                             "will be empty. Adjust any of the aforementioned parameters")
    return int(left_size), int(right_size)


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None,
                  preferred_backend=None):
    """Split a dataset into a left and a right ``grain.MapDataset`` (e.g. train / test).

    ``dataset`` is a NumPy array, a list or tuple of same-length arrays (samples are tuples
    of their rows), or a Grain dataset (a batched one, such as
    ``image_dataset_from_directory``'s, is split by sample and both halves are batched by
    its batch size). ``left_size`` / ``right_size`` are sample counts (``int``), fractions
    in ``(0, 1)`` (``float``) or ``None`` (the complement of the other). ``shuffle``
    shuffles the samples with ``seed`` first. Where Keras returns ``tf.data.Dataset``\\s
    (which need TensorFlow), kgraph returns Grain datasets of the same samples;
    ``preferred_backend`` is accepted and ignored.

    >>> import numpy as np
    >>> x, y = np.arange(12).reshape(6, 2), np.arange(6)
    >>> left, right = split_dataset((x, y), right_size=2)
    >>> len(left), [int(label) for _, label in right]
    (4, [4, 5])
    """
    del preferred_backend
    if not isinstance(dataset, (list, tuple, np.ndarray)) and not is_grain_dataset(dataset):
        raise TypeError(f"Unsupported dataset type: {type(dataset)}")
    if left_size is None and right_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. "
                         "Received: left_size=None and right_size=None")
    start = time.time()
    samples = _samples(dataset)
    _check_samples(samples, start)
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(1e6))
        random.Random(seed).shuffle(samples)
    left_size, right_size = _rescale_sizes(left_size, right_size, len(samples))
    grain = grain_module()
    left = grain.MapDataset.source(samples[:left_size])
    right = grain.MapDataset.source(samples[-right_size:])
    batch_size = getattr(dataset, "_batch_size", None) if is_grain_dataset(dataset) else None
    if batch_size is not None:
        left = left.batch(batch_size, batch_fn=make_batch)
        right = right.batch(batch_size, batch_fn=make_batch)
    return left, right
