"""``keras.src.backend.jax.trainer``: ``JAXTrainer``, Keras's name for the training surface a
layer is mixed with to train (``kgraph.models.trainer.Trainer``; kgraph's models are JAX's).

>>> import kgraph as kg
>>> issubclass(kg.Model, JAXTrainer)
True
"""

from kgraph.models.trainer import Trainer as JAXTrainer

__all__ = ["JAXTrainer"]
