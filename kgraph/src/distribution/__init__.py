"""``keras.src.distribution``."""

from kgraph.src.distribution import distribution_lib

__all__ = ["distribution_lib"]
