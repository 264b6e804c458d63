"""Optimizers: Keras 3's classes on optax (each an optax ``GradientTransformation``),
learning-rate ``schedules``, names (``get("adam")``) and weight-path masks.

>>> import optax
>>> isinstance(get("adam"), optax.GradientTransformation)
True
"""

from runtime.optimizers import schedules
from runtime.optimizers.base import Optimizer
from runtime.optimizers.keras_optimizers import (SGD, Adadelta, Adafactor, Adagrad, Adam, AdamW,
                                                 Adamax, Lion, Nadam, RMSprop)
from runtime.optimizers.names import get, mask_by_path


def serialize(optimizer) -> dict:
    """Keras's ``{"module", "class_name", "config"}`` of an optimizer."""
    return {"module": "keras.optimizers", "class_name": type(optimizer).__name__,
            "config": optimizer.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """An optimizer from ``serialize``'s output (or a name)."""
    if isinstance(config, dict) and custom_objects and config.get("class_name") in custom_objects:
        return custom_objects[config["class_name"]].from_config(config.get("config") or {})
    return get(config)


__all__ = ["Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "Lion", "Nadam",
           "Optimizer", "RMSprop", "SGD", "deserialize", "get", "mask_by_path", "schedules",
           "serialize"]
