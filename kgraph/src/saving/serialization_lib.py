"""``keras.src.saving.serialization_lib``: Keras's object (de)serialization, and whether the
deserialization running now is in safe mode.

>>> in_safe_mode() is None   # outside any deserialization
True
"""

from kgraph.saving import deserialize_keras_object, serialize_keras_object
from kgraph.saving.scope import in_safe_mode

__all__ = ["deserialize_keras_object", "in_safe_mode", "serialize_keras_object"]
