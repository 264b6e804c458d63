"""``keras.src.ops.linalg``: kgraph's linear-algebra ops and their Keras op classes
(``Qr``, ``SVD``, ...).

>>> Qr(mode="complete").get_config()["mode"]
'complete'
"""

from kgraph.ops import linalg as _ops
from kgraph.ops.linalg import *  # noqa: F401,F403 - the module's functions
from kgraph.ops.control_flow import JVP
from kgraph.ops.operation_classes import operation_classes

_CLASSES = {**operation_classes(_ops.__all__), "JVP": JVP}
globals().update(_CLASSES)
__all__ = [*_ops.__all__, *_CLASSES]
