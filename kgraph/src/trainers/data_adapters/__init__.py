"""``keras.src.trainers.data_adapters``."""

from kgraph.src.trainers.data_adapters import data_adapter_utils

__all__ = ["data_adapter_utils"]
