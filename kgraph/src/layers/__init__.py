"""``keras.src.layers``: Keras's internal layer modules whose private names code written
for Keras imports (the layers themselves are ``kgraph.layers``)."""

from kgraph.src.layers import core

__all__ = ["core"]
