"""``keras.src.backend``: a tensor's Keras mask (``_keras_mask``), read and attached."""

from kgraph.interpreter.masking import get_keras_mask, set_keras_mask

__all__ = ["get_keras_mask", "set_keras_mask"]
