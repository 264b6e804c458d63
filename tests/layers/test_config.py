"""``kgraph.config``: Keras's global epsilon, shared by ops, layers, losses and metrics."""


import keras
import numpy as np

import kgraph as kg
from kgraph import ops


def test_epsilon_is_keras_epsilon():
    assert kg.config.epsilon() == keras.config.epsilon() == 1e-7


def test_ops_clip_with_the_shared_epsilon():
    # A zero probability is clipped to epsilon, so its crossentropy is -log(epsilon).
    loss = ops.binary_crossentropy(np.array([1.0]), np.array([0.0]))
    np.testing.assert_allclose(np.asarray(loss), [-np.log(kg.config.epsilon())], rtol=1e-5)
