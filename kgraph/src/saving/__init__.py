"""``keras.src.saving``."""

from kgraph.src.saving import saving_lib, serialization_lib

__all__ = ["saving_lib", "serialization_lib"]
