"""The parts of a ``FeatureSpace``: ``Feature`` (a dtype, a preprocessing layer and how its
output is encoded) and ``Cross`` (features hashed together), with Keras 3's arguments,
checks and configs; and the entries Keras's ``.keras`` files use for them.

>>> from kgraph import layers
>>> feature = Feature("int32", layers.IntegerLookup(), "one_hot")
>>> feature.output_mode, type(feature.preprocessor).__name__
('one_hot', 'IntegerLookup')
>>> Cross(("a", "b"), crossing_dim=8).name
'a_X_b'
"""

from __future__ import annotations

from kgraph.base.layer import Layer
from kgraph.saving.layer_config import deserialize_layer, serialize_layer

__all__ = ["KERAS_MODULE", "PRIVATE_LAYERS", "Cross", "Feature", "from_entry", "identity",
           "keras_class_name", "serialize_preprocessor"]

# Keras's module of these classes, as its files name it (kgraph writes the same names so
# that the files load in either library).
KERAS_MODULE = "keras.src.layers.preprocessing.feature_space"


class _Identity(Layer):
    """A float feature's preprocessor: the values as they are (Keras's ``TFDIdentity``)."""

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape


# Classes that configs name and kgraph resolves here (Keras's private identity layer).
PRIVATE_LAYERS = {"TFDIdentity": _Identity}


def identity(name):
    """The preprocessor of a plain float feature (Keras's ``TFDIdentity``)."""
    return _Identity(dtype="float32", name=name)


def keras_class_name(layer) -> str:
    """The class name Keras gives ``layer`` in its files."""
    return "TFDIdentity" if isinstance(layer, _Identity) else type(layer).__name__


def serialize_preprocessor(layer) -> dict:
    config = serialize_layer(layer)
    if isinstance(layer, _Identity):
        config.update(module=KERAS_MODULE, class_name="TFDIdentity",
                      registered_name="TFDIdentity")
    return config


def from_entry(value, cls, owner):
    """``value`` if it is a ``cls``, else the ``cls`` its Keras entry (a dict) describes."""
    if isinstance(value, cls):
        return value
    if not isinstance(value, dict) or value.get("class_name") != cls.__name__ or \
            not isinstance(value.get("config"), dict):
        raise ValueError(f"{owner}: expected a {cls.__name__} or its config (a dict with "
                         f"class_name {cls.__name__!r}), received {value!r:.200}.")
    return cls.from_config(value["config"])


class Cross:
    """Features crossed by hashing their values together into ``crossing_dim`` bins
    (``output_mode`` ``"one_hot"`` or ``"int"``); its ``name`` joins the feature names
    with ``"_X_"``.

    >>> Cross(["x", "y"], 16, output_mode="int").get_config()
    {'feature_names': ('x', 'y'), 'crossing_dim': 16, 'output_mode': 'int'}
    """

    def __init__(self, feature_names, crossing_dim, output_mode="one_hot"):
        if output_mode not in {"int", "one_hot"}:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             f"{{'int', 'one_hot'}}. Received: output_mode={output_mode}")
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self):
        return "_X_".join(self.feature_names)

    def get_config(self):
        return {"feature_names": self.feature_names, "crossing_dim": self.crossing_dim,
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Feature:
    """One feature: its input ``dtype`` (``"float32"``, ``"int32"``, ``"string"``...), the
    layer that ``preprocessor``s it (or that layer's config) and its ``output_mode``
    (``"int"``, ``"one_hot"`` or ``"float"``).

    >>> from kgraph import layers
    >>> Feature("float32", layers.Rescaling(2.0), "float").get_config()["output_mode"]
    'float'
    """

    def __init__(self, dtype, preprocessor, output_mode):
        if output_mode not in {"int", "one_hot", "float"}:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             f"{{'int', 'one_hot', 'float'}}. Received: "
                             f"output_mode={output_mode}")
        self.dtype = dtype
        if isinstance(preprocessor, dict):
            preprocessor = deserialize_layer(preprocessor, custom_objects=PRIVATE_LAYERS)
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self):
        return {"dtype": self.dtype, "preprocessor": serialize_preprocessor(self.preprocessor),
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
