"""Activation functions by Keras 3 name, with Keras's defaults, written on
``kgraph.ops``: on arrays they compute, on KerasTensors they add a graph node.

Keras's defaults differ from ``jax.nn``'s in places: ``gelu`` is exact
(``approximate=False``) and ``leaky_relu``'s ``negative_slope`` is 0.2.

>>> import jax.numpy as jnp
>>> get("relu")(jnp.array([-1.0, 2.0])).tolist()
[0.0, 2.0]
>>> import kgraph as kg
>>> x = kg.Input(shape=(3,))
>>> softplus(x).shape, type(softplus(x)._keras_history.layer).__name__
((None, 3), 'Operation')
"""

import jax
import jax.numpy as jnp

from kgraph.base import catalog
from kgraph.ops import nn_activations as _ops, numpy as _numpy

__all__ = [
    "celu", "deserialize", "elu", "exponential", "gelu", "get", "glu", "hard_shrink",
    "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu", "linear",
    "log_sigmoid", "log_softmax", "mish", "name_of", "relu", "relu6", "selu", "serialize",
    "sigmoid", "silu", "soft_shrink", "softmax", "softplus", "softsign", "sparse_plus",
    "sparse_sigmoid", "sparsemax", "squareplus", "swish", "tanh", "tanh_shrink", "threshold"
]


def linear(x):
    return x


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Keras's relu: ``x`` above ``threshold`` (clipped at ``max_value``), a
    ``negative_slope`` line below it."""
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return _ops.relu(x)
    if negative_slope != 0.0 and max_value is None and threshold == 0.0:
        return _ops.leaky_relu(x, negative_slope)
    return _ops.relu_activation(x, negative_slope, max_value, threshold)


def relu6(x):
    return _ops.relu6(x)


def leaky_relu(x, negative_slope=0.2):
    return _ops.leaky_relu(x, negative_slope)


def elu(x, alpha=1.0):
    return _ops.elu(x, alpha)


def celu(x, alpha=1.0):
    return _ops.celu(x, alpha)


def selu(x):
    return _ops.selu(x)


def gelu(x, approximate=False):
    """Keras 3's default is the exact (erf) GELU, unlike ``jax.nn.gelu``."""
    return _ops.gelu(x, approximate)


def silu(x):
    return _ops.silu(x)


def sigmoid(x):
    return _ops.sigmoid(x)


def hard_sigmoid(x):
    """Keras 3 definition: ``relu6(x + 3) / 6``."""
    return _ops.hard_sigmoid(x)


def hard_silu(x):
    """``x * hard_sigmoid(x)``."""
    return _ops.hard_silu(x)


def tanh(x):
    return _numpy.tanh(x)


def softmax(x, axis=-1):
    return _ops.softmax(x, axis)


def log_softmax(x, axis=-1):
    return _ops.log_softmax(x, axis)


def softplus(x):
    return _ops.softplus(x)


def softsign(x):
    return _ops.softsign(x)


def exponential(x):
    return _numpy.exp(x)


def mish(x):
    """``x * tanh(softplus(x))``."""
    return _ops.mish_activation(x)


def log_sigmoid(x):
    return _ops.log_sigmoid(x)


def hard_tanh(x):
    return _ops.hard_tanh(x)


def tanh_shrink(x):
    return _ops.tanh_shrink(x)


def soft_shrink(x, threshold=0.5):
    return _ops.soft_shrink(x, threshold)


def hard_shrink(x, threshold=0.5):
    return _ops.hard_shrink(x, threshold)


def sparse_plus(x):
    return _ops.sparse_plus(x)


def sparse_sigmoid(x):
    return _ops.sparse_sigmoid(x)


def squareplus(x, b=4):
    return _ops.squareplus(x, b)


def glu(x, axis=-1):
    return _ops.glu(x, axis)


def sparsemax(x, axis=-1):
    """Euclidean projection onto the probability simplex (``ops.sparsemax``)."""
    return _ops.sparsemax(x, axis)


def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    return _ops.threshold(x, threshold, default_value)


swish = silu  # Keras's other names for the same functions
hard_swish = hard_silu

_BY_NAME = {
    "linear": linear, "relu": relu, "relu6": relu6, "leaky_relu": leaky_relu, "elu": elu,
    "celu": celu, "selu": selu, "gelu": gelu, "silu": silu, "swish": silu, "sigmoid": sigmoid,
    "hard_sigmoid": hard_sigmoid, "hard_silu": hard_silu, "hard_swish": hard_silu,
    "tanh": tanh, "softmax": softmax, "log_softmax": log_softmax, "softplus": softplus,
    "softsign": softsign, "exponential": exponential, "mish": mish,
    "log_sigmoid": log_sigmoid, "hard_tanh": hard_tanh, "tanh_shrink": tanh_shrink,
    "soft_shrink": soft_shrink, "hard_shrink": hard_shrink, "sparse_plus": sparse_plus,
    "sparse_sigmoid": sparse_sigmoid, "squareplus": squareplus, "glu": glu,
    "sparsemax": sparsemax,
}
# jax.nn functions passed as callables serialize under their Keras name (same semantics).
_ALIASES = {jax.nn.relu: "relu", jax.nn.relu6: "relu6", jax.nn.sigmoid: "sigmoid",
            jnp.tanh: "tanh", jax.nn.silu: "silu", jax.nn.selu: "selu",
            jax.nn.softplus: "softplus", jax.nn.soft_sign: "softsign", jnp.exp: "exponential",
            jax.nn.hard_sigmoid: "hard_sigmoid", jax.nn.hard_silu: "hard_silu",
            jax.nn.mish: "mish", jax.nn.log_sigmoid: "log_sigmoid"}


def get(identifier):
    """An activation from a Keras name, a callable, a serialized name dict, an object's config
    (a layer used as activation), or None (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, dict) and isinstance(identifier.get("config"), str):
        identifier = identifier["config"]
    if isinstance(identifier, dict) and isinstance(identifier.get("config"), dict):
        identifier = catalog.object_from_config(identifier)  # an object's (a layer's)
    if isinstance(identifier, str):
        if identifier in _BY_NAME:
            return _BY_NAME[identifier]
        custom = catalog.get_registered_object(identifier)  # custom_objects of an open scope
        if callable(custom):
            return custom
    elif callable(identifier):
        return identifier
    raise ValueError(f"Unknown activation {identifier!r}. Expected a callable or one of "
                     f"{sorted(_BY_NAME)}.")


def name_of(fn) -> str:
    """The Keras name of an activation (for get_config), else its function name."""
    for name, candidate in _BY_NAME.items():
        if candidate is fn:
            return name
    try:
        if fn in _ALIASES:
            return _ALIASES[fn]
    except TypeError:  # unhashable callable
        pass
    return getattr(fn, "__name__", repr(fn))


def serialize(fn):
    """Keras's ``activations.serialize``: a built-in's name; for a function registered with
    ``register_keras_serializable``, Keras's function entry naming it; for an object with
    ``get_config`` (a layer used as activation), its config."""
    if catalog.registered_name_of(fn) is not None:
        return catalog.function_entry(fn)
    if hasattr(fn, "get_config") and not isinstance(fn, type):  # an object (a ReLU layer)
        return catalog.object_config(fn)
    return name_of(fn)


deserialize = get
