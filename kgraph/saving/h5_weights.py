"""Keras 3's weights file (``model.weights.h5`` inside a ``.keras`` zip, or ``*.weights.h5``).

Writing follows ``keras_layout.weight_groups``: one ``<path>/vars`` group per layer with a
``name`` attribute and datasets ``"0".."n"`` (bfloat16 as 2-byte opaque values marked
``dtype="bfloat16"``, as Keras). Reading treats the file as untrusted data: before any
data is read, every object is checked against what the model expects. Only hard-linked
groups and plain numeric datasets are accepted (no soft or external links, external
storage, virtual datasets, filters or chunked storage); each dataset's shape must equal its
weight's and its dtype be of the same kind (floating or integer; a float16 file loads into
a float32 model, cast as Keras casts it), every weight must be present and no other data
may be, so a file can neither read other files, nor make the loader allocate more than a
few times what the model needs, nor be loaded into the wrong weights silently.

>>> import io, numpy as np
>>> buffer = io.BytesIO()
>>> write(buffer, [("layers/dense", "dense", [np.ones((2, 3), "float32")])])
>>> read(buffer, [("layers/dense", [((2, 3), np.dtype("float32"))])], "example")[0][0].tolist()
[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

import h5py
import ml_dtypes
import numpy as np

from kgraph.saving.errors import LoadError

__all__ = [
    "BFLOAT16", "OPTIMIZER_VARS", "Mismatch", "OptimizerVariables", "check_dataset", "nbytes",
    "open_file",
    "loads_into", "read", "read_as", "read_dataset", "scan", "stored_dtype", "write",
    "write_dataset"
]


BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
_NUMERIC_KINDS = "biuf"
# Groups Keras writes beside the layers: the optimizer's and the metrics' variables. Their
# datasets are checked like every other (numeric, contiguous, no links) and bounded in size.
_SIDE_GROUPS = ("optimizer", "compile_metrics", "loss_tracker")
OPTIMIZER_VARS = "optimizer/vars"


def _vars_path(path: str) -> str:
    return f"{path}/vars" if path else "vars"


def _keyed(specs) -> list:
    """``[(key, shape, dtype)]`` of a group's specs: ``(shape, dtype)`` items are keyed
    ``"0".."n-1"``; ``(key, shape, dtype)`` items (a layer's own ``save_own_variables``
    keys) keep theirs."""
    return [spec if len(spec) == 3 else (str(i), *spec) for i, spec in enumerate(specs)]


def write(target, groups) -> None:
    """Write ``groups`` (``[(path, name, [array, ...])]``, or ``{key: array}`` for a layer
    saving under its own keys) to ``target`` (a path or a binary file object) as Keras 3
    lays them out."""
    with h5py.File(target, "w") as file:
        for path, name, arrays in groups:
            group = file.create_group(_vars_path(path))
            group.attrs["name"] = name
            for key, value in (arrays.items() if isinstance(arrays, dict) else
                               ((str(i), value) for i, value in enumerate(arrays))):
                write_dataset(group, key, value)


def write_dataset(group, name, value) -> None:
    """``value`` as the dataset ``name`` of ``group`` (bfloat16 marked as Keras marks it)."""
    value = np.asarray(value)
    dataset = group.create_dataset(name, data=value)
    if value.dtype == BFLOAT16:
        dataset.attrs["dtype"] = "bfloat16"


def stored_dtype(dataset, where):
    """The dtype a dataset holds (bfloat16 from its marker), or a refusal."""
    dtype = dataset.dtype
    if dtype.kind == "V" and dtype.itemsize == 2 and dtype.fields is None:
        if dataset.attrs.get("dtype") in ("bfloat16", b"bfloat16"):
            return BFLOAT16
    if dtype.kind not in _NUMERIC_KINDS or dtype.fields is not None or dtype.subdtype:
        raise LoadError(f"{where}: dataset {dataset.name!r} holds {dtype}, not plain numbers.")
    return np.dtype(f"{dtype.kind}{dtype.itemsize}")  # native byte order


# A dataset declaring more than this floor and this multiple of the bytes it stores is
# refused as a shape bomb (an unwritten dataset reads as fill values); Keras's settings.
_H5_DATASET_BOMB_FLOOR_BYTES = 1 << 32
_H5_DATASET_MAX_EXPANSION = 1000


def check_dataset(dataset, where) -> None:
    """Refuse a dataset that declares far more bytes than it stores (a shape bomb), uses
    chunked, virtual or external storage or filters, or has attributes other than
    ``dtype``; raised before any of its data is read."""
    _check_attrs(dataset, lambda key: key == "dtype", where)
    declared = nbytes(dataset.shape or (), np.dtype(dataset.dtype))
    stored = dataset.id.get_storage_size()
    if declared > _H5_DATASET_BOMB_FLOOR_BYTES and declared > _H5_DATASET_MAX_EXPANSION * stored:
        raise LoadError(f"{where}: dataset {dataset.name!r} declares {declared} bytes but "
                        f"stores {stored}; refusing to load a potential decompression/shape "
                        "bomb.")
    _check_storage(dataset, where)


def _check_storage(dataset, where):
    plist = dataset.id.get_create_plist()
    if plist.get_layout() not in (h5py.h5d.CONTIGUOUS, h5py.h5d.COMPACT):
        raise LoadError(f"{where}: dataset {dataset.name!r} uses chunked or virtual storage; "
                        "only contiguous datasets are read.")
    if plist.get_nfilters() or plist.get_external_count():
        raise LoadError(f"{where}: dataset {dataset.name!r} uses filters or external storage "
                        "(data kept outside this file); refusing to read it.")


def _check_attrs(obj, allowed, where):
    """Refuse an attribute ``allowed(key)`` rejects."""
    for key in obj.attrs.keys():
        if not allowed(key):
            raise LoadError(f"{where}: unexpected attribute {key!r} on {obj.name!r}.")


def scan(file, where, group_attr=lambda key: key == "name", budget=10_000) -> dict:
    """``{path: (dataset, dtype)}`` of every dataset in ``file``, after checking the whole
    structure from metadata: hard links only, plain numeric contiguous datasets, no
    attributes but those ``group_attr`` admits (and ``dtype`` on datasets). The number of
    objects visited is bounded (``budget``), so hard-link cycles end in a refusal."""
    datasets = {}
    stack = [("", file)]
    while stack:
        path, group = stack.pop()
        _check_attrs(group, group_attr, where)
        for name in group.keys():
            budget -= 1
            child = f"{path}/{name}" if path else name
            if budget < 0 or child.count("/") > 64:
                raise LoadError(f"{where}: too many or too deeply nested objects (at "
                                f"{child[:200]!r}).")
            link = group.get(name, getlink=True)
            if not isinstance(link, h5py.HardLink):
                raise LoadError(f"{where}: {child!r} is a {type(link).__name__}; links to "
                                "other objects or files are refused.")
            obj = group.get(name)
            if isinstance(obj, h5py.Group):
                stack.append((child, obj))
            elif isinstance(obj, h5py.Dataset):
                check_dataset(obj, where)
                datasets[child] = (obj, stored_dtype(obj, where))
            else:
                raise LoadError(f"{where}: {child!r} is neither a group nor a dataset.")
    return datasets


def nbytes(shape, dtype) -> int:
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize


def _scan_all(files, where, budget) -> dict:
    """``scan`` of each of ``files`` (a weights file's shards), merged; a dataset path found
    in two of them is refused."""
    datasets: dict = {}
    for file in files:
        for path, entry in scan(file, where, budget=budget).items():
            if path in datasets:
                raise LoadError(f"{where}: dataset {path!r} appears in two shards.")
            datasets[path] = entry
    return datasets


def _walk(files, expected_datasets, side_budget, where, skip_mismatch=False,
          ignored=frozenset()):
    """``(weights, optimizer, others)``: the expected datasets of ``files``, those of its
    ``optimizer/vars`` group and the paths of any others. Groups the model does not have
    are allowed only empty of data (Keras writes a group for weightless sub-layers, such as
    a dropout inside an attention layer), unless ``skip_mismatch``, or they are among the
    group paths ``ignored`` (the layers a load skips: their data stays unread); the
    optimizer's and metrics' datasets are bounded in size."""
    found, optimizer, others, side_bytes = {}, {}, [], 0
    # objects: each weight's dataset and, beside it, up to 4 optimizer slots (twice under
    # Keras's LossScaleOptimizer), and the groups
    for path, (dataset, dtype) in _scan_all(files, where, 12 * len(expected_datasets)
                                            + 10_000).items():
        if path in expected_datasets:
            found[path] = (dataset, dtype)
        elif path.split("/", 1)[0] in _SIDE_GROUPS:
            side_bytes += nbytes(dataset.shape, dtype)
            if path.startswith(OPTIMIZER_VARS + "/"):
                optimizer[path[len(OPTIMIZER_VARS) + 1:]] = (dataset, dtype)
        elif skip_mismatch:
            others.append(path)
        elif path.rsplit("/", 2)[0] in ignored:  # <group>/vars/<i> of a skipped layer
            side_bytes += nbytes(dataset.shape, dtype)
        else:
            raise LoadError(f"{where}: unexpected dataset {path!r}; the model has no such "
                            "weight (was the file saved from another model?).")
    if side_bytes > side_budget:
        raise LoadError(f"{where}: the optimizer and metric groups declare {side_bytes} bytes, "
                        f"more than {side_budget} for this model's weights.")
    return found, optimizer, others


class OptimizerVariables(NamedTuple):
    """What a file holds in ``optimizer/vars``: how many variables, their arrays when they
    are exactly the ones asked for (else None), and if not, how they differ."""

    count: int
    arrays: list | None
    mismatch: str = ""


def _kind(dtype) -> str:
    return "f" if np.dtype(dtype) == BFLOAT16 else np.dtype(dtype).kind


def loads_into(stored, want) -> bool:
    """Whether a dataset of dtype ``stored`` loads into a weight of dtype ``want``: the
    same kind of number (Keras casts on load: a float16 file into a float32 model)."""
    return _kind(stored) == _kind(want)


def read_as(dataset, shape, stored, want, where):
    """A checked dataset's data (of dtype ``stored``) as an array of dtype ``want``."""
    array = read_dataset(dataset, shape, stored, where)
    return array if np.dtype(stored) == np.dtype(want) else array.astype(want)


def _read_optimizer(datasets, specs, where) -> OptimizerVariables:
    """The ``optimizer/vars`` arrays if they are ``"0".."n-1"`` with ``specs``' shapes and
    number kinds (a Keras backend may keep ``iterations`` in another integer width, a
    bfloat16 model's scalars in bfloat16), cast to ``specs``' dtypes."""
    if set(datasets) != {str(i) for i in range(len(datasets))}:
        raise LoadError(f"{where}: the optimizer's variables are not numbered 0..n-1.")
    if len(datasets) != len(specs):
        return OptimizerVariables(len(datasets), None, f"the file's optimizer has "
                                  f"{len(datasets)} variables, this model's {len(specs)}")
    for i, (shape, dtype) in enumerate(specs):
        dataset, stored = datasets[str(i)]
        if tuple(dataset.shape) != tuple(shape) or _kind(stored) != _kind(dtype):
            return OptimizerVariables(len(datasets), None, (
                f"the file's optimizer variable {i} is {stored.name} of shape "
                f"{tuple(dataset.shape)}, this model's is {np.dtype(dtype).name} of shape "
                f"{tuple(shape)}"))
    arrays = [read_dataset(datasets[str(i)][0], tuple(shape), datasets[str(i)][1], where)
              .astype(dtype) for i, (shape, dtype) in enumerate(specs)]
    return OptimizerVariables(len(datasets), arrays)


def read(source, expected, where, side_budget=None, optimizer=None, skip_mismatch=False,
         ignored=frozenset()):
    """The arrays of ``expected`` (``[(path, [(shape, dtype), ...])]``, datasets ``0..n``;
    an item ``(key, shape, dtype)`` names its dataset) from ``source``
    (a file, or the list of a sharded file's shards, read as one), after checking the file
    holds exactly those weights (see the module docstring).

    ``skip_mismatch=True`` (Keras's ``load_weights(..., skip_mismatch=True)``): a group
    the file lacks or holds otherwise (other shapes, dtypes or number of weights) reads as
    a ``Mismatch`` (saying how) instead of refusing the file, and data the model has no
    place for is left unread.

    ``ignored``: the group paths of layers the load skips (Keras's ``objects_to_skip``),
    whose data, if the file has it, is left unread (counted in ``side_budget``).

    ``where`` names the file in errors; ``side_budget`` bounds the bytes the optimizer
    and metric groups may declare (default: 10x the weights' bytes plus 1 MiB: Adam with
    ``amsgrad`` and ``use_ema`` keeps four arrays per weight, and Keras's
    ``LossScaleOptimizer`` writes its inner optimizer's twice). With ``optimizer`` (the
    ``[(shape, dtype)]`` of the optimizer variables wanted) the result is
    ``(arrays, OptimizerVariables)``.
    """
    expected_datasets, weight_bytes = {}, 0
    for path, specs in expected:
        for key, shape, dtype in _keyed(specs):
            expected_datasets[f"{_vars_path(path)}/{key}"] = (tuple(shape), np.dtype(dtype))
            weight_bytes += nbytes(shape, dtype)
    if side_budget is None:
        side_budget = 10 * weight_bytes + (1 << 20)
    sources = source if isinstance(source, list) else [source]  # a sharded file's shards
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(open_file(one, where)) for one in sources]
        found, optimizer_datasets, others = _walk(files, expected_datasets, side_budget, where,
                                                  skip_mismatch, ignored)
        if skip_mismatch:
            arrays = _read_matching(expected, expected_datasets, found, others, where)
        else:
            arrays = _read_checked(expected, expected_datasets, found, where)
        if optimizer is None:
            return arrays
        return arrays, _read_optimizer(optimizer_datasets, optimizer, where)


@contextlib.contextmanager
def open_file(source, where):
    """``h5py.File(source, "r")``; h5py's own errors on a damaged file become LoadErrors."""
    try:
        file = h5py.File(source, "r")
    except OSError as err:
        raise LoadError(f"{where}: not a readable HDF5 file ({err}).") from None
    try:
        with file:
            yield file
    except LoadError:
        raise
    except (OSError, KeyError, TypeError, ValueError, RuntimeError, AttributeError) as err:
        raise LoadError(f"{where}: damaged HDF5 file ({type(err).__name__}: {err}).") from None


def _read_checked(expected, expected_datasets, found, where):
    """The expected arrays, after ``_walk`` has checked the whole file."""
    missing = sorted(set(expected_datasets) - set(found))
    if missing:
        group = missing[0].rsplit("/", 1)[0]
        wanted = sum(key.rsplit("/", 1)[0] == group for key in expected_datasets)
        held = sum(key.rsplit("/", 1)[0] == group for key in found)
        raise LoadError(f"{where}: the file lacks {len(missing)} weight(s) the model has, "
                        f"first {missing[0]!r}: {group!r} expected {wanted} variables, but "
                        f"received {held} variables during loading.")
    result = []
    for path, specs in expected:
        arrays = []
        for name, _, _ in _keyed(specs):
            key = f"{_vars_path(path)}/{name}"
            (dataset, dtype), (shape, want) = found[key], expected_datasets[key]
            if tuple(dataset.shape) != shape or not loads_into(dtype, want):
                raise LoadError(f"{where}: weight {key!r} is {dtype.name} of shape "
                                f"{tuple(dataset.shape)} in the file; the model expects "
                                f"{want.name} of shape {shape} (shapes must match, and "
                                "the kind of number).")
            arrays.append(read_as(dataset, shape, dtype, want, where))
        result.append(arrays)
    return result


class Mismatch(NamedTuple):
    """A group ``read(..., skip_mismatch=True)`` did not read, and why."""

    reason: str


def _read_matching(expected, expected_datasets, found, others, where):
    """The arrays of each expected group the file holds exactly, a ``Mismatch`` for the
    others (``read``'s ``skip_mismatch``)."""
    extra = {path.rsplit("/", 1)[0] for path in others}
    result = []
    for path, specs in expected:
        keys = [f"{_vars_path(path)}/{name}" for name, _, _ in _keyed(specs)]
        present = [key for key in keys if key in found]
        if _vars_path(path) in extra or (present and len(present) < len(keys)):
            stored = len(present) + sum(p.rsplit("/", 1)[0] == _vars_path(path)
                                        for p in others)
            result.append(Mismatch(f"the file holds {stored} weights for "
                                   f"{_vars_path(path)!r}, the layer has {len(keys)}"))
            continue
        if not present and keys:
            result.append(Mismatch(f"the file has no weights at {_vars_path(path)!r}"))
            continue
        differing = [key for key in keys if tuple(found[key][0].shape)
                     != expected_datasets[key][0]
                     or not loads_into(found[key][1], expected_datasets[key][1])]
        if differing:
            key = differing[0]
            (dataset, dtype), (shape, want) = found[key], expected_datasets[key]
            result.append(Mismatch(f"weight {key!r} is {dtype.name} of shape "
                                   f"{tuple(dataset.shape)} in the file; the layer expects "
                                   f"{want.name} of shape {shape}"))
            continue
        result.append([read_as(found[key][0], expected_datasets[key][0], found[key][1],
                               expected_datasets[key][1], where) for key in keys])
    return result


def read_dataset(dataset, shape, dtype, where):
    """A checked dataset's data, read straight into an array of ``shape`` and ``dtype``."""
    if dtype == BFLOAT16:
        raw = np.empty(shape, dataset.dtype)
        out = raw.view(BFLOAT16) if raw.size else np.empty(shape, BFLOAT16)
    else:
        raw = out = np.empty(shape, dtype)
    if raw.size:
        try:
            dataset.read_direct(raw)
        except (OSError, TypeError, ValueError) as err:
            raise LoadError(f"{where}: cannot read dataset {dataset.name!r} ({err}).") from None
    return out
