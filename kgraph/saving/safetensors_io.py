"""The ``(params, state)`` pytrees as one ``.safetensors`` file, and back.

Keys are the weight paths: ``params/<layer>/<weight>`` and ``state/<layer>/<weight>``
(nested models add levels). Typed PRNG keys are stored as their key data, with the key
implementation in the file's metadata, and come back as typed keys. The file is written
atomically; reading it needs only ``safetensors`` and ``numpy`` (no pickle, no code).

>>> import os, tempfile, jax.numpy as jnp
>>> path = os.path.join(tempfile.mkdtemp(), "w.safetensors")
>>> save_safetensors(path, {"dense": {"kernel": jnp.ones((2, 3))}}, {})
>>> params, state = load_safetensors(path)
>>> params["dense"]["kernel"].shape, state
((2, 3), {})
"""

from __future__ import annotations

import os

import jax
import numpy as np
from safetensors import SafetensorError, safe_open
from safetensors.numpy import save as _save_bytes

from kgraph.base import weight_tree as weights
from kgraph.saving.archive import atomic_write
from kgraph.saving.errors import LoadError

__all__ = ["load_safetensors", "load_safetensors_into", "save_safetensors"]


_ROOTS = ("params", "state")
_KEY_PREFIX = "prng_key:"  # metadata entry: key path -> key implementation
_KEY_IMPLS = ("threefry2x32", "rbg", "unsafe_rbg")


def _flatten(tree, prefix, out, keys):
    for name, node in tree.items():
        if not isinstance(name, str) or "/" in name or not name:
            raise ValueError(f"Cannot store {prefix}/{name!r}: pytree keys must be non-empty "
                             "strings without '/'.")
        path = f"{prefix}/{name}"
        if isinstance(node, dict):
            _flatten(node, path, out, keys)
        elif jax.dtypes.issubdtype(getattr(node, "dtype", None), jax.dtypes.prng_key):
            keys[_KEY_PREFIX + path] = str(jax.random.key_impl(node))
            out[path] = np.asarray(jax.random.key_data(node))
        else:
            out[path] = np.array(node, order="C")  # (ascontiguousarray makes 0-d arrays 1-d)


def save_safetensors(path, params, state, overwrite=True) -> None:
    """Write ``params`` and ``state`` (nested dicts of arrays) to ``path``."""
    path = os.fspath(path)
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists and overwrite=False.")
    arrays, keys = {}, {}
    for root, tree in zip(_ROOTS, (params, state)):
        _flatten(tree, root, arrays, keys)
    data = _save_bytes(arrays, metadata={"format": "kgraph-pytrees", **keys})
    with atomic_write(path) as file:
        file.write(data)


def load_safetensors(path) -> tuple[dict, dict]:
    """``(params, state)`` from a file written by ``save_safetensors``."""
    path = os.fspath(path)
    try:
        with safe_open(path, framework="numpy") as file:
            metadata = file.metadata() or {}
            arrays = {key: file.get_tensor(key) for key in file.keys()}
    except (OSError, ValueError, SafetensorError) as err:
        raise LoadError(f"{path}: not a readable safetensors file ({err}).") from None
    trees = {root: {} for root in _ROOTS}
    for key, value in arrays.items():
        parts = key.split("/")
        if parts[0] not in trees or len(parts) < 2 or "" in parts:
            raise LoadError(f"{path}: key {key!r} is not params/<layer>/<weight> or "
                            "state/<layer>/<weight>.")
        impl = metadata.get(_KEY_PREFIX + key)
        if impl is not None:
            if impl not in _KEY_IMPLS:
                raise LoadError(f"{path}: unknown PRNG key implementation {impl!r} for "
                                f"{key!r}.")
            value = jax.random.wrap_key_data(value, impl=impl)
        node = trees[parts[0]]
        for part in parts[1:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise LoadError(f"{path}: key {key!r} nests under a weight.")
        if parts[-1] in node:
            raise LoadError(f"{path}: key {key!r} is both a weight and a folder.")
        node[parts[-1]] = value
    return trees["params"], trees["state"]


def load_safetensors_into(model, path) -> None:
    """Set ``model``'s weights from ``path``, which must hold exactly its weights (every
    path, shape and dtype; nothing more), as ``model.load_weights("*.safetensors")``."""
    params, state = load_safetensors(path)
    entries = weights.weight_entries(model)
    try:
        weights.check_weights(entries, params, state, model.name)
    except (KeyError, TypeError, ValueError) as err:
        raise LoadError(f"{path}: {err}") from None
    weights.assign(model, params, state)
