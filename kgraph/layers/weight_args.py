"""A layer's per-weight arguments: ``<weight>_initializer``, ``<weight>_regularizer`` and
``<weight>_constraint`` (``kernel_initializer``, ``bias_regularizer``, ...): stored on the
layer, used to create the weight, and written to the config in Keras 3's order.

>>> import kgraph as kg
>>> layer = kg.layers.Conv1D(2, 3, kernel_regularizer="l2")
>>> list(weight_config(layer, "kernel", "bias", activity=True))  # doctest: +NORMALIZE_WHITESPACE
['kernel_initializer', 'bias_initializer', 'kernel_regularizer', 'bias_regularizer',
 'activity_regularizer', 'kernel_constraint', 'bias_constraint']
"""

from __future__ import annotations

from kgraph import constraints, initializers, regularizers

__all__ = [
    "add_weight", "serialize_initializer", "set_weight_args", "weight_config"
]


def serialize_initializer(identifier, strict=True):
    """``initializers.serialize(identifier)``; with ``strict=False`` an initializer it
    cannot serialize (a plain function) is left as given."""
    try:
        return initializers.serialize(identifier)
    except (TypeError, ValueError):
        if strict:
            raise
        return identifier


def set_weight_args(layer, weight, initializer, regularizer=None, constraint=None):
    """Store ``<weight>_initializer`` (as given) and the resolved ``<weight>_regularizer``
    and ``<weight>_constraint`` on ``layer``."""
    if not (isinstance(initializer, str) and initializer.lower() in ("uniform", "normal")):
        initializers.get(initializer)  # an unknown name fails now, not at build
    setattr(layer, f"{weight}_initializer", initializer)
    setattr(layer, f"{weight}_regularizer", regularizers.get(regularizer))
    setattr(layer, f"{weight}_constraint", constraints.get(constraint))


def add_weight(layer, weight, shape, initializer=None, name=None):
    """``layer.add_weight`` with ``weight``'s stored arguments (``initializer`` overrides
    the stored one, e.g. a wrapped version of it); named ``weight`` unless ``name``."""
    if initializer is None:
        initializer = getattr(layer, f"{weight}_initializer")
    return layer.add_weight(shape, initializer, name=name or weight,
                            regularizer=getattr(layer, f"{weight}_regularizer"),
                            constraint=getattr(layer, f"{weight}_constraint"))


def weight_config(layer, *weights, activity=False, strict=True) -> dict:
    """The config entries of ``weights``' arguments: initializers, regularizers (then
    ``activity_regularizer`` if ``activity``), constraints."""
    config = {f"{w}_initializer": serialize_initializer(getattr(layer, f"{w}_initializer"),
                                                        strict)
              for w in weights}
    config.update({f"{w}_regularizer": regularizers.serialize(getattr(layer, f"{w}_regularizer"))
                   for w in weights})
    if activity:
        config["activity_regularizer"] = regularizers.serialize(layer.activity_regularizer)
    config.update({f"{w}_constraint": constraints.serialize(getattr(layer, f"{w}_constraint"))
                   for w in weights})
    return config
