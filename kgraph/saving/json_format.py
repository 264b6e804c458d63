"""Models as JSON strings: ``to_json`` and ``model_from_json`` (Keras 3's format).

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,), name="x")
>>> model = kg.Model(x, kg.layers.Dense(2, name="d")(x))
>>> [layer.name for layer in model_from_json(to_json(model)).layers]
['x', 'd']
"""

from __future__ import annotations

import json

import numpy as np

from kgraph.saving import validation
from kgraph.saving.layer_config import deserialize_layer, serialize_layer
from kgraph.saving.validation import ConfigError

__all__ = ["model_from_config", "model_from_json", "to_json"]


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.dtype):
        return value.name
    raise TypeError(f"{type(value).__name__} value {value!r} in a layer config is not JSON "
                    "serializable; get_config() must return JSON-compatible values.")


def to_json(model, **kwargs) -> str:
    """``model``'s serialized form as a JSON string (``kwargs`` go to ``json.dumps``)."""
    return json.dumps(serialize_layer(model), default=_json_default, **kwargs)


def model_from_json(json_string, custom_objects=None, safe_mode=True):
    """The model described by ``model.to_json()`` (new layers, fresh weights).

    Classes must be kgraph's, registered with ``register_layer``, or in ``custom_objects``.
    ``safe_mode=True`` refuses layers that would execute code stored in the JSON. Malformed
    or too deeply nested JSON raises a ValueError naming the problem and its place.
    """
    if not isinstance(json_string, (str, bytes, bytearray)):
        raise TypeError(f"model_from_json expects a JSON string, received "
                        f"{type(json_string).__name__}.")
    validation.check_json_depth(json_string)
    try:
        config = json.loads(json_string)
    except RecursionError:  # the caller's stack was already deep
        raise ConfigError("Invalid JSON: nested too deeply for Python's JSON parser.") from None
    validation.check_no_file_references(config)
    return deserialize_layer(config, custom_objects=custom_objects, safe_mode=safe_mode)


def model_from_config(config, custom_objects=None, safe_mode=True):
    """The model from ``serialize_layer(model)`` (a dict with class_name and config)."""
    return deserialize_layer(config, custom_objects=custom_objects, safe_mode=safe_mode)
