"""Plain values in configs: node arguments and op parameters as JSON data (Keras's forms).

Tuples, slices, Ellipsis, bytes and arrays become ``{"class_name": "__tuple__", "config":
...}``-style dicts, as Keras 3 writes them; a KerasTensor inside node arguments is written
by the functional format (``__keras_tensor__``) and read back through ``resolve_tensor``.

>>> decode_value(encode_value((1, slice(None, 2), ...), "example"))
(1, slice(None, 2, None), Ellipsis)
"""

from __future__ import annotations

import numpy as np

from kgraph.keras_tensor import KerasTensor
from kgraph.saving.registry import UNSAFE_MESSAGE


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


def decode_value(value, resolve_tensor=None, safe_mode=True):
    """Inverse of ``encode_value``; ``__keras_tensor__`` goes to ``resolve_tensor``."""
    if isinstance(value, list):
        return [decode_value(v, resolve_tensor, safe_mode) for v in value]
    if not isinstance(value, dict):
        return value
    class_name = value.get("class_name")
    inner = value.get("config")
    if class_name == "__keras_tensor__" and resolve_tensor is not None:
        return resolve_tensor(inner)
    if class_name == "__tuple__":
        return tuple(decode_value(v, resolve_tensor, safe_mode) for v in inner["value"])
    if class_name == "__slice__":
        return slice(*(decode_value(inner[k], resolve_tensor, safe_mode)
                       for k in ("start", "stop", "step")))
    if class_name == "__ellipsis__":
        return Ellipsis
    if class_name == "__bytes__":
        return inner["value"].encode("utf-8")
    if class_name == "__numpy__":
        return np.array(inner["value"], dtype=inner["dtype"])
    if class_name == "__tensor__":
        import jax.numpy as jnp

        return jnp.asarray(np.array(inner["value"], dtype=inner["dtype"]))
    if class_name == "__lambda__":
        if safe_mode:
            raise ValueError(UNSAFE_MESSAGE.format(what="a Python lambda"))
        raise ValueError("Python lambdas stored as bytecode cannot be loaded by kgraph; "
                         "use a named function registered in custom_objects.")
    return {k: decode_value(v, resolve_tensor, safe_mode) for k, v in value.items()}


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
