"""Keras's ``serialize_keras_object`` / ``deserialize_keras_object`` for any object: layers and
models (``layer_config``), kgraph's losses, metrics, optimizers and schedules, functions,
registered classes of other libraries (``register_keras_serializable``), and the plain values
around them (lists, dicts, tuples, arrays).

Deserializing never imports a module a config names: a class or function comes from
``custom_objects``, an open ``custom_object_scope``, the registry, ``module_objects`` (the
caller's own table, Keras's legacy argument) or kgraph's catalogs.

>>> import kgraph as kg
>>> config = serialize_keras_object({"loss": kg.losses.Huber(delta=2.0), "sizes": (1, 2)})
>>> config["sizes"]["class_name"], config["loss"]["class_name"]
('__tuple__', 'Huber')
>>> restored = deserialize_keras_object(config)
>>> restored["loss"].get_config()["delta"], restored["sizes"]
(2.0, (1, 2))
"""

from __future__ import annotations

import types

from kgraph import (activations, constraints, dtype_policies, initializers, losses, metrics,
                    optimizers, quantizers, regularizers)
from kgraph.base import catalog
from kgraph.base.layer import Layer
from kgraph.dtype_policy import DTypePolicy
from kgraph.optimizers import schedules
from kgraph.saving import layer_config, registry, scope, values
from kgraph.saving.layer_config import deserialize_layer, serialize_layer

__all__ = ["deserialize_keras_object", "serialize_keras_object"]

_PLAIN = (str, int, float, bool)
# kgraph's catalogs by the section of Keras's module a config names ("keras.losses"): each
# has Keras's serialize(obj) and deserialize(config, custom_objects)
_CATALOGS = {"optimizers.schedules": schedules, "optimizers": optimizers, "losses": losses,
             "metrics": metrics, "initializers": initializers, "regularizers": regularizers,
             "constraints": constraints, "dtype_policies": dtype_policies,
             "quantizers": quantizers}


def _catalog_section(obj):
    """The section of the catalog whose ``serialize`` describes ``obj`` (one of kgraph's
    own), or None."""
    if isinstance(obj, DTypePolicy):
        return "dtype_policies"
    module = type(obj).__module__
    for section, catalog_module in _CATALOGS.items():  # the most specific module first
        if module == catalog_module.__name__ or module.startswith(catalog_module.__name__ + "."):
            return section
    return None


def _section(module) -> str | None:
    """``"losses"`` for Keras's or kgraph's ``keras.losses`` / ``kgraph.losses...``."""
    root, _, rest = str(module or "").partition(".")
    return rest if root in ("keras", "kgraph") and rest else None


@scope.sharing
def serialize_keras_object(obj):
    """Keras's config of ``obj`` (JSON-compatible), which ``deserialize_keras_object``
    rebuilds. Layers serialized more than once in one call (and, inside an
    ``ObjectSharingScope``, any object) are marked as shared (``scope``)."""
    if obj is None or isinstance(obj, _PLAIN):
        return obj
    if isinstance(obj, Layer):
        return serialize_layer(obj)
    registered = catalog.registered_name_of(type(obj))
    section = _catalog_section(obj) if registered is None else None
    if section is not None:  # as Keras writes its own objects (an optimizer is a tuple)
        return {"module": f"keras.{section}", "registered_name": None,
                **_CATALOGS[section].serialize(obj)}
    if hasattr(obj, "get_config") and not isinstance(obj, type):
        config = {"module": type(obj).__module__, "class_name": type(obj).__name__,
                  "config": serialize_keras_object(obj.get_config()),
                  "registered_name": registered or type(obj).__name__}
        if scope.object_sharing():
            scope.mark(obj, config)
        return config
    if isinstance(obj, list):
        return [serialize_keras_object(value) for value in obj]
    if isinstance(obj, tuple):
        return {"class_name": "__tuple__",
                "config": {"value": [serialize_keras_object(value) for value in obj]}}
    if isinstance(obj, dict):
        return {str(key): serialize_keras_object(value) for key, value in obj.items()}
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)):
        return catalog.function_entry(obj)
    return values.encode_value(obj, f"a {type(obj).__name__}")


def _from_module_objects(config, module_objects, custom_objects, safe_mode):
    """Keras's ``module_objects`` lookup: a name (or a config naming a class) found in the
    caller's table; None if the table does not settle it."""
    name = config
    if isinstance(config, dict):
        keys = (config.get("class_name"), config.get("registered_name"))
        if any(key in custom_objects for key in keys if key is not None):
            return None  # a custom object: the general path finds it
        name = config.get("config") if config.get("class_name") == "function" \
            else config.get("class_name")
    if not isinstance(name, str) or name not in module_objects:
        return None
    found = module_objects[name]
    if isinstance(found, types.FunctionType):
        return found
    inner = config.get("config") if isinstance(config, dict) else None
    return _instance(found, inner or {}, custom_objects, safe_mode)


def _instance(cls, inner, custom_objects, safe_mode):
    if not hasattr(cls, "from_config"):
        raise TypeError(f"Unable to reconstruct an instance of {cls.__name__!r} because the "
                        "class is missing a `from_config()` method; it cannot be rebuilt from "
                        "a config.")
    if safe_mode and registry.is_unsafe(cls):
        raise ValueError(registry.UNSAFE_MESSAGE.format(what=f"an object of class "
                                                             f"{cls.__name__}"))
    with registry.CustomObjectScope(custom_objects), scope.safe_mode_scope(safe_mode):
        return cls.from_config(inner)


# kgraph's modules of built-in functions a config names by name alone (Keras's
# ``module: "builtins"``), and their helpers that are not modeling functions
_FUNCTION_MODULES = (activations, losses, metrics)
_NOT_MODELING = frozenset({"get", "serialize", "deserialize", "name_of", "as_loss"})


def _builtin_function(name):
    """The built-in activation, loss or metric function called ``name``, or None."""
    for module in _FUNCTION_MODULES:
        if name in getattr(module, "__all__", ()) and name not in _NOT_MODELING:
            found = getattr(module, name, None)
            if isinstance(found, types.FunctionType):
                return found
    return None


def _check_builtin_registered_name(config, name):
    """As Keras: a built-in is named by its name alone; a config giving it another
    ``registered_name`` is refused (it may try to pass one object off as another)."""
    registered_name = config.get("registered_name")
    if registered_name and registered_name not in (name, config.get("class_name")):
        raise ValueError(f"`registered_name={registered_name!r}` was provided in the config, "
                         f"but {name!r} resolved to a Keras built-in and does not use "
                         "registered names. Remove the `registered_name` field from the "
                         f"config. Full object config: {config}")


def _function(config, custom_objects):
    name = config.get("config")
    if not isinstance(name, str):
        raise TypeError("Expected 'config' to be a non-null str for a function class name, "
                        f"instead got {type(name).__name__}. Full config: {config}")
    found = registry.get_registered_object(name, custom_objects)
    if found is not None:
        return found
    module = config.get("module")
    if _section(module) is not None or module == "builtins":
        found = _builtin_function(name)
        if found is None:
            try:
                found = (losses.get if _section(module) == "losses" else activations.get)(name)
            except ValueError:
                found = None
        if found is not None:
            _check_builtin_registered_name(config, name)
            return found
    if module == "builtins" and ">" not in name:
        # Keras <= 3.6 saved a registered function by its name alone ("fn", not "pkg>fn")
        for registered_name, obj in registry._with_scopes(custom_objects).items():
            if isinstance(registered_name, str) and registered_name.endswith(f">{name}"):
                return obj
        for registered_name, obj in registry.get_custom_objects().items():
            if registered_name.endswith(f">{name}"):
                return obj
    raise ValueError(f"Could not locate function {name!r} (module {module!r}). Register it "
                     f"with @register_keras_serializable() or pass custom_objects="
                     f"{{{name!r}: {name}}}. Deserialization never imports modules named in "
                     "a config.")


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """The object ``config`` describes (see ``serialize_keras_object``). ``module_objects``
    (a ``{name: class or function}`` table) and ``printable_module_name`` are Keras's
    legacy arguments; a name in ``custom_objects`` is returned as it is."""
    module_objects = kwargs.pop("module_objects", None)
    kwargs.pop("printable_module_name", None)
    if kwargs:
        raise TypeError(f"Unexpected arguments {sorted(kwargs)}.")
    in_scope = scope.in_safe_mode()
    safe_mode = in_scope if in_scope is not None else safe_mode
    custom_objects = registry._with_scopes(custom_objects)
    if config is None:
        return None
    if isinstance(config, str) and custom_objects.get(config) is not None:
        return custom_objects[config]
    if isinstance(config, (list, tuple)):
        return [deserialize_keras_object(value, custom_objects, safe_mode) for value in config]
    if module_objects is not None:
        found = _from_module_objects(config, module_objects, custom_objects, safe_mode)
        if found is not None:
            return found
    if isinstance(config, _PLAIN):
        return config
    if not isinstance(config, dict):
        raise TypeError(f"Could not parse config: {config!r}")
    if "class_name" not in config or "config" not in config:
        return {key: deserialize_keras_object(value, custom_objects, safe_mode)
                for key, value in config.items()}
    class_name = config["class_name"]
    if class_name in values.SPECIAL_CLASSES:
        return values.decode_value(config, safe_mode=safe_mode)
    if class_name == "function":
        return _function(config, custom_objects)
    if class_name == "__typespec__":
        if not isinstance(config["config"], (list, tuple)):
            raise TypeError("Expected 'config' to be a list or a tuple for a __typespec__ "
                            f"class name, instead got {type(config['config']).__name__}. "
                            f"Full config: {config}")
        raise ValueError("A __typespec__ config describes a TensorFlow TypeSpec, which has no "
                         f"meaning in kgraph (JAX only). Full config: {config}")
    if not isinstance(config["config"], (dict, type(None))):
        raise TypeError(f"Expected 'config' to be a dict for {class_name}, instead got "
                        f"{type(config['config']).__name__}. Full config: {config}")
    try:
        cls = registry.resolve_class(config, custom_objects)
    except ValueError:
        section = _section(config.get("module"))
        if class_name in ("DTypePolicy", "DTypePolicyMap"):  # Keras writes module "keras"
            section = "dtype_policies"
        if section in _CATALOGS:
            return _CATALOGS[section].deserialize(config, custom_objects)
        raise
    if isinstance(cls, type) and issubclass(cls, Layer):
        section = _section(config.get("module"))
        if section in _CATALOGS:  # a catalog's class named as a layer is (``Identity``)
            return _CATALOGS[section].deserialize(config, custom_objects)
        return deserialize_layer(config, custom_objects, safe_mode)
    existing = scope.shared_object(config)
    if existing is not None:
        if type(existing) is not cls:
            raise ValueError(f"Invalid config: shared_object_id {config[scope.SHARED_KEY]!r} "
                             f"names a {type(existing).__name__}, but this config is a "
                             f"{class_name}.")
        return existing
    instance = _instance(cls, config["config"] or {}, custom_objects, safe_mode)
    scope.record(config, instance)
    return instance


# registered custom quantizers are written and read by this module's functions
quantizers.configs.register_keras_object_codec(serialize_keras_object, deserialize_keras_object)
# the Keras objects a layer's config holds are serialized by this module's function
layer_config.serialize_objects_with(serialize_keras_object)
