"""``keras.src.backend.common``: the backend-independent helpers Keras's code imports
(``keras.src.backend.common.dtypes`` is ``kgraph.dtypes``)."""

from kgraph import dtypes
from kgraph.src.backend.common import backend_utils

__all__ = ["backend_utils", "dtypes"]
