"""What regularizers, constraints and initializers share: a config round trip, lookup by
Keras name or config dict, and serialization to ``{"class_name", "config"}``.

>>> from kgraph import regularizers
>>> l2 = lookup("l2", "regularizer", {"l2": regularizers.L2}, {"L2": regularizers.L2},
...             "fn(weight) -> penalty")
>>> to_config(l2, "regularizer", Serializable, "regularizers")
{'class_name': 'L2', 'config': {'l2': 0.01}}
"""

from __future__ import annotations

__all__ = [
    "Serializable", "catalog", "from_config_or_name", "from_keras_object_config",
    "keras_object_config", "lookup", "to_config"
]


class Serializable:
    """An object rebuilt from its ``get_config()`` by ``from_config``."""

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def lookup(identifier, kind, by_name, classes, callable_form):
    """``identifier`` (None, a callable, a Keras name in ``by_name``, the name of one of
    ``classes`` (made with its defaults) or a config dict of one) as an object; ValueError
    naming ``kind`` and the accepted forms."""
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in by_name:
        return by_name[identifier]()
    if isinstance(identifier, str) and identifier in classes:  # a class name, as Keras's get
        return classes[identifier]()
    if isinstance(identifier, dict) and identifier.get("class_name") in classes:
        return classes[identifier["class_name"]].from_config(identifier.get("config", {}))
    raise ValueError(f"Unknown {kind} {identifier!r}. Expected one of {sorted(by_name)}, "
                     f"a config dict, or a callable {callable_form}.")


def from_config_or_name(config, custom_objects, get):
    """Keras's ``deserialize(config, custom_objects)``: a class named in ``custom_objects``
    (instantiated from the config's ``"config"``), else ``get(config)``."""
    if isinstance(config, (str, dict)) and custom_objects:
        name = config if isinstance(config, str) else config.get("class_name")
        if name in custom_objects:
            cls = custom_objects[name]
            return cls(**config.get("config", {})) if isinstance(config, dict) else cls
    return get(config)


def keras_object_config(obj, module) -> dict:
    """Keras's serialized form of an object: ``{"module", "class_name", "config",
    "registered_name"}`` (losses, metrics, optimizers, schedules)."""
    return {"module": module, "class_name": type(obj).__name__, "config": obj.get_config(),
            "registered_name": None}


def catalog(namespace, base) -> dict:
    """``{name: class}`` of the subclasses of ``base`` in ``namespace`` (a module's
    globals): the closed set of classes a config may name."""
    return {name: obj for name, obj in namespace.items()
            if isinstance(obj, type) and issubclass(obj, base)}


def from_keras_object_config(config, custom_objects, classes, kind, get=None):
    """The object a ``keras_object_config`` describes: its class from ``custom_objects`` or
    ``classes`` (a ``{name: class}`` mapping), made with ``from_config``; anything but a
    config dict goes to ``get`` (names, objects)."""
    if not isinstance(config, dict):
        if isinstance(config, str) and custom_objects and config in custom_objects:
            return custom_objects[config]
        if get is None:
            raise ValueError(f"Expected a {kind} config dict, received {config!r}.")
        return get(config)
    name = config.get("class_name")
    cls = (custom_objects or {}).get(name) or classes.get(name)
    if not isinstance(cls, type):
        raise ValueError(f"Unknown {kind} class {name!r} in config {config!r}.")
    return cls.from_config(config.get("config") or {})


def to_config(obj, kind, base, module):
    """``{"class_name", "config"}`` for an instance of ``base`` (None stays None)."""
    if obj is None:
        return None
    if isinstance(obj, base):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    raise ValueError(f"Cannot serialize {kind} {obj!r}: use a kgraph.{module} object or name.")
