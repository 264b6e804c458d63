"""``keras.src.utils.backend_utils``: whether code runs inside a Grain data pipeline or a
TensorFlow graph, and Keras's conversion of TensorFlow tensors outside one.

>>> in_grain_data_pipeline(), in_tf_graph()
(False, False)
>>> convert_tf_tensor([1.0, 2.0]).tolist()
[1.0, 2.0]
"""

from __future__ import annotations

import os
import sys

from kgraph.ops.core import convert_to_tensor

__all__ = ["convert_tf_tensor", "in_grain_data_pipeline", "in_tf_graph"]

_GRAIN_PIPELINE_FILES = (os.path.join("grain", "_src", "python", "dataset"),
                         os.path.join("grain", "_src", "python", "data_loader"))


def in_grain_data_pipeline() -> bool:
    """Whether the caller runs inside a Grain dataset or data loader (a frame of Grain's
    pipeline code is on the stack), where preprocessing should return NumPy arrays."""
    if "grain" not in sys.modules:
        return False
    frame = sys._getframe(1)
    while frame is not None:
        if any(part in frame.f_code.co_filename for part in _GRAIN_PIPELINE_FILES):
            return True
        frame = frame.f_back
    return False


def in_tf_graph() -> bool:
    """Whether TensorFlow is imported and tracing a graph (a ``tf.function`` or a
    ``tf.data`` map), where values are TensorFlow's symbolic tensors."""
    tensorflow = sys.modules.get("tensorflow")
    return tensorflow is not None and not tensorflow.executing_eagerly()


def convert_tf_tensor(outputs, dtype=None):
    """``outputs`` as a kgraph array (``ops.convert_to_tensor``), except inside a
    TensorFlow graph, where they are left as they are (Keras's)."""
    if in_tf_graph():
        return outputs
    return convert_to_tensor(outputs, dtype=dtype)
