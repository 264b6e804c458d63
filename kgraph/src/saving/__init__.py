"""``keras.src.saving``: Keras's names of this path (``keras.src.saving.load_model``, ...), which
are kgraph's (``kgraph.saving``), and its modules."""

from kgraph.saving import (CustomObjectScope, custom_object_scope, deserialize_keras_object,
                           get_custom_objects, get_registered_name, get_registered_object,
                           load_model, register_keras_serializable, serialize_keras_object)
from kgraph.src.saving import object_registration, saving_lib, serialization_lib

__all__ = ["CustomObjectScope", "custom_object_scope", "deserialize_keras_object",
           "get_custom_objects", "get_registered_name", "get_registered_object", "load_model",
           "object_registration", "register_keras_serializable", "saving_lib",
           "serialization_lib", "serialize_keras_object"]
