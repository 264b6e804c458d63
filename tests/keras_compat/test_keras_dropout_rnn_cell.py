"""A custom RNN cell mixing in Keras's ``DropoutRNNCell`` (``keras.src.layers.rnn.
dropout_rnn_cell``), written once and run under Keras and kgraph: the same masks and
outputs for the same seed, one mask per call reused at every step, and training under
``fit`` (the masks are drawn before the time loop of the compiled step)."""

import keras
import numpy as np
from keras.src.layers.rnn.dropout_rnn_cell import DropoutRNNCell as KerasDropoutRNNCell

import kgraph as kg
from kgraph.src.layers import DropoutRNNCell

X = np.random.default_rng(0).normal(size=(3, 4, 2)).astype("float32")


def _cell_class(lib, mixin):
    class Cell(lib.layers.Layer, mixin):
        def __init__(self, units, seed, **kwargs):
            super().__init__(**kwargs)
            self.units = self.state_size = units
            self.dropout, self.recurrent_dropout = 0.5, 0.25
            self.seed_generator = lib.random.SeedGenerator(seed)

        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(input_shape[-1], self.units),
                                          initializer="ones", name="kernel")

        def call(self, inputs, states, training=False):
            state = states[0]
            if training:
                inputs = inputs * self.get_dropout_mask(inputs)
                if self.recurrent_dropout:
                    state = state * self.get_recurrent_dropout_mask(state)
            output = lib.ops.matmul(inputs, self.kernel) + state
            return output, [output]

    return Cell


def _layers(seed=7):
    return (keras.layers.RNN(_cell_class(keras, KerasDropoutRNNCell)(3, seed),
                             return_sequences=True),
            kg.layers.RNN(_cell_class(kg, DropoutRNNCell)(3, seed), return_sequences=True))


def test_training_calls_give_kerass_outputs():
    theirs, ours = _layers()
    for _ in range(2):  # the second call draws new masks, as Keras's
        np.testing.assert_allclose(np.asarray(ours(X, training=True)),
                                   np.asarray(theirs(X, training=True)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ours(X)), np.asarray(theirs(X)), rtol=1e-6)


def test_one_input_mask_for_every_step():
    _, ours = _layers()
    ours.cell.recurrent_dropout = 0.0
    steps = np.asarray(ours(np.ones((2, 5, 2), "float32"), training=True))
    dropped = np.diff(steps, axis=1) == steps[:, :1]  # each step adds the same masked input
    assert dropped.all()


def test_a_model_of_the_cell_fits():
    cell = _cell_class(kg, DropoutRNNCell)(3, seed=1)
    inputs = kg.Input((4, 2))
    model = kg.Model(inputs, kg.layers.Dense(1)(kg.layers.RNN(cell)(inputs)))
    model.compile("sgd", "mse")
    history = model.fit(X, np.ones((3, 1), "float32"), epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    assert getattr(cell, "_dropout_mask", None) is None  # forgotten after each call
