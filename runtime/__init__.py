"""runtime: training and running compiled kgraph models.

The Keras objects a run uses (losses, metrics, optimizers, callbacks) are kgraph's; the
names below that come from ``kgraph`` are re-exported for code that imports them from here.

>>> import jax, optax, kgraph as kg
>>> from runtime import Trainer
>>> x = kg.Input(shape=(4,))
>>> trainer = Trainer(kg.Model(x, kg.layers.Dense(1)(x)), optax.sgd(0.1), "mse")
"""

import sys as _sys

from kgraph import callbacks, optimizers
from kgraph.callbacks import (CSVLogger, Callback, EarlyStopping, LambdaCallback,
                              ModelCheckpoint, ReduceLROnPlateau, TerminateOnNaN)
from kgraph.callbacks.history import History
from kgraph.losses import losses
from kgraph.metrics import metrics
from runtime import packing, planning, sharding
from runtime.checkpoints import CheckpointManager
from runtime.checkpoints.backup import BackupAndRestore
from runtime.fit_loop import FitLoop
from runtime.optimizer_masks import mask_by_path
from runtime.packing import Packed
from runtime.planning import Plan, plan
from runtime.precision import Precision
from runtime.remat import Remat
from runtime.sharding import ShardingReport, ShardingRules
from runtime.trainer import Trainer, TrainState
from runtime.training_setup import TrainingSetup

# ``runtime.losses`` and its siblings, as modules, where they were before they moved to kgraph.
for _name, _module in (("callbacks", callbacks), ("losses", losses), ("metrics", metrics),
                       ("optimizers", optimizers), ("optimizers.schedules", optimizers.schedules)):
    _sys.modules.setdefault(f"runtime.{_name}", _module)

__all__ = ["BackupAndRestore", "CSVLogger", "Callback", "CheckpointManager",
           "EarlyStopping", "FitLoop", "History", "LambdaCallback", "ModelCheckpoint",
           "Packed", "Plan", "Precision", "ReduceLROnPlateau", "Remat", "ShardingReport",
           "ShardingRules", "TerminateOnNaN", "TrainState", "Trainer", "TrainingSetup",
           "callbacks", "losses", "mask_by_path", "metrics", "optimizers", "packing", "plan",
           "planning", "sharding"]
