"""Keras's internal ``keras.src.layers`` names that its public ``keras.layers`` does not
offer: ``IndexLookup``, the vocabulary lookup ``StringLookup`` and ``IntegerLookup`` are
made of (kgraph's ``kgraph.layers.index_lookup``); ``DataLayer``, the base of layers
written against ``self.backend`` (``keras.src.layers.preprocessing.data_layer``);
``DropoutRNNCell``, the dropout mixin of custom RNN cells
(``keras.src.layers.rnn.dropout_rnn_cell``); the rank-generic ``ConvLSTM`` and its
``ConvLSTMCell`` (``keras.src.layers.rnn.conv_lstm``). Every other name of
``keras.src.layers`` is ``kgraph.layers``'.

>>> IndexLookup.__module__
'kgraph.layers.index_lookup'
"""

from kgraph.layers.conv_lstm import ConvLSTM, ConvLSTMCell
from kgraph.layers.data_layer import DataLayer
from kgraph.layers.dropout_rnn_cell import DropoutRNNCell
from kgraph.layers.index_lookup import IndexLookup

__all__ = ["ConvLSTM", "ConvLSTMCell", "DataLayer", "DropoutRNNCell", "IndexLookup"]
