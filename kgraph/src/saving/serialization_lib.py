"""``keras.src.saving.serialization_lib``: Keras's object (de)serialization, whether the
deserialization running now is in safe mode, and Keras's scopes of both (``SafeModeScope``,
``ObjectSharingScope``: ``kgraph.saving.scope``'s).

>>> in_safe_mode() is None   # outside any deserialization
True
>>> with SafeModeScope(False):
...     in_safe_mode()
False
"""

from kgraph.saving import deserialize_keras_object, serialize_keras_object
from kgraph.saving.scope import ObjectSharingScope, SafeModeScope, in_safe_mode

__all__ = ["ObjectSharingScope", "SafeModeScope", "deserialize_keras_object", "in_safe_mode",
           "serialize_keras_object"]
