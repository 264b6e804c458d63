"""Conformance cases: recurrent layers, cells and the Bidirectional/TimeDistributed wrappers."""

import jax.numpy as jnp

from kgraph import layers
from kgraph.base.layer import Layer
from tests.support.conformance import LayerCase


class MinimalCell(Layer):
    """A user-written cell (no kgraph fast path): ``h = tanh(x @ w + h @ u)``."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.w = self.add_weight((input_shape[-1], self.units), name="w")
        self.u = self.add_weight((self.units, self.units), name="u")
        self.built = True

    def call(self, inputs, states):
        h = jnp.tanh(inputs @ self.w + states[0] @ self.u)
        return h, [h]


CASES = [
    LayerCase("rnn_simple", lambda **kw: layers.SimpleRNN(4, **kw), (5, 3), bad_input_shape=(3,),
              rtol=1e-4),
    LayerCase("rnn_lstm", lambda **kw: layers.LSTM(4, **kw), (5, 3), bad_input_shape=(3,),
              rtol=1e-4),
    LayerCase("rnn_lstm_seq_state", lambda **kw: layers.LSTM(
        4, return_sequences=True, return_state=True, **kw), (5, 3), rtol=1e-4),
    LayerCase("rnn_lstm_dropout", lambda **kw: layers.LSTM(
        4, dropout=0.3, recurrent_dropout=0.3, return_sequences=True, **kw), (5, 3),
        random=True, rtol=1e-4),
    LayerCase("rnn_gru_reset_before_all_outputs", lambda **kw: layers.GRU(
        4, reset_after=False, return_sequences=True, return_state=True, go_backwards=True,
        **kw), (5, 3), bad_input_shape=(3,), rtol=1e-4),
    LayerCase("rnn_gru_dropout", lambda **kw: layers.GRU(
        4, dropout=0.3, recurrent_dropout=0.3, reset_after=False, **kw), (5, 3), random=True,
        rtol=1e-4),
    LayerCase("rnn_custom_cell", lambda **kw: layers.RNN(
        MinimalCell(4, **kw), return_sequences=True, **kw), (5, 3),
        skip={"config_round_trip": "the user-written cell class is not registered for "
                                   "deserialization"},
        rtol=1e-4),
    LayerCase("rnn_bidirectional_lstm", lambda **kw: layers.Bidirectional(
        layers.LSTM(4, return_sequences=True, **kw), **kw), (5, 3), bad_input_shape=(3,),
        rtol=1e-4),
    LayerCase("rnn_bidirectional_gru_sum_state", lambda **kw: layers.Bidirectional(
        layers.GRU(4, return_state=True, **kw), merge_mode="sum", **kw), (5, 3), rtol=1e-4),
    LayerCase("rnn_bidirectional_backward_layer", lambda **kw: layers.Bidirectional(
        layers.LSTM(4, **kw), backward_layer=layers.GRU(3, go_backwards=True, **kw), **kw),
        (5, 3), rtol=1e-4),
    LayerCase("rnn_time_distributed_dense", lambda **kw: layers.TimeDistributed(
        layers.Dense(2, **kw), **kw), (5, 3), bad_input_shape=(3,)),
    LayerCase("rnn_time_distributed_rank4_dropout", lambda **kw: layers.TimeDistributed(
        layers.Dropout(0.5, **kw), **kw), (5, 2, 3), random=True),
]
