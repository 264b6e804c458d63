"""``keras.src.losses.losses``: the loss base classes libraries subclass."""

from kgraph.losses.losses import Loss, LossFunctionWrapper

__all__ = ["Loss", "LossFunctionWrapper"]
