"""Optimizers by Keras name, as optax ``GradientTransformation``s with Keras defaults.

>>> import optax
>>> isinstance(get("adam"), optax.GradientTransformation)
True
"""

from __future__ import annotations

import optax

_BY_NAME = {
    "adam": lambda: optax.adam(1e-3),
    "adamw": lambda: optax.adamw(1e-3, weight_decay=0.004),
    "sgd": lambda: optax.sgd(0.01),
    "rmsprop": lambda: optax.rmsprop(1e-3, decay=0.9, eps=1e-7),
    "adagrad": lambda: optax.adagrad(1e-3),
    "nadam": lambda: optax.nadam(1e-3),
    "lion": lambda: optax.lion(1e-3),
}


def get(identifier) -> optax.GradientTransformation:
    """An optax transformation: given one, or made from a Keras name."""
    if isinstance(identifier, optax.GradientTransformation):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(f"Unknown optimizer {identifier!r}. Pass an optax GradientTransformation "
                     f"or one of {sorted(_BY_NAME)}.")
