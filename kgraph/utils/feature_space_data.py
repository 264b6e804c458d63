"""What ``FeatureSpace.adapt`` and ``FeatureSpace.__call__`` accept, as NumPy batches.

``adapt_batches`` turns a dataset into each feature's list of ``(batch, 1)`` batches the
way Keras's ``FeatureSpace.adapt`` batches its ``tf.data`` datasets: records whose values are
scalars are grouped 32 at a time, a record whose value is a vector is one batch (one
value per row), larger values are batches as they are. ``call_inputs`` turns one call's
dict into ``(batch, 1)`` arrays.

>>> batches = adapt_batches({"x": [1.0, 2.0, 3.0]}, ["x"], "FeatureSpace")
>>> [b.shape for b in batches["x"]]
[(3, 1)]
>>> [b.shape for b in adapt_batches([{"x": [1, 2]}, {"x": [3]}], ["x"], "FS")["x"]]
[(2, 1), (1, 1)]
"""

from __future__ import annotations

import numpy as np

__all__ = ["ADAPT_ACCEPTS", "adapt_batches", "call_inputs"]

ADAPT_ACCEPTS = ("a dict of arrays or lists (the whole data, one entry per feature), or an "
                 "iterable of dicts (records or batches: a list, a generator, a Grain "
                 "MapDataset/IterDataset)")
_BATCH = 32  # Keras batches unbatched records 32 at a time


def _as_array(value, owner, name):
    array = np.asarray(value)
    if array.dtype == object:
        if all(isinstance(v, (str, bytes)) for v in array.reshape(-1).tolist()):
            return array.astype(str) if all(isinstance(v, str) for v in array.flat) else array
        raise ValueError(f"{owner}: feature {name!r} holds values of mixed or unsupported "
                         f"types (received {value!r:.120}); expected numbers or strings.")
    return array


def _batches_of(values):
    """Keras's batching of one feature's records (arrays of equal rank)."""
    rank = values[0].ndim
    if rank == 0:
        return [np.stack(values[i:i + _BATCH])[:, None] for i in range(0, len(values), _BATCH)]
    if rank == 1:
        return [v[:, None] for v in values]
    return list(values)


def _columns_of_dict(data, names, owner):
    out = {}
    for name in names:
        if name not in data:
            raise ValueError(f"{owner}.adapt: the data has no feature {name!r}; received "
                             f"keys {sorted(map(str, data))}.")
        array = _as_array(data[name], owner, name)
        if array.ndim == 0:
            raise ValueError(f"{owner}.adapt: feature {name!r} is a single value; a dict "
                             "passed to adapt() holds the whole data (an array or list per "
                             "feature).")
        out[name] = ([array[i:i + _BATCH][:, None] for i in range(0, len(array), _BATCH)]
                     if array.ndim == 1 else _batches_of(list(array)))
    return out


def adapt_batches(dataset, names, owner) -> dict:
    """``{name: [batch, ...]}`` of the features ``names`` in ``dataset`` (see the module
    docstring); ``owner`` names the object in errors."""
    if isinstance(dataset, dict):
        return _columns_of_dict(dataset, names, owner)
    if isinstance(dataset, (str, bytes, np.ndarray)) or not hasattr(dataset, "__iter__"):
        raise ValueError(f"{owner}.adapt() accepts {ADAPT_ACCEPTS}. Received: {dataset!r:.200} "
                         f"(of type {type(dataset).__name__}).")
    columns = {name: [] for name in names}
    count = 0
    for count, element in enumerate(dataset, 1):
        if not isinstance(element, dict):
            hint = " (drop the labels first, e.g. (x for x, _ in data))" if isinstance(
                element, tuple) else ""
            raise ValueError(f"{owner}.adapt(): every element of the dataset must be a dict "
                             f"of features{hint}. Element {count - 1} is a "
                             f"{type(element).__name__}: {element!r:.200}")
        for name in names:
            if name not in element:
                raise ValueError(f"{owner}.adapt(): element {count - 1} has no feature "
                                 f"{name!r}; its keys are {sorted(map(str, element))}.")
            columns[name].append(_as_array(element[name], owner, name))
    if not count:
        raise ValueError(f"{owner}.adapt() received an empty dataset.")
    return {name: _batches_of(values) for name, values in columns.items()}


def call_inputs(data, features, owner):
    """``(arrays, rebatched)``: each feature of ``data`` as a ``(batch, 1)`` array (rank 0
    values become one row, ``rebatched``; rank 1 values a column), floats as float32."""
    if not isinstance(data, dict):
        raise ValueError(f"A FeatureSpace can only be called with a dict. Received: "
                         f"data={data!r:.200} (of type {type(data).__name__})")
    missing = [name for name in features if name not in data]
    unknown = [name for name in data if name not in features]
    if missing or unknown:
        raise ValueError(f"{owner}: the data's keys must be the features "
                         f"{sorted(features)}; missing {sorted(missing)}, unknown "
                         f"{sorted(map(str, unknown))}.")
    arrays, rebatched = {}, False
    for name, value in data.items():
        array = _as_array(value, owner, name)
        if array.dtype.kind in "biuf" and features[name].dtype == "float32":
            array = array.astype(np.float32)
        if array.ndim == 0:
            array, rebatched = array.reshape(1, 1), True
        elif array.ndim == 1:
            array = array[:, None]
        arrays[name] = array
    return arrays, rebatched
