"""Which classes and functions a config may name: kgraph's own classes (each registers
itself when its class is defined) and those registered by the user
(``register_layer`` / ``register_keras_serializable``, ``custom_objects`` scopes).

This module imports nothing from kgraph, so every module may consult it; deserialization
(``kgraph.saving``) looks names up here and never imports a module named in a config.

>>> from kgraph.base import catalog
>>> import kgraph as kg
>>> catalog.builtin_classes()["Dense"] is kg.layers.Dense
True
>>> catalog.is_instance(kg.Sequential(), "Functional")
True
"""

from __future__ import annotations

__all__ = ["CustomObjectScope", "add_builtin", "builtin_classes", "builtin_module",
           "custom_object_scope", "get_custom_objects", "get_registered_name",
           "get_registered_object", "is_builtin_definition", "is_instance", "is_operation",
           "register_keras_serializable", "register_layer", "registered_name_of",
           "function_entry", "object_config", "object_from_config", "set_object_codec"]

_BUILTIN: dict = {}  # class name -> kgraph's own class, in definition order


def add_builtin(cls) -> None:
    """Catalogue one of kgraph's classes under its name (``Layer.__init_subclass__`` calls
    this for every public layer class defined in kgraph)."""
    _BUILTIN.setdefault(cls.__name__, cls)


def is_builtin_definition(cls) -> bool:
    """Whether ``cls`` is one of kgraph's own public classes (defined in kgraph, name not
    private)."""
    return cls.__module__.split(".")[0] == "kgraph" and not cls.__name__.startswith("_")


def builtin_classes() -> dict:
    """kgraph's own layer and model classes by class name."""
    return dict(_BUILTIN)


def builtin_module(cls):
    """The public module a config names for one of kgraph's classes (``"kgraph.layers"``;
    ``"kgraph"`` for the model classes), else None."""
    if _BUILTIN.get(cls.__name__) is not cls:
        return None
    return "kgraph" if cls.__module__.startswith("kgraph.models.") else "kgraph.layers"


_OBJECT_CODEC: list = []  # saving's (serialize, deserialize), set as kgraph.saving loads


def set_object_codec(serialize, deserialize) -> None:
    """Give the modules below saving its functions for an object's config (an activation
    that is a layer object, as Keras's ``ReLU()``): ``kgraph.saving`` calls this."""
    _OBJECT_CODEC[:] = [serialize, deserialize]


def object_config(obj) -> dict:
    """The Keras config of object ``obj`` (``serialize_keras_object``)."""
    return _OBJECT_CODEC[0](obj)


def object_from_config(config):
    """The object of a Keras config (``deserialize_keras_object``)."""
    return _OBJECT_CODEC[1](config)


def is_instance(value, class_name: str) -> bool:
    """``isinstance(value, <kgraph's class named class_name>)``, for modules below the one
    defining that class (saving asks whether a layer is a ``Functional`` this way)."""
    cls = _BUILTIN.get(class_name)
    return cls is not None and isinstance(value, cls)


def is_operation(cls) -> bool:
    """Whether ``cls`` is an ``ops`` node's class (an ``Operation``)."""
    operation = _BUILTIN.get("Operation")
    return isinstance(cls, type) and operation is not None and issubclass(cls, operation)


# ------------------------------------------------------------------ the user's registry
_GLOBAL_CUSTOM_OBJECTS: dict = {}  # registered name -> class
_GLOBAL_CUSTOM_NAMES: dict = {}  # class -> registered name


def register_layer(package="Custom", name=None):
    """Register a custom class (with ``get_config``) or function for deserialization (as
    Keras's ``register_keras_serializable``): its registered name is ``"package>name"``.

    Use as ``@register_layer()``, ``@register_layer(package="mine")`` or ``@register_layer``.
    """
    if isinstance(package, type):  # used bare: @register_layer
        return register_layer()(package)

    def decorator(obj):
        if isinstance(obj, type) and not hasattr(obj, "get_config"):
            raise ValueError(f"Cannot register a class that does not have a get_config() "
                             f"method: class {obj.__name__!r} has none, so it cannot be "
                             "serialized (register_keras_serializable).")
        if not callable(obj):
            raise ValueError(f"register_keras_serializable expects a class with get_config() "
                             f"or a function, received {obj!r}.")
        registered_name = f"{package}>{name or obj.__name__}"
        _GLOBAL_CUSTOM_OBJECTS[registered_name] = obj
        _GLOBAL_CUSTOM_NAMES[obj] = registered_name
        return obj

    return decorator


register_keras_serializable = register_layer


def get_registered_name(obj) -> str:
    """``"package>name"`` for a registered class or function, else its name (as Keras)."""
    return registered_name_of(obj) or obj.__name__


def function_entry(fn) -> dict:
    """Keras's config entry of a function: its registered name (module "builtins"), else its
    module and name; ``get_registered_object`` finds a registered one back."""
    registered = registered_name_of(fn)
    return {"module": "builtins" if registered else fn.__module__, "class_name": "function",
            "config": registered or fn.__name__, "registered_name": "function"}


def registered_name_of(obj):
    """``"package>name"`` if ``obj`` was registered, else None. A class made to stand for
    another (a functional model of a ``Model`` subclass) names it as ``_serialized_as``."""
    obj = vars(obj).get("_serialized_as", obj) if isinstance(obj, type) else obj
    try:
        return _GLOBAL_CUSTOM_NAMES.get(obj)
    except TypeError:  # an unhashable callable
        return None


_SCOPES: list = []  # the custom_objects of the open custom_object_scope()s, innermost last


class CustomObjectScope:
    """Within ``with custom_object_scope({"MyLayer": MyLayer}):``, deserialization finds
    these classes by name as if passed as ``custom_objects`` (Keras's scope).

    >>> class MyLayer: ...
    >>> with custom_object_scope({"MyLayer": MyLayer}):
    ...     get_registered_object("MyLayer") is MyLayer
    True
    >>> get_registered_object("MyLayer") is None
    True
    """

    def __init__(self, custom_objects=None):
        self.custom_objects = dict(custom_objects or {})

    def __enter__(self):
        _SCOPES.append(self.custom_objects)
        return self

    def __exit__(self, *exc_info):
        # this scope's entry (by identity), if nothing cleared the scopes meanwhile
        for index in range(len(_SCOPES) - 1, -1, -1):
            if _SCOPES[index] is self.custom_objects:
                del _SCOPES[index]
                break


custom_object_scope = CustomObjectScope


def _with_scopes(custom_objects) -> dict:
    """``custom_objects`` over the open scopes' objects (inner scopes win)."""
    merged: dict = {}
    for scope in _SCOPES:
        merged.update(scope)
    merged.update(custom_objects or {})
    return merged


def get_registered_object(name, custom_objects=None):
    """The class registered (or given in ``custom_objects`` or an open
    ``custom_object_scope``) as ``name``, or None."""
    custom_objects = _with_scopes(custom_objects)
    if name in custom_objects:
        return custom_objects[name]
    return _GLOBAL_CUSTOM_OBJECTS.get(name)


def get_custom_objects() -> dict:
    """The global ``{registered_name: class}`` registry (mutable, as Keras's)."""
    return _GLOBAL_CUSTOM_OBJECTS
