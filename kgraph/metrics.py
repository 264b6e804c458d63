"""``keras.metrics``: the metrics of ``runtime.metrics``, by Keras's names.

Loaded on first use of ``kgraph.metrics`` (``import kgraph`` does not import ``runtime``).

>>> import kgraph as kg, jax.numpy as jnp
>>> m = kg.metrics.MeanAbsoluteError()
>>> float(m.result(m.update(m.init(), jnp.zeros((2, 1)), jnp.ones((2, 1)))))
1.0
"""

from runtime.metrics import *  # noqa: F401,F403 - the public catalog
from runtime.loss_functions import (binary_focal_crossentropy,  # noqa: F401
                                    categorical_focal_crossentropy)
from runtime.metrics import __all__ as _names


def serialize(metric) -> dict:
    """Keras's ``{"module", "class_name", "config"}`` of a metric."""
    return {"module": "keras.metrics", "class_name": type(metric).__name__,
            "config": metric.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """A metric from ``serialize``'s output (or a name)."""
    if isinstance(config, dict):
        name = config["class_name"]
        cls = (custom_objects or {}).get(name) or globals().get(name)
        if not isinstance(cls, type):
            raise ValueError(f"Unknown metric class {name!r}.")
        return cls.from_config(config.get("config") or {})
    return get(config)


__all__ = [*_names, "binary_focal_crossentropy", "categorical_focal_crossentropy",
           "deserialize", "serialize"]
