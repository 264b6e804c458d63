"""``StackedRNNCells`` / ``RNN([cells])``: Keras's numbers with Keras's weights, configs."""


import keras
import numpy as np

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
