"""``keras.losses``: Keras 3's loss classes and functions, by Keras's names.

Loaded on first use of ``kgraph.losses`` (``import kgraph`` stays light).

>>> import kgraph as kg, jax.numpy as jnp
>>> kg.losses.mean_squared_error(jnp.zeros((1, 2)), jnp.ones((1, 2))).tolist()
[1.0]
>>> float(kg.losses.MeanSquaredError()(jnp.zeros((1, 2)), jnp.ones((1, 2))))
1.0
"""

from kgraph.losses.functions import (binary_crossentropy, binary_focal_crossentropy,  # noqa: F401
                                    categorical_crossentropy, categorical_focal_crossentropy,
                                    categorical_generalized_cross_entropy, categorical_hinge,
                                    circle, cosine_similarity, ctc, dice, hinge, huber,
                                    kl_divergence, log_cosh, tversky,
                                    mean_absolute_error, mean_absolute_percentage_error,
                                    mean_squared_error, mean_squared_logarithmic_error, poisson,
                                    sparse_categorical_crossentropy, squared_hinge)
from kgraph.losses.losses import *  # noqa: F401,F403 - the public catalog
import inspect

from kgraph.serializable import catalog, from_keras_object_config, keras_object_config
from kgraph.losses.losses import Loss, __all__ as _classes, as_loss

# Keras's short names of loss functions (``losses.get("mse")`` is ``mean_squared_error``)
_FUNCTION_ALIASES = {"bce": binary_crossentropy, "kld": kl_divergence, "mae": mean_absolute_error,
                     "mape": mean_absolute_percentage_error, "mse": mean_squared_error,
                     "msle": mean_squared_logarithmic_error}


def serialize(loss):
    """A loss's Keras config (a class's ``{"class_name", "config"}``, or a function's name)."""
    if hasattr(loss, "get_config"):
        return keras_object_config(loss, "keras.losses")
    return getattr(loss, "__name__", loss)


def deserialize(config, custom_objects=None):
    """A loss from ``serialize``'s output (or a name)."""
    return from_keras_object_config(config, custom_objects, catalog(globals(), Loss), "loss",
                                    as_loss)


def get(identifier):
    """Keras's ``losses.get``: a loss function by its name or alias (``"mse"`` gives
    ``mean_squared_error``), an instance of a class by its name, an object from its config
    dict; a callable is returned as it is, None stays None.

    >>> get("mse") is mean_squared_error, type(get("MeanSquaredError")).__name__
    (True, 'MeanSquaredError')
    """
    if identifier is None:
        return None
    found = identifier
    if isinstance(identifier, dict):
        found = deserialize(identifier)
    elif isinstance(identifier, str):
        names = {**{k: v for k, v in globals().items() if not k.startswith("_")},
                 **_FUNCTION_ALIASES, **{k.upper(): v for k, v in _FUNCTION_ALIASES.items()}}
        found = names.get(identifier)
        if not (inspect.isclass(found) and issubclass(found, Loss)) and not (
                inspect.isfunction(found) and found.__module__ == "kgraph.losses.functions"):
            found = None
    if inspect.isclass(found):
        return found()
    if callable(found):
        return found
    raise ValueError(f"Could not interpret loss identifier: {identifier}")


__all__ = sorted(set(_classes) | {
    "binary_crossentropy", "binary_focal_crossentropy", "categorical_crossentropy",
    "categorical_focal_crossentropy", "categorical_generalized_cross_entropy",
    "categorical_hinge", "circle", "cosine_similarity", "ctc", "dice", "hinge", "huber",
    "kl_divergence", "log_cosh", "tversky",
    "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_error",
    "mean_squared_logarithmic_error", "poisson", "sparse_categorical_crossentropy",
    "squared_hinge", "deserialize", "get", "serialize"})
