"""Serialization: layers and models to configs and files (Keras 3's formats) and back, safely.

Files: ``save_model`` / ``load_model`` (``.keras``, and legacy ``.h5`` models),
``save_weights`` / ``load_weights`` (``.weights.h5``, sharded ``.weights.json``, legacy
``.h5`` weights); see ``keras_file``, and ``saving_api`` for Keras's arguments. Configs:

A layer serializes to ``{"module", "class_name", "config", "registered_name"}`` (plus
``"build_config"`` when its input shape is known); a ``Functional`` model's config is Keras
3's functional format (``functional_config``). Deserializing never imports modules or
evaluates code from the config: a class is found among kgraph's own layers, classes
registered with ``register_layer`` (Keras's ``register_keras_serializable``), or the
``custom_objects`` given (``registry``). A model is rebuilt by constructing those classes
and calling them on KerasTensors; a layer shared across nesting levels is rebuilt once
(``scope``). Layers whose config carries code (``Lambda``, or a class with
``unsafe_deserialization = True``) are refused unless ``safe_mode=False``. A malformed
config raises ``ConfigError`` (a ValueError) naming its config path, before anything is
built (``validation``).

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,), name="x")
>>> model = kg.Model(x, kg.layers.Dense(2, name="d")(x) * 2 + 1, name="m")
>>> clone = kg.model_from_json(model.to_json())
>>> [layer.name for layer in clone.layers] == [layer.name for layer in model.layers]
True
"""

from kgraph.base import catalog
from kgraph.saving import registry, validation
from kgraph.saving.functional_config import functional_from_config, functional_get_config
from kgraph.saving.json_format import model_from_config, model_from_json, to_json
from kgraph.saving.layer_config import call_from_config, deserialize_layer, serialize_layer
from kgraph.saving.object_config import deserialize_keras_object, serialize_keras_object
from kgraph.saving.registry import (CustomObjectScope, custom_object_scope,
                                    get_custom_objects, get_registered_name,
                                    get_registered_object, register_keras_serializable,
                                    register_layer)
from kgraph.saving.validation import MAX_CONFIG_DEPTH, ConfigError
from kgraph.saving.errors import LoadError
from kgraph.saving.saving_api import load_model, load_weights, save_model, save_weights
from kgraph.saving.file_editor import KerasFileEditor

catalog.set_object_codec(serialize_keras_object, deserialize_keras_object)

# Private names of the single-module version, still reachable as kgraph.saving.<name>.
from kgraph.saving.registry import _GLOBAL_CUSTOM_NAMES, _GLOBAL_CUSTOM_OBJECTS  # noqa: F401
from kgraph.saving.values import decode_value as _decode_value  # noqa: F401
from kgraph.saving.values import encode_value as _encode_value  # noqa: F401

__all__ = ["ConfigError", "CustomObjectScope", "KerasFileEditor", "LoadError", "MAX_CONFIG_DEPTH",
           "call_from_config", "custom_object_scope", "deserialize_keras_object",
           "deserialize_layer", "functional_from_config", "functional_get_config",
           "get_custom_objects", "get_registered_name", "get_registered_object",
           "load_model", "load_weights", "model_from_config", "model_from_json",
           "register_keras_serializable", "register_layer", "registry", "save_model",
           "save_weights", "serialize_keras_object", "serialize_layer", "to_json",
           "validation"]
