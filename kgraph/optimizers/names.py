"""Optimizers by Keras name (``get("adam")``).

Names resolve to the Keras optimizer classes (``kgraph.optimizers.keras_optimizers``),
whose learning rate lives in the optimizer state, so callbacks (``ReduceLROnPlateau``) can
change it between steps without recompiling.

>>> import optax
>>> isinstance(get("adam"), optax.GradientTransformation)
True
"""

from __future__ import annotations

import optax

from kgraph.optimizers import keras_optimizers as _classes, keras_optimizers_more as _more
from kgraph.optimizers import keras_optimizers_recent as _recent

__all__ = ["get"]


# by class name in lower case (``"adamw"``) and by default name (``"adam_w"``), as Keras's
_BY_NAME = {name: cls for cls in (
    _classes.SGD, _classes.Adam, _classes.AdamW, _classes.RMSprop, _classes.Adagrad,
    _classes.Adadelta, _classes.Adamax, _classes.Nadam, _classes.Lion, _classes.Adafactor,
    _more.Ftrl, _more.Lamb, _recent.Muon, _recent.ScheduleFreeAdamW)
    for name in (cls.__name__.lower(), cls._default_name)}


def get(identifier) -> optax.GradientTransformation:
    """An optax transformation: given one, or made from a Keras name (None gives None, as
    Keras's ``get``)."""
    if identifier is None:
        return None
    if isinstance(identifier, optax.GradientTransformation):
        return identifier
    if hasattr(identifier, "init") and hasattr(identifier, "update"):  # e.g. optax.MultiSteps
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    if isinstance(identifier, dict) and identifier.get("class_name", "").lower() in _BY_NAME:
        return _BY_NAME[identifier["class_name"].lower()].from_config(
            identifier.get("config") or {})
    raise ValueError(f"Unknown optimizer {identifier!r}. Pass an optax GradientTransformation "
                     f"or one of {sorted(_BY_NAME)}.")
