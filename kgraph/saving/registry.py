"""Which classes a config may name: kgraph's own, ``register_layer``'s, or ``custom_objects``.

Deserializing never imports a module named in a config; a class name is looked up here only.
"""

from __future__ import annotations

from kgraph.base.layer import Layer

_GLOBAL_CUSTOM_OBJECTS: dict = {}  # registered name -> class
_GLOBAL_CUSTOM_NAMES: dict = {}  # class -> registered name

UNSAFE_MESSAGE = (
    "Refusing to deserialize {what}: deserializing it would execute arbitrary Python code "
    "stored in the config, which is unsafe if the config comes from an untrusted source. "
    "If you trust its source, pass safe_mode=False (e.g. "
    "kg.model_from_json(json_string, safe_mode=False) or "
    "Functional.from_config(config, safe_mode=False)).")


def register_layer(package="Custom", name=None):
    """Register a custom layer class for deserialization (as Keras's
    ``register_keras_serializable``): its registered name is ``"package>name"``.

    Use as ``@register_layer()``, ``@register_layer(package="mine")`` or ``@register_layer``.
    """
    if isinstance(package, type):  # used bare: @register_layer
        return register_layer()(package)

    def decorator(cls):
        if not (isinstance(cls, type) and hasattr(cls, "get_config")):
            raise ValueError(f"register_layer expects a class with get_config(), "
                             f"received {cls!r}.")
        registered_name = f"{package}>{name or cls.__name__}"
        _GLOBAL_CUSTOM_OBJECTS[registered_name] = cls
        _GLOBAL_CUSTOM_NAMES[cls] = registered_name
        return cls

    return decorator


register_keras_serializable = register_layer


def get_registered_name(cls) -> str:
    """``"package>name"`` for a registered class, else the class name (as Keras)."""
    return _GLOBAL_CUSTOM_NAMES.get(cls, cls.__name__)


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
        _SCOPES.remove(self.custom_objects)


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


_builtin_cache: dict = {}


def builtin_classes() -> dict:
    """kgraph's own layer and model classes by class name (rescanned when the catalog grows)."""
    from kgraph import layers as layers_module
    from kgraph.models.functional import Functional
    from kgraph.graph.input_layer import InputLayer
    from kgraph.models.sequential import Sequential

    namespace = vars(layers_module)
    if _builtin_cache.get("size") != len(namespace):
        classes = {name: obj for name, obj in namespace.items()
                   if isinstance(obj, type) and issubclass(obj, Layer) and obj.__name__ == name}
        classes.update(Functional=Functional, Sequential=Sequential, InputLayer=InputLayer)
        _builtin_cache.update(size=len(namespace), classes=classes)
    return _builtin_cache["classes"]


def builtin_module(cls):
    """``"kgraph.layers"`` / ``"kgraph"`` for kgraph's own classes, else None."""
    from kgraph import layers as layers_module

    if getattr(layers_module, cls.__name__, None) is cls:
        return "kgraph.layers"
    if builtin_classes().get(cls.__name__) is cls:
        return "kgraph"
    return None


def is_operation(cls) -> bool:
    from kgraph import ops

    return isinstance(cls, type) and issubclass(cls, ops.Operation)


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
    if registered_name is not None and registered_name in _GLOBAL_CUSTOM_OBJECTS:
        return _GLOBAL_CUSTOM_OBJECTS[registered_name]
    builtin = module is None or str(module).split(".")[0] in ("kgraph", "keras")
    if registered_name in (None, class_name) and builtin:
        cls = builtin_classes().get(class_name)
        if cls is not None:
            return cls
    raise ValueError(
        f"Could not locate class {class_name!r} (module {module!r}, registered name "
        f"{registered_name!r}). Custom layer classes must be registered with "
        f"@kgraph.saving.register_layer() or passed as custom_objects={{{class_name!r}: "
        f"{class_name}}}. Deserialization never imports modules named in a config.")
