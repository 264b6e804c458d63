"""Keras's recurrent internals that code written for Keras reaches, against Keras: the
rank-generic ``ConvLSTM`` and its ``ConvLSTMCell`` (``keras.src.layers.rnn.conv_lstm``),
``Bidirectional.compute_output_shape`` and the ``use_cudnn`` its copies keep."""

import keras
import numpy as np
import pytest
from keras.src.layers.rnn import conv_lstm as keras_conv_lstm

import kgraph as kg
from kgraph.src.layers import ConvLSTM, ConvLSTMCell

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("rank", [1, 2])
def test_rank_generic_conv_lstm_gives_kerass_outputs(rank):
    kwargs = dict(rank=rank, filters=2, kernel_size=3, padding="same", return_state=True,
                  kernel_initializer="ones", recurrent_initializer="ones")
    x = RNG.normal(size=(2, 3, *([4] * rank), 2)).astype("float32") / 10
    theirs, ours = keras_conv_lstm.ConvLSTM(**kwargs), ConvLSTM(**kwargs)
    for a, b in zip(ours(x), theirs(x), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
    assert ours.get_config()["rank"] == rank
    assert type(ours).from_config(ours.get_config()).rank == rank


def test_conv_lstm_cell_steps_as_kerass():
    kwargs = dict(rank=2, filters=2, kernel_size=3, padding="same",
                  kernel_initializer="ones", recurrent_initializer="ones")
    x = RNG.normal(size=(2, 4, 4, 3)).astype("float32")
    states = [RNG.normal(size=(2, 4, 4, 2)).astype("float32") for _ in range(2)]
    h, (h2, c) = ConvLSTMCell(**kwargs)(x, states)
    k_h, (_, k_c) = keras_conv_lstm.ConvLSTMCell(**kwargs)(x, states)
    np.testing.assert_allclose(np.asarray(h), np.asarray(k_h), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(c), np.asarray(k_c), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(h), np.asarray(h2))


@pytest.mark.parametrize("merge_mode", ["concat", "sum", None])
@pytest.mark.parametrize("return_state", [False, True])
def test_bidirectional_output_shape_is_kerass(merge_mode, return_state):
    def shapes(lib):
        layer = lib.layers.Bidirectional(lib.layers.LSTM(2, return_state=return_state),
                                         merge_mode=merge_mode)
        return layer.compute_output_shape((4, 3, 5))

    ours, theirs = shapes(kg), shapes(keras)
    assert np.asarray(ours, dtype=object).tolist() == np.asarray(theirs, dtype=object).tolist()


def test_bidirectional_copies_keep_use_cudnn():
    for lib in (kg, keras):
        bidi = lib.layers.Bidirectional(lib.layers.GRU(1, use_cudnn=False))
        assert bidi.forward_layer.use_cudnn is False and bidi.backward_layer.use_cudnn is False
        assert not hasattr(lib.layers.SimpleRNN(1), "use_cudnn")
