"""Optimizers by Keras name, as optax ``GradientTransformation``s with Keras defaults.

Named optimizers are built with ``optax.inject_hyperparams``, so their learning rate
lives in the optimizer state and callbacks (``ReduceLROnPlateau``) can change it between
steps without recompiling.

>>> import optax
>>> isinstance(get("adam"), optax.GradientTransformation)
True
"""

from __future__ import annotations

import optax

_inject = optax.inject_hyperparams
_BY_NAME = {
    "adam": lambda: _inject(optax.adam)(learning_rate=1e-3, b1=0.9, b2=0.999, eps=1e-7),
    "adamw": lambda: _inject(optax.adamw)(learning_rate=1e-3, b1=0.9, b2=0.999, eps=1e-7,
                                          weight_decay=0.004),
    "sgd": lambda: _inject(optax.sgd)(learning_rate=0.01),
    "rmsprop": lambda: _inject(optax.rmsprop)(learning_rate=1e-3, decay=0.9, eps=1e-7),
    "adagrad": lambda: _inject(optax.adagrad)(learning_rate=1e-3),
    "nadam": lambda: _inject(optax.nadam)(learning_rate=1e-3, eps=1e-7),
    "lion": lambda: _inject(optax.lion)(learning_rate=1e-3),
}


def get(identifier) -> optax.GradientTransformation:
    """An optax transformation: given one, or made from a Keras name."""
    if isinstance(identifier, optax.GradientTransformation):
        return identifier
    if hasattr(identifier, "init") and hasattr(identifier, "update"):  # e.g. optax.MultiSteps
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(f"Unknown optimizer {identifier!r}. Pass an optax GradientTransformation "
                     f"or one of {sorted(_BY_NAME)}.")


def mask_by_path(predicate):
    """A mask function for optax's ``mask=`` arguments, from a predicate on weight paths.

    ``predicate(path)`` gets a weight's path as a tuple of names, e.g.
    ``("block_1", "dense", "kernel")``, and returns True where the transformation applies.

    >>> import jax.numpy as jnp, optax
    >>> decay_kernels = mask_by_path(lambda path: path[-1] == "kernel")
    >>> decay_kernels({"dense": {"kernel": jnp.ones(2), "bias": jnp.ones(2)}})
    {'dense': {'bias': False, 'kernel': True}}
    >>> opt = optax.adamw(1e-3, weight_decay=1e-4, mask=decay_kernels)
    """
    import jax

    def mask(params):
        return jax.tree_util.tree_map_with_path(
            lambda path, _: bool(predicate(tuple(getattr(k, "key", getattr(k, "name", k))
                                                 for k in path))), params)

    return mask
