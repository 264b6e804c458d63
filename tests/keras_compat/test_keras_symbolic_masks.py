"""``keras.src.backend.get_keras_mask`` on a layer's symbolic output: the mask is a tensor
of the graph, which a model can output, as Keras's."""

import keras
import numpy as np

import kgraph as kg
from kgraph.src.backend import get_keras_mask


def _mask_model(lib, get_mask):
    first, second = lib.Input((4, 2)), lib.Input((4, 2))
    output = lib.layers.Concatenate(axis=1)([lib.layers.Masking()(first), second])
    return lib.Model([first, second], get_mask(output))


def test_a_model_outputs_the_mask_of_a_concatenation_as_keras():
    x1 = np.array([[[0, 0], [1, 2], [0, 0], [3, 4]]], "float32")
    x2 = np.array([[[0, 0], [0, 0], [1, 2], [3, 4]]], "float32")
    ours = _mask_model(kg, get_keras_mask)([x1, x2])
    theirs = _mask_model(keras, keras.src.backend.get_keras_mask)([x1, x2])
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    np.testing.assert_array_equal(np.asarray(ours), [[0, 1, 0, 1, 1, 1, 1, 1]])
