"""Keras's internal ``keras.src.layers`` names that its public ``keras.layers`` does not
offer: ``IndexLookup``, the vocabulary lookup ``StringLookup`` and ``IntegerLookup`` are
made of (kgraph's ``kgraph.layers.index_lookup``). Every other name of
``keras.src.layers`` is ``kgraph.layers``'.

>>> IndexLookup.__module__
'kgraph.layers.index_lookup'
"""

from kgraph.layers.index_lookup import IndexLookup

__all__ = ["IndexLookup"]
