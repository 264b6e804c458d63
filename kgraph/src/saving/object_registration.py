"""``keras.src.saving.object_registration``: Keras's registry of custom classes and functions,
which is kgraph's (``kgraph.saving.registry``): ``GLOBAL_CUSTOM_OBJECTS`` maps each
registered name (``"package>name"``) to its object, ``GLOBAL_CUSTOM_NAMES`` each object to
its registered name; both are the registry's own dicts, not copies.

>>> from kgraph.saving import registry
>>> GLOBAL_CUSTOM_NAMES is registry._GLOBAL_CUSTOM_NAMES
True
"""

from kgraph.saving.registry import (_GLOBAL_CUSTOM_NAMES, _GLOBAL_CUSTOM_OBJECTS,
                                    CustomObjectScope, custom_object_scope, get_custom_objects,
                                    get_registered_name, get_registered_object,
                                    register_keras_serializable)

GLOBAL_CUSTOM_OBJECTS = _GLOBAL_CUSTOM_OBJECTS
GLOBAL_CUSTOM_NAMES = _GLOBAL_CUSTOM_NAMES

__all__ = ["GLOBAL_CUSTOM_NAMES", "GLOBAL_CUSTOM_OBJECTS", "CustomObjectScope",
           "custom_object_scope", "get_custom_objects", "get_registered_name",
           "get_registered_object", "register_keras_serializable"]
