"""``keras.Function``: a graph of ops on bare KerasTensors, run again on arrays, with
Keras's outputs; a model still needs ``Input`` tensors."""

import keras
import numpy as np
import pytest

import kgraph as kg

_A = np.random.default_rng(0).normal(size=(4, 2, 3)).astype("float32")
_B = np.random.default_rng(1).normal(size=(4, 2, 3)).astype("float32")


def _function(K):
    a = K.KerasTensor(shape=(None, 2, 3))
    b = K.KerasTensor(shape=(None, 2, 3))
    mixed = K.ops.sigmoid(a + b) * K.ops.tanh(a)
    return K.Function(inputs={"a": a, "b": b},
                      outputs=[K.ops.sum(mixed, axis=-1), K.ops.max(b, axis=1)])


def test_a_function_equals_keras():
    ours, theirs = _function(kg), _function(keras)
    data = {"a": _A, "b": _B}
    for mine, expected in zip(ours(data), theirs(data)):
        np.testing.assert_allclose(np.asarray(mine), np.asarray(expected), rtol=1e-6)
    specs = ours.compute_output_spec({"a": kg.KerasTensor((None, 2, 3)),
                                      "b": kg.KerasTensor((None, 2, 3))})
    assert [s.shape for s in specs] == [(None, 2), (None, 3)]
    assert len(ours.operations) == len(theirs.operations)


def test_a_model_needs_input_tensors():
    bare = kg.KerasTensor(shape=(None, 3))
    with pytest.raises(TypeError, match="kg.Function"):
        kg.Model(bare, kg.ops.relu(bare))
