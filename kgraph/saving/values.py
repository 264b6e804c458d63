"""Plain values in configs: node arguments and op parameters as JSON data (Keras's forms).

Tuples, slices, Ellipsis, bytes and arrays become ``{"class_name": "__tuple__", "config":
...}``-style dicts, as Keras 3 writes them; a KerasTensor inside node arguments is written
by the functional format (``__keras_tensor__``) and read back through ``resolve_tensor``.

>>> decode_value(encode_value((1, slice(None, 2), ...), "example"))
(1, slice(None, 2, None), Ellipsis)
"""

from __future__ import annotations

import numpy as np

from kgraph.graph.keras_tensor import KerasTensor
from kgraph.saving.registry import UNSAFE_MESSAGE
from kgraph.saving.validation import ConfigError, fail, item

__all__ = ["SPECIAL_CLASSES", "decode_value", "encode_value", "shape_from_config", "shape_list",
           "shape_struct"]


def encode_value(value, what):
    """A node argument / op parameter as JSON-compatible data (Keras's special forms)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, KerasTensor):
        raise TypeError("internal: KerasTensors are encoded by the node serializer")
    if isinstance(value, list):
        return [encode_value(v, what) for v in value]
    if isinstance(value, tuple):
        return {"class_name": "__tuple__",
                "config": {"value": [encode_value(v, what) for v in value]}}
    if isinstance(value, dict):
        return {str(k): encode_value(v, what) for k, v in value.items()}
    if isinstance(value, slice):
        return {"class_name": "__slice__",
                "config": {"start": encode_value(value.start, what),
                           "stop": encode_value(value.stop, what),
                           "step": encode_value(value.step, what)}}
    if value is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(value, bytes):
        return {"class_name": "__bytes__", "config": {"value": value.decode("utf-8")}}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return np.dtype(value).name
    if isinstance(value, np.ndarray):
        return {"class_name": "__numpy__",
                "config": {"value": value.tolist(), "dtype": value.dtype.name}}
    if hasattr(value, "__jax_array__") or type(value).__module__.startswith("jax"):
        array = np.asarray(value)
        return {"class_name": "__tensor__",
                "config": {"value": array.tolist(), "dtype": array.dtype.name}}
    raise TypeError(f"Cannot serialize {type(value).__name__} value {value!r} in {what}: "
                    "only Python scalars, strings, None, lists, tuples, dicts, slices, "
                    "Ellipsis and arrays can be stored in a config.")


_ARRAY_KINDS = "biufc"  # bool, integer, unsigned, float, complex


def _array(inner, path):
    """A ``__numpy__`` / ``__tensor__`` value: a numeric dtype and a rectangular nested list."""
    value = inner.get("value")
    dtype = inner.get("dtype")
    try:
        dtype = np.dtype(dtype) if isinstance(dtype, str) else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in _ARRAY_KINDS:
        fail(f'{path}["config"]["dtype"]', "the name of a numeric or bool dtype",
             inner.get("dtype"))
    if not isinstance(value, (list, int, float, complex)):
        fail(f'{path}["config"]["value"]', f"a (nested) list of {dtype.name} numbers", value)
    try:
        return np.array(value, dtype=dtype)
    except (TypeError, ValueError) as err:
        fail(f'{path}["config"]["value"]', f"a (nested) list of {dtype.name} numbers "
             f"({err})", value)


def _special(class_name, inner, path, decode):
    """Keras's ``__tuple__`` / ``__slice__`` / ... forms; ``decode(value, path)`` for parts."""
    if not isinstance(inner, dict):
        fail(f'{path}["config"]', f"the dict of a {class_name} value", inner)
    if class_name == "__tuple__":
        if not isinstance(inner.get("value"), list):
            fail(f'{path}["config"]["value"]', "a list of the tuple's items", inner.get("value"))
        return tuple(decode(v, f'{path}["config"]["value"][{i}]')
                     for i, v in enumerate(inner["value"]))
    if class_name == "__slice__":
        parts = [decode(inner.get(k), f'{path}["config"]["{k}"]')
                 for k in ("start", "stop", "step")]
        if not all(p is None or isinstance(p, (int, np.ndarray)) for p in parts):
            fail(f'{path}["config"]', "slice start/stop/step: integers, arrays or None",
                 inner)
        return slice(*parts)
    if class_name == "__ellipsis__":
        return Ellipsis
    if class_name == "__bytes__":
        if not isinstance(inner.get("value"), str):
            fail(f'{path}["config"]["value"]', "a string", inner.get("value"))
        return inner["value"].encode("utf-8")
    if class_name == "__numpy__":
        return _array(inner, path)
    import jax.numpy as jnp  # __tensor__

    return jnp.asarray(_array(inner, path))


_SPECIAL = ("__tuple__", "__slice__", "__ellipsis__", "__bytes__", "__numpy__", "__tensor__")
# every class_name of a value (not an object) in a config
SPECIAL_CLASSES = (*_SPECIAL, "__lambda__")


def decode_value(value, resolve_tensor=None, safe_mode=True, path="value"):
    """Inverse of ``encode_value``; ``__keras_tensor__`` goes to ``resolve_tensor(config,
    path)``. ``path`` names ``value`` in error messages."""

    def decode(value, path):
        return decode_value(value, resolve_tensor, safe_mode, path)

    if isinstance(value, list):
        return [decode(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    class_name = value.get("class_name")
    inner = value.get("config")
    if class_name == "__keras_tensor__" and resolve_tensor is not None:
        return resolve_tensor(inner, path)
    if class_name in _SPECIAL:
        return _special(class_name, inner, path, decode)
    if class_name == "__lambda__":
        if safe_mode:
            raise ConfigError(UNSAFE_MESSAGE.format(what="a Python lambda"))
        raise ConfigError("Python lambdas stored as bytecode cannot be loaded by kgraph; "
                         "use a named function registered in custom_objects.")
    return {k: decode(v, item(path, k)) for k, v in value.items()}


def shape_list(shape):
    return [None if d is None else int(d) for d in shape]


def shape_struct(value):
    """Input shapes of a call's first argument: a list, or a list/dict of lists."""
    if isinstance(value, KerasTensor):
        return shape_list(value.shape)
    if isinstance(value, dict):
        return {k: shape_struct(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [shape_struct(v) for v in value]
    return None


def shape_from_config(value):
    """A build_config shape back to ``build``'s form: tuples, or a list/dict of tuples."""
    if isinstance(value, dict):
        return {k: shape_from_config(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and all(d is None or isinstance(d, int) for d in value):
        return tuple(value)
    if isinstance(value, (list, tuple)):
        return [shape_from_config(v) for v in value]
    return value
