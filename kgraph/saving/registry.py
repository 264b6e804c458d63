"""Which classes a config may name: kgraph's own, ``register_layer``'s, or ``custom_objects``.

Deserializing never imports a module named in a config; a class name is looked up here only
(in ``kgraph.base.catalog``, where kgraph's classes register themselves).
"""

from __future__ import annotations

from kgraph.base import catalog
from kgraph.base.catalog import (  # noqa: F401 - the registry's public names
    _GLOBAL_CUSTOM_NAMES, _GLOBAL_CUSTOM_OBJECTS, _SCOPES, CustomObjectScope, _with_scopes,
    builtin_classes, builtin_module, custom_object_scope, get_custom_objects,
    get_registered_name, get_registered_object, is_operation, register_keras_serializable,
    register_layer)

__all__ = ["UNSAFE_MESSAGE", "is_unsafe", "resolve_class",
           # the catalog's names, re-exported
           "CustomObjectScope", "builtin_classes", "builtin_module", "custom_object_scope",
           "get_custom_objects", "get_registered_name", "get_registered_object", "is_operation",
           "register_keras_serializable", "register_layer"]


UNSAFE_MESSAGE = (
    "Refusing to deserialize {what}: deserializing it carries a potential risk of arbitrary "
    "code execution (it runs Python code stored in the config), which is unsafe if the "
    "config comes from an untrusted source. "
    "If you trust its source, pass safe_mode=False (e.g. "
    "kg.model_from_json(json_string, safe_mode=False) or "
    "Functional.from_config(config, safe_mode=False)).")


def is_unsafe(cls) -> bool:
    """Whether deserializing ``cls`` runs code from the config (``Lambda`` and flagged classes)."""
    if getattr(cls, "unsafe_deserialization", False):
        return True
    return cls.__name__ == "Lambda" and cls.__module__.split(".")[0] == "kgraph"


def resolve_class(config, custom_objects):
    """The class a layer config names, from custom_objects, the registry or kgraph."""
    class_name = config.get("class_name")
    registered_name = config.get("registered_name")
    module = config.get("module")
    custom_objects = _with_scopes(custom_objects)
    for key in (registered_name, class_name):
        if key is not None and key in custom_objects:
            return custom_objects[key]
    registered = catalog.get_custom_objects()
    if registered_name is not None and registered_name in registered:
        return registered[registered_name]
    builtin = module is None or str(module).split(".")[0] in ("kgraph", "keras")
    cls = builtin_classes().get(class_name) if builtin else None
    if cls is not None:
        if registered_name in (None, "", class_name):
            return cls
        # as Keras: a built-in is named by its class name alone, never passed off under
        # another registered name
        raise ValueError(
            f"`registered_name={registered_name!r}` was provided in the config, but "
            f"{class_name!r} resolved to a Keras built-in and does not use registered names. "
            f"Remove the `registered_name` field from the config. Full object config: "
            f"{config}")
    raise ValueError(
        f"Could not locate class {class_name!r} (module {module!r}, registered name "
        f"{registered_name!r}). Custom layer classes must be registered with "
        f"@kgraph.saving.register_layer() or passed as custom_objects={{{class_name!r}: "
        f"{class_name}}}. Deserialization never imports modules named in a config.")
