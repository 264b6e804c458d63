"""runtime: training and running compiled kgraph models.

>>> import jax, optax, kgraph as kg
>>> from runtime import Trainer
>>> x = kg.Input(shape=(4,))
>>> trainer = Trainer(kg.Model(x, kg.layers.Dense(1)(x)), optax.sgd(0.1), "mse")
"""

from runtime import losses, metrics, optimizers
from runtime.history import History
from runtime.trainer import Trainer, TrainState

__all__ = ["History", "TrainState", "Trainer", "losses", "metrics", "optimizers"]
