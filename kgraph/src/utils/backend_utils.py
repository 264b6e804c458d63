"""``keras.src.utils.backend_utils``: whether code runs inside a Grain data pipeline.

>>> in_grain_data_pipeline()
False
"""

from __future__ import annotations

import os
import sys

__all__ = ["in_grain_data_pipeline"]

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
