"""``keras.src.trainers.compile_utils``: Keras's ``CompileLoss`` and ``CompileMetrics``,
the runtime's (``runtime.compile_utils``), reached through ``kgraph.engine`` on first use.

>>> from kgraph.src.trainers.compile_utils import CompileLoss
>>> CompileLoss("mse").name
'compile_loss'
"""

from kgraph.engine import runtime

__all__ = ["CompileLoss", "CompileMetrics"]


def __getattr__(name):
    if name in __all__:
        return getattr(runtime(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
