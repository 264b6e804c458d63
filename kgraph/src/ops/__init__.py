"""``keras.src.ops``: Keras's ops namespace as its own code reads it, which also holds the
backend's random module (``ops.random.uniform``); the ops themselves are ``kgraph.ops``."""

from kgraph import random

__all__ = ["random"]
