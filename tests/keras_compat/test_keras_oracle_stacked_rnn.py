"""``StackedRNNCells`` / ``RNN([cells])``: Keras's numbers with Keras's weights, configs, and
with masks (``Embedding(mask_zero=True)`` or ``mask=``: a masked step outputs the last cell's
previous output, as Keras), in calls, predict and fit."""


import jax
import keras
import numpy as np
import pytest

import kgraph as kg


def _pair(return_sequences):
    def make(lib):
        cells = [lib.layers.LSTMCell(4), lib.layers.GRUCell(3), lib.layers.SimpleRNNCell(2)]
        x = lib.Input(shape=(5, 6))
        outputs = lib.layers.RNN(cells, return_sequences=return_sequences,
                                 return_state=True)(x)
        return lib.Model(x, outputs)

    return make(kg), make(keras)


def test_stacked_cells_match_keras_outputs_and_states():
    ours, theirs = _pair(return_sequences=True)
    assert ours.count_params() == theirs.count_params()
    ours.set_weights(theirs.get_weights())
    x = np.random.default_rng(0).normal(size=(3, 5, 6)).astype("float32")
    for a, b in zip(ours(x), theirs(x)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


def test_stacked_cells_round_trip_through_config_and_train():
    ours, _ = _pair(return_sequences=False)
    clone = kg.models.model_from_json(ours.to_json())
    clone.set_weights(ours.get_weights())
    x = np.random.default_rng(1).normal(size=(2, 5, 6)).astype("float32")
    for a, b in zip(clone(x), ours(x)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    x_in = kg.Input(shape=(5, 6))
    model = kg.Model(x_in, kg.layers.RNN([kg.layers.GRUCell(3), kg.layers.GRUCell(2)])(x_in))
    model.compile(optimizer="sgd", loss="mse")
    before = [w.copy() for w in model.get_weights()]
    model.fit(x, np.ones((2, 2), np.float32), epochs=1, verbose=0)
    assert all(not np.allclose(a, b) for a, b in zip(before, model.get_weights()))


TOKENS = np.array([[3, 1, 4, 0, 0], [2, 0, 0, 0, 0], [1, 2, 3, 4, 1]], np.int32)


def _masked_pair(cells, **rnn_kwargs):
    def make(lib):
        tokens = lib.Input(shape=(5,), dtype="int32")
        embedded = lib.layers.Embedding(6, 4, mask_zero=True)(tokens)
        outputs = lib.layers.RNN(cells(lib), **rnn_kwargs)(embedded)
        return lib.Model(tokens, outputs)

    ours, theirs = make(kg), make(keras)
    ours.set_weights(theirs.get_weights())
    return ours, theirs


def _assert_same(ours, theirs):
    ours, theirs = jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


CELL_STACKS = {
    "lstm_gru": lambda lib: [lib.layers.LSTMCell(3), lib.layers.GRUCell(2)],
    "gru_lstm_simple": lambda lib: [lib.layers.GRUCell(2), lib.layers.LSTMCell(3),
                                    lib.layers.SimpleRNNCell(2)],
}


@pytest.mark.parametrize("stack", sorted(CELL_STACKS))
@pytest.mark.parametrize("return_sequences", [False, True])
@pytest.mark.parametrize("return_state", [False, True])
def test_stacked_cells_with_an_embedding_mask_match_keras(stack, return_sequences,
                                                          return_state):
    ours, theirs = _masked_pair(CELL_STACKS[stack], return_sequences=return_sequences,
                                return_state=return_state)
    _assert_same(ours.predict(TOKENS, verbose=0), theirs.predict(TOKENS, verbose=0))
    _assert_same(ours(TOKENS), theirs(TOKENS))


@pytest.mark.parametrize("options", [{}, {"go_backwards": True},
                                     {"zero_output_for_mask": True}])
def test_stacked_cells_with_an_explicit_mask_match_keras(options):
    x = np.random.default_rng(2).normal(size=(3, 5, 4)).astype("float32")
    mask = TOKENS != 0
    layers = {}
    for lib in (keras, kg):
        layers[lib] = lib.layers.RNN(CELL_STACKS["lstm_gru"](lib), return_sequences=True,
                                     return_state=True, **options)
        layers[lib].build((None, 5, 4))
    layers[kg].set_weights(layers[keras].get_weights())
    _assert_same(layers[kg](x, mask=mask), layers[keras](x, mask=mask))
    # each cell's states as a list, as Keras's get_initial_state gives them (Keras reads a
    # masked step's previous output as states[-1][0])
    initial = [[np.full((3, 3), 0.5, "float32"), np.full((3, 3), -0.5, "float32")],
               [np.linspace(-1, 1, 6, dtype="float32").reshape(3, 2)]]
    _assert_same(layers[kg](x, initial_state=initial, mask=mask),
                 layers[keras](x, initial_state=initial, mask=mask))


def test_stacked_cells_with_a_mask_train_as_keras():
    ours, theirs = _masked_pair(CELL_STACKS["lstm_gru"], return_sequences=False)
    y = np.random.default_rng(3).normal(size=(3, 2)).astype("float32")
    for model in (ours, theirs):
        model.compile(optimizer="sgd", loss="mse")
    expected = theirs.fit(TOKENS, y, batch_size=3, epochs=2, verbose=0).history["loss"]
    got = ours.fit(TOKENS, y, batch_size=3, epochs=2, verbose=0).history["loss"]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    _assert_same(ours.get_weights(), theirs.get_weights())
