"""Keras's internal ``keras.src.layers`` names that its public ``keras.layers`` does not
offer: ``IndexLookup``, the vocabulary lookup ``StringLookup`` and ``IntegerLookup`` are
made of (kgraph's ``kgraph.layers.index_lookup``), and ``DataLayer``, the base of layers
written against ``self.backend`` (``keras.src.layers.preprocessing.data_layer``). Every
other name of ``keras.src.layers`` is ``kgraph.layers``'.

>>> IndexLookup.__module__
'kgraph.layers.index_lookup'
"""

from kgraph.layers.data_layer import DataLayer
from kgraph.layers.index_lookup import IndexLookup

__all__ = ["DataLayer", "IndexLookup"]
