"""Weight initializers by Keras name, built on ``jax.nn.initializers``.

An initializer is any ``fn(key, shape, dtype) -> array``. Strings use Keras's names and
defaults (``random_normal`` has stddev 0.05, as in Keras).

>>> import jax
>>> get("glorot_uniform")(jax.random.PRNGKey(0), (3, 4), "float32").shape
(3, 4)
"""

from typing import Callable

import jax
import jax.numpy as jnp

Initializer = Callable


def _constant(value):
    return lambda key, shape, dtype="float32": jnp.full(shape, value, dtype)


_BY_NAME = {
    "zeros": lambda: jax.nn.initializers.zeros,
    "ones": lambda: jax.nn.initializers.ones,
    "glorot_uniform": jax.nn.initializers.glorot_uniform,
    "glorot_normal": jax.nn.initializers.glorot_normal,
    "he_uniform": jax.nn.initializers.he_uniform,
    "he_normal": jax.nn.initializers.he_normal,
    "lecun_uniform": jax.nn.initializers.lecun_uniform,
    "lecun_normal": jax.nn.initializers.lecun_normal,
    "orthogonal": jax.nn.initializers.orthogonal,
    "random_normal": lambda: jax.nn.initializers.normal(0.05),
    "truncated_normal": lambda: jax.nn.initializers.truncated_normal(0.05),
    "random_uniform": lambda: jax.nn.initializers.uniform(0.1),  # then shifted below
}


def get(identifier) -> Initializer:
    """An initializer from a Keras name, a callable, or a number (constant)."""
    if callable(identifier):
        return identifier
    if isinstance(identifier, (int, float)):
        return _constant(identifier)
    if isinstance(identifier, str):
        name = identifier.lower()
        if name == "random_uniform":  # Keras: U(-0.05, 0.05)
            base = jax.nn.initializers.uniform(0.1)
            return lambda key, shape, dtype="float32": base(key, shape, dtype) - 0.05
        if name in _BY_NAME:
            return _BY_NAME[name]()
    raise ValueError(
        f"Unknown initializer {identifier!r}. Expected one of {sorted(_BY_NAME)}, "
        "a number, or a callable fn(key, shape, dtype)."
    )
