"""``keras.src.testing``'s layer test on kgraph: Keras's ``run_layer_test`` arguments work as
Keras's do for kgraph's dense tensors."""

import jax.numpy as jnp
import numpy as np
import pytest

from kgraph import layers
from kgraph.src.testing.layer_test import create_keras_tensors
from kgraph.src.testing.test_case import TestCase


def test_sparse_flagged_symbolic_inputs_are_dense():
    """Keras's Flatten case passes ``input_sparse=True`` with dense data: kgraph's symbolic
    tensors are dense, so the layer is checked on dense ones (ragged stays refused)."""
    tensor = create_keras_tensors((2, 3), "float32", sparse=True)
    assert tensor.shape == (2, 3) and not getattr(tensor, "sparse", False)
    with pytest.raises(ValueError, match="Ragged tensors are unsupported"):
        create_keras_tensors((2, 3), "float32", ragged=True)

    class Case(TestCase):
        def runTest(self):
            data = np.random.default_rng(0).random((4, 3, 5)).astype("float32")
            self.run_layer_test(layers.Flatten, init_kwargs={}, input_data=data,
                                input_sparse=True, expected_output=jnp.asarray(data.reshape(4, 15)),
                                expected_output_sparse=False)

    Case().runTest()
