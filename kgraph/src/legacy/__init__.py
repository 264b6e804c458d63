"""``keras.src.legacy``: Keras's legacy formats (``saving``)."""

from kgraph.src.legacy import saving

__all__ = ["saving"]
