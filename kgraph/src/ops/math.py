"""``keras.src.ops.math``: the ops Keras groups as math (segment reductions, ``top_k``,
FFTs, ``stft``, ``erf``, ...), kgraph's functions, and their Keras op classes.

>>> TopK(k=2).get_config()["k"]
2
"""

from kgraph import ops as _ops
from kgraph.ops.operation_classes import operation_classes

_NAMES = ("cdist", "erf", "erfc", "erfinv", "extract_sequences", "fft", "fft2", "ifft2",
          "in_top_k", "irfft", "istft", "logdet", "logsumexp", "rfft", "rsqrt", "segment_max",
          "segment_min", "segment_prod", "segment_sum", "stft", "top_k", "view_as_complex",
          "view_as_real")
_FUNCTIONS = {name: getattr(_ops, name) for name in _NAMES if hasattr(_ops, name)}
_CLASSES = operation_classes(_FUNCTIONS)
globals().update(_FUNCTIONS)
globals().update(_CLASSES)
__all__ = [*_FUNCTIONS, *_CLASSES]
