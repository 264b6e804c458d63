"""runtime: training and running compiled kgraph models.

>>> import jax, optax, kgraph as kg
>>> from runtime import Trainer
>>> x = kg.Input(shape=(4,))
>>> trainer = Trainer(kg.Model(x, kg.layers.Dense(1)(x)), optax.sgd(0.1), "mse")
"""

from runtime import callbacks, losses, metrics, optimizers, packing, sharding
from runtime.callbacks import (BackupAndRestore, CSVLogger, Callback, EarlyStopping,
                               LambdaCallback, ModelCheckpoint, ReduceLROnPlateau,
                               TerminateOnNaN)
from runtime.checkpoints import CheckpointManager
from runtime.fit_loop import FitLoop
from runtime.history import History
from runtime.optimizers import mask_by_path
from runtime.packing import Packed
from runtime.precision import Precision
from runtime.remat import Remat
from runtime.sharding import ShardingReport, ShardingRules
from runtime.trainer import Trainer, TrainState
from runtime.training_setup import TrainingSetup

__all__ = ["BackupAndRestore", "CSVLogger", "Callback", "CheckpointManager",
           "EarlyStopping", "FitLoop", "History", "LambdaCallback", "ModelCheckpoint",
           "Packed", "Precision", "ReduceLROnPlateau", "Remat", "ShardingReport", "ShardingRules",
           "TerminateOnNaN", "TrainState", "Trainer", "TrainingSetup", "callbacks",
           "losses", "mask_by_path", "metrics", "optimizers", "packing", "sharding"]
