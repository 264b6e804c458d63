"""``keras.src.layers.core``."""

from kgraph.src.layers.core import einsum_dense

__all__ = ["einsum_dense"]
