"""``keras.src.backend``: a tensor's Keras mask (``_keras_mask``), read and attached;
whether the symbolic stage is on (``in_symbolic_scope``)."""

from kgraph.base.symbolic_scope import in_symbolic_scope
from kgraph.interpreter.masking import get_keras_mask, set_keras_mask

__all__ = ["get_keras_mask", "in_symbolic_scope", "set_keras_mask"]
