"""``keras.src.utils``."""

from kgraph.src.utils import backend_utils, module_utils

__all__ = ["backend_utils", "module_utils"]
