"""The one place where kgraph reaches the runtime that runs its models.

kgraph describes: layers, models, losses, metrics, optimizers, callbacks, files.
``compiler`` makes a model a pure program and ``runtime`` runs programs; both import
kgraph, never the reverse, with this one declared exception: ``Model.compile``, ``fit``,
``evaluate``, ``predict``, Keras's stateless protocol and ``callbacks.BackupAndRestore``
(whose checkpoints hold the runtime's train state) reach ``runtime.keras_shell`` through
``runtime()``, on first use, so ``import kgraph`` never loads the runtime.

>>> runtime().fit.__module__
'runtime.keras_shell'
"""

from __future__ import annotations

__all__ = ["runtime"]


def runtime():
    """The runtime's entry module for kgraph's objects, ``runtime.keras_shell``."""
    import runtime.keras_shell  # the declared seam (see the module's docstring)

    return runtime.keras_shell
