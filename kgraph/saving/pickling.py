"""Pickling and copying a model as Keras 3 does: ``Model.__reduce__`` saves the model to the
bytes of a ``.keras`` file (architecture, weights, compile configuration and optimizer
state) and unpickling loads them back, so ``pickle``, ``copy.deepcopy`` and ``copy.copy``
give an independent model in the same state, compiled if the original was.

The classes and functions of the model that are not kgraph's own (a custom layer, model or
loss) travel beside the bytes as references, as pickle sends any class: unpickling needs
them importable, as any pickle does. As Keras, unpickling uses ``safe_mode=False``
(unpickling runs code anyway). A model not built yet travels as its config alone.

>>> import copy, numpy as np, kgraph as kg
>>> x = kg.Input(shape=(2,))
>>> model = kg.Model(x, kg.layers.Dense(1)(x))
>>> copied = copy.deepcopy(model)
>>> all(np.array_equal(a, b) for a, b in zip(copied.get_weights(), model.get_weights()))
True
>>> copied.weights[0] is model.weights[0]
False
"""

from __future__ import annotations

import json
import os
import tempfile
import types

from kgraph.base import catalog
from kgraph.saving import compile_config, keras_dialect, keras_file, registry
from kgraph.saving.layer_config import deserialize_layer

__all__ = ["reduce_model"]


def _is_custom(obj) -> bool:
    """Whether ``obj`` (a class or function) is defined outside kgraph."""
    return str(getattr(obj, "__module__", "") or "").split(".")[0] not in ("kgraph", "builtins")


def _add(found: dict, obj) -> None:
    """Record ``obj`` (or its class) under the names a config gives it, if it is custom."""
    if isinstance(obj, (types.FunctionType, type)):
        target = obj
    elif hasattr(obj, "get_config"):
        target = type(obj)
    else:
        return
    if not _is_custom(target):
        return
    if isinstance(target, type):  # a functional model of a Model subclass: that class
        target = vars(target).get("_serialized_as", target)
    found.setdefault(target.__name__, target)
    registered = catalog.registered_name_of(target) if isinstance(target, type) else None
    if registered:
        found.setdefault(registered, target)


def _walk(found: dict, value, depth=0) -> None:
    """``_add`` on ``value`` and on what it holds (compile's nested losses and metrics)."""
    if depth > 32:
        return
    if isinstance(value, dict):
        for item in value.values():
            _walk(found, item, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _walk(found, item, depth + 1)
    elif value is not None:
        _add(found, value)


def _custom_objects_of(model) -> dict:
    """``{name: class or function}`` of what ``model`` uses that is not kgraph's own: its
    layers' classes, the functions they hold (a custom activation) and compile's losses,
    metrics and optimizer."""
    found: dict = {}
    for layer in model._flatten_layers(include_self=True):
        _add(found, type(layer))
        for value in vars(layer).values():
            if isinstance(value, types.FunctionType):
                _add(found, value)
    config = getattr(getattr(model, "_training_setup", None), "config", None)
    if config is not None:
        _add(found, config.get("optimizer"))
        for key in ("loss", "metrics", "weighted_metrics"):
            _walk(found, config.get(key))
    return found


def _file_bytes(model) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.keras")
        keras_file.save_model(model, path)
        with open(path, "rb") as file:
            return file.read()


def reduce_model(model):
    """``model.__reduce__``: a function and its arguments that rebuild ``model``."""
    custom_objects = _custom_objects_of(model)
    if not model.built:
        return _model_from_config, (json.dumps(keras_file.model_config(model)), custom_objects)
    return _model_from_file_bytes, (_file_bytes(model), custom_objects)


def _model_from_file_bytes(data: bytes, custom_objects: dict):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.keras")
        with open(path, "wb") as file:
            file.write(data)
        with registry.CustomObjectScope(custom_objects):
            return keras_file.load_model(path, custom_objects=custom_objects, compile=True,
                                         safe_mode=False)


def _model_from_config(config_json: str, custom_objects: dict):
    config = json.loads(config_json)
    with registry.CustomObjectScope(custom_objects):
        model = deserialize_layer(keras_dialect.from_keras(config),
                                  custom_objects=custom_objects, safe_mode=False)
        if "compile_config" in config:
            compile_config.compile_loaded(model, config["compile_config"],
                                          custom_objects)
    return model
