"""Optimizers: Keras 3's classes on optax (each an optax ``GradientTransformation``),
learning-rate ``schedules``, names (``get("adam")``) and weight-path masks.

>>> import optax
>>> isinstance(get("adam"), optax.GradientTransformation)
True
"""

from kgraph.serializable import from_keras_object_config, keras_object_config
from runtime.optimizers import schedules
from runtime.optimizers.base import Optimizer
from runtime.optimizers.keras_optimizers import (SGD, Adadelta, Adafactor, Adagrad, Adam, AdamW,
                                                 Adamax, Lion, Nadam, RMSprop)
from runtime.optimizers.keras_optimizers_more import Ftrl, Lamb
from runtime.optimizers.names import get, mask_by_path


def serialize(optimizer) -> dict:
    """Keras's ``{"module", "class_name", "config"}`` of an optimizer."""
    return keras_object_config(optimizer, "keras.optimizers")


def deserialize(config, custom_objects=None):
    """An optimizer from ``serialize``'s output (or a name)."""
    classes = {cls.__name__: cls for cls in (SGD, Adadelta, Adafactor, Adagrad, Adam, AdamW,
                                             Adamax, Ftrl, Lamb, Lion, Nadam, RMSprop)}
    return from_keras_object_config(config, custom_objects, classes, "optimizer", get)


__all__ = ["Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "Ftrl", "Lamb",
           "Lion", "Nadam",
           "Optimizer", "RMSprop", "SGD", "deserialize", "get", "mask_by_path", "schedules",
           "serialize"]
