"""Activation functions by Keras name, from ``jax.nn``.

>>> import jax.numpy as jnp
>>> get("relu")(jnp.array([-1.0, 2.0])).tolist()
[0.0, 2.0]
"""

import jax
import jax.numpy as jnp


def linear(x):
    return x


def softmax(x, axis=-1):
    return jax.nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    return jax.nn.log_softmax(x, axis=axis)


def hard_sigmoid(x):  # Keras 3 definition: relu6(x + 3) / 6
    return jax.nn.relu6(x + 3.0) / 6.0


def mish(x):
    return x * jnp.tanh(jax.nn.softplus(x))


_BY_NAME = {
    "linear": linear, "relu": jax.nn.relu, "relu6": jax.nn.relu6, "sigmoid": jax.nn.sigmoid,
    "tanh": jnp.tanh, "softmax": softmax, "log_softmax": log_softmax,
    "gelu": jax.nn.gelu, "silu": jax.nn.silu, "swish": jax.nn.silu, "elu": jax.nn.elu,
    "selu": jax.nn.selu, "softplus": jax.nn.softplus, "softsign": jax.nn.soft_sign,
    "exponential": jnp.exp, "hard_sigmoid": hard_sigmoid, "hard_silu": jax.nn.hard_silu,
    "hard_swish": jax.nn.hard_silu, "mish": mish, "leaky_relu": jax.nn.leaky_relu,
}


def get(identifier):
    """An activation from a Keras name, a callable, or None (linear)."""
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]
    raise ValueError(f"Unknown activation {identifier!r}. Expected a callable or one of "
                     f"{sorted(_BY_NAME)}.")


def name_of(fn) -> str:
    """The Keras name of an activation (for get_config), else its function name."""
    for name, candidate in _BY_NAME.items():
        if candidate is fn:
            return name
    return getattr(fn, "__name__", repr(fn))
