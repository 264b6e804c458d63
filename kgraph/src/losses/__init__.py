"""``keras.src.losses``."""

from kgraph.src.losses import losses

__all__ = ["losses"]
