"""``keras.src.backend.common``: the backend-independent helpers Keras's code imports."""

from kgraph.src.backend.common import backend_utils, dtypes

__all__ = ["backend_utils", "dtypes"]
