"""``keras.src.trainers.data_adapters``: Keras's data adapters and ``get_data_adapter``, the
runtime's (``runtime.data_adapters``, reached through ``kgraph.engine`` on first use).

>>> import numpy as np
>>> from kgraph.src.trainers.data_adapters import get_data_adapter
>>> type(get_data_adapter(np.zeros((4, 1)))).__name__
'ArrayDataAdapter'
"""

from kgraph.engine import runtime
from kgraph.src.trainers.data_adapters import data_adapter_utils

__all__ = ["ArrayDataAdapter", "DataAdapter", "GeneratorDataAdapter", "PyDatasetAdapter",
           "TFDatasetAdapter", "data_adapter_utils", "get_data_adapter", "is_tf_dataset"]


def __getattr__(name):
    if name in __all__:
        return getattr(runtime().data_adapters, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
