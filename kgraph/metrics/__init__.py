"""``keras.metrics``: Keras 3's metrics, by Keras's names.

Loaded on first use of ``kgraph.metrics`` (``import kgraph`` stays light).

>>> import kgraph as kg, jax.numpy as jnp
>>> m = kg.metrics.MeanAbsoluteError()
>>> float(m.result(m.update(m.init(), jnp.zeros((2, 1)), jnp.ones((2, 1)))))
1.0
"""

import inspect

from kgraph.metrics.metrics import *  # noqa: F401,F403 - the public catalog
from kgraph.losses.functions import (binary_focal_crossentropy,  # noqa: F401
                                    categorical_focal_crossentropy)
from kgraph.serializable import catalog, from_keras_object_config, keras_object_config
from kgraph.losses.losses import Loss
from kgraph.metrics.metric import Metric
from kgraph.metrics.metrics import __all__ as _names


def serialize(metric) -> dict:
    """Keras's ``{"module", "class_name", "config"}`` of a metric."""
    return keras_object_config(metric, "keras.metrics")


def deserialize(config, custom_objects=None):
    """A metric from ``serialize``'s output (or a name). Keras writes every metric's
    ``dtype``; a class that takes none (``LossMetric``, which accumulates in float32)
    reads a float32 (or no) dtype."""
    classes = catalog(globals(), (Metric, Loss))  # a loss may serve as a metric
    cls = classes.get(config.get("class_name")) if isinstance(config, dict) else None
    inner = config.get("config") if isinstance(config, dict) else None
    if isinstance(cls, type) and isinstance(inner, dict) and "dtype" in inner and \
            "dtype" not in inspect.signature(cls.__init__).parameters:
        if inner["dtype"] not in (None, "float32"):
            raise ValueError(f"Metric {cls.__name__} accumulates in float32; received "
                             f"dtype={inner['dtype']!r}.")
        config = {**config, "config": {k: v for k, v in inner.items() if k != "dtype"}}
    return from_keras_object_config(config, custom_objects, classes, "metric", get)


__all__ = [*_names, "binary_focal_crossentropy", "categorical_focal_crossentropy",
           "deserialize", "serialize"]
