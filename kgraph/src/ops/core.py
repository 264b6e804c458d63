"""``keras.src.ops.core``: the ops Keras groups as core (``cast``, ``scatter``,
``slice``, control flow, ...), kgraph's functions, and their Keras op classes.

>>> Cast(dtype="int32").get_config()["dtype"]
'int32'
"""

from kgraph import ops as _ops
from kgraph.ops import control_flow as _control_flow
from kgraph.ops import core as _core
from kgraph.ops.operation_classes import operation_classes

_NAMES = ("associative_scan", "cast", "cond", "convert_to_numpy", "convert_to_tensor",
          "custom_gradient", "dtype", "fori_loop", "is_tensor", "map", "saturate_cast", "scan",
          "scatter", "scatter_update", "shape", "slice", "slice_update", "stop_gradient",
          "switch", "unstack", "vectorized_map", "while_loop")
_FUNCTIONS = {name: getattr(_ops, name) for name in (*_core.__all__, *_NAMES)
              if hasattr(_ops, name)}
_CLASSES = {**operation_classes(_NAMES),
            **{name: getattr(_control_flow, name) for name in _control_flow.__all__
               if name[0].isupper() and name != "JVP"}}  # Map, Scan, Cond, WhileLoop, ...
globals().update(_FUNCTIONS)
globals().update(_CLASSES)
__all__ = [*_FUNCTIONS, *_CLASSES]
