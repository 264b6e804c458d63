"""Training checkpoints: ``CheckpointManager`` (on orbax) for any training loop, and the
callbacks ``BackupAndRestore`` (resume a killed ``fit`` exactly) and ``ModelCheckpoint``
(keep the model, or the best one) for ``fit``."""

from runtime.checkpoints.backup import BackupAndRestore
from runtime.checkpoints.manager import CheckpointManager, Restored
from kgraph.callbacks.model_checkpoint import ModelCheckpoint

__all__ = ["BackupAndRestore", "CheckpointManager", "ModelCheckpoint", "Restored"]
