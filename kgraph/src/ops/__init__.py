"""``keras.src.ops``: Keras's op modules as Keras's own code reads them, each with its
functions (kgraph's ops) and Keras's op classes made from the op registry
(``kgraph.ops.operation_classes``)."""

from kgraph import random  # noqa: F401 - keras.src.ops.random is the backend's random
from kgraph.base.name_scope import name_scope  # noqa: F401 - as Keras's ops namespace
