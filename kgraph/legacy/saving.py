"""Keras 2's object configs, ``{"class_name": ..., "config": {...}}``: what
``keras.legacy.saving`` (also ``keras.utils.legacy``) writes and reads. Nested objects are
marked ``"__passive_serialization__"``; functions are written as their (registered) names.

Reading looks names up in ``custom_objects``, the open ``custom_object_scope``s, the
registered objects and then ``module_objects``: nothing from the config is imported or run.

>>> import kgraph as kg
>>> config = serialize_keras_object(kg.regularizers.L2(0.5))
>>> config
{'class_name': 'L2', 'config': {'l2': 0.5}}
>>> deserialize_keras_object(config, module_objects={"L2": kg.regularizers.L2}).l2
0.5
"""

from __future__ import annotations

import inspect

from kgraph.base.catalog import (CustomObjectScope, _with_scopes, get_registered_name,
                                 get_registered_object)

__all__ = ["deserialize_keras_object", "serialize_keras_object"]

_PASSIVE = "__passive_serialization__"


def serialize_keras_object(instance):
    """``instance``'s Keras 2 config: ``{"class_name", "config"}`` for an object with
    ``get_config`` (its nested objects serialized and marked), the (registered) name of a
    function or class, None for None."""
    instance = inspect.unwrap(instance) if callable(instance) else instance
    if instance is None:
        return None
    if hasattr(instance, "get_config"):
        config = {}
        for key, item in instance.get_config().items():
            if isinstance(item, str):
                config[key] = item
                continue
            try:
                serialized = serialize_keras_object(item)
            except ValueError:  # plain data (numbers, lists, dicts) stays as it is
                config[key] = item
                continue
            if isinstance(serialized, dict) and not isinstance(item, dict):
                serialized[_PASSIVE] = True
            config[key] = serialized
        return {"class_name": get_registered_name(type(instance)), "config": config}
    if hasattr(instance, "__name__"):
        return get_registered_name(instance)
    raise ValueError(f"Cannot serialize {instance!r} because it doesn't implement "
                     "`get_config()`.")


def _lookup(name, module_objects, custom_objects):
    found = get_registered_object(name, custom_objects)
    return found if found is not None else (module_objects or {}).get(name)


def _unknown(what, name):
    return ValueError(f"Unknown {what}: {name!r}. Please ensure you are using a "
                      "`keras.utils.custom_object_scope` and that this object is included in "
                      "the scope, or pass it in `custom_objects` or `module_objects`.")


def _class_and_config(config, module_objects, custom_objects, what):
    if not isinstance(config, dict) or "class_name" not in config or "config" not in config:
        raise ValueError(f"Improper config format for {config!r}. Expecting a python dict "
                         "with `class_name` and `config` as keys.")
    cls = _lookup(config["class_name"], module_objects, custom_objects)
    if cls is None:
        raise _unknown(what, config["class_name"])
    cls_config = config["config"]
    if isinstance(cls_config, list):  # Keras 2.0's Sequential: a list of layer configs
        return cls, cls_config
    cls_config = dict(cls_config)
    for key, item in cls_config.items():
        if key == "name":
            continue
        if isinstance(item, dict) and _PASSIVE in item:
            cls_config[key] = deserialize_keras_object(item, module_objects, custom_objects,
                                                       "config_item")
        elif isinstance(item, str) and inspect.isfunction(
                _lookup(item, module_objects, custom_objects)):
            cls_config[key] = _lookup(item, module_objects, custom_objects)
    return cls, cls_config


def deserialize_keras_object(identifier, module_objects=None, custom_objects=None,
                             printable_module_name="object"):
    """The object a Keras 2 config (or a name) stands for. A config calls its class's
    ``from_config`` (or the class itself with the config as keyword arguments); a name gives
    the function, or an instance of the class made without arguments."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        cls, config = _class_and_config(identifier, module_objects, custom_objects,
                                        printable_module_name)
        custom_objects = custom_objects or {}
        from_config = getattr(cls, "from_config", None)
        if from_config is None:
            with CustomObjectScope(custom_objects):
                return cls(**config)
        if "custom_objects" in inspect.signature(from_config).parameters:
            return from_config(config, custom_objects=_with_scopes(custom_objects))
        with CustomObjectScope(custom_objects):
            return from_config(config)
    if isinstance(identifier, str):
        obj = _lookup(identifier, module_objects, custom_objects)
        if obj is None:
            raise _unknown(printable_module_name, identifier)
        return obj() if inspect.isclass(obj) else obj
    if inspect.isfunction(identifier):
        return identifier
    raise ValueError(f"Could not interpret serialized {printable_module_name}: "
                     f"{identifier!r}")
