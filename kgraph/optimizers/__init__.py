"""``keras.optimizers``: Keras 3's classes on optax (each an optax ``GradientTransformation``),
learning-rate ``schedules`` and names (``get("adam")``).

>>> import optax
>>> isinstance(get("adam"), optax.GradientTransformation)
True
"""

from kgraph.serializable import from_keras_object_config
from kgraph.optimizers import legacy, schedules
from kgraph.optimizers.base import Optimizer, keras_classes, to_keras_config
from kgraph.optimizers.keras_optimizers import (SGD, Adadelta, Adafactor, Adagrad, Adam, AdamW,
                                                 Adamax, Lion, Nadam, RMSprop)
from kgraph.optimizers.keras_optimizers_more import Ftrl, Lamb
from kgraph.optimizers.keras_optimizers_recent import Muon, ScheduleFreeAdamW
from kgraph.optimizers.multi_optimizer import MultiOptimizer, OptimizerMap
from kgraph.optimizers.loss_scale_optimizer import LossScaleOptimizer
from kgraph.optimizers.names import get


def serialize(optimizer) -> dict:
    """Keras's ``{"module", "class_name", "config"}`` of an optimizer."""
    return to_keras_config(optimizer)


def deserialize(config, custom_objects=None):
    """An optimizer from ``serialize``'s output (or a name)."""
    classes = {**keras_classes(), "OptimizerMap": OptimizerMap}
    return from_keras_object_config(config, custom_objects, classes, "optimizer", get)


__all__ = ["Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "Ftrl", "Lamb",
           "Lion", "LossScaleOptimizer", "Muon", "MultiOptimizer", "Nadam", "OptimizerMap",
           "ScheduleFreeAdamW",
           "Optimizer", "RMSprop", "SGD", "deserialize", "get", "legacy", "schedules",
           "serialize"]
