"""``keras.src.trainers``."""

from kgraph.src.trainers import data_adapters

__all__ = ["data_adapters"]
