"""``keras.src.backend.jax``: Keras's JAX backend, as far as kgraph has its internals
(``trainer``); its other names are those of ``keras.src.backend``."""

from kgraph.src.backend.jax import trainer

__all__ = ["trainer"]
