"""``keras.callbacks``: Keras 3's callbacks, by Keras's names.

``BackupAndRestore`` checkpoints the runtime's whole train state, so it is the runtime's
(``runtime.checkpoints.backup``), reached through ``kgraph.engine`` on first use;
``OrbaxCheckpoint`` (``orbax_checkpoint``) is imported on first use too.

>>> import kgraph as kg
>>> kg.callbacks.EarlyStopping(patience=2).patience
2
"""

import importlib

from kgraph import engine
from kgraph.callbacks.callbacks import *  # noqa: F401,F403 - the public catalog
from kgraph.callbacks.callbacks import __all__ as _names
from kgraph.callbacks.model_checkpoint import ModelCheckpoint
from kgraph.callbacks.remote_monitor import RemoteMonitor
from kgraph.callbacks.tensorboard import TensorBoard

__all__ = sorted([*_names, "BackupAndRestore", "ModelCheckpoint", "OrbaxCheckpoint",
                  "RemoteMonitor", "TensorBoard"])


def __getattr__(name):
    if name == "BackupAndRestore":
        return engine.runtime().BackupAndRestore
    if name == "OrbaxCheckpoint":  # its module is named for Orbax: loaded on first use
        return importlib.import_module("kgraph.callbacks.orbax_checkpoint").OrbaxCheckpoint
    raise AttributeError(f"module 'kgraph.callbacks' has no attribute {name!r}")
