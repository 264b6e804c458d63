"""``StatelessScope`` as Keras's: mapped values are read, assignments are collected and
nothing changes in place; a training call of a BatchNormalization model gives Keras's
outputs and new moving statistics."""

import keras
import numpy as np
import pytest

import kgraph as kg

_X = np.random.default_rng(0).normal(size=(8, 4)).astype("float32")


def _model(K):
    x = K.Input(shape=(4,))
    return K.Model(x, K.layers.BatchNormalization()(K.layers.Dense(3)(x)))


def test_a_training_call_in_a_stateless_scope_equals_keras():
    found = {}
    theirs = _model(keras)
    ours = _model(kg)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    rng = np.random.default_rng(1)
    values = [rng.normal(size=tuple(w.shape)).astype("float32") for w in theirs.weights]
    for K, model in ((keras, theirs), (kg, ours)):
        before = [np.asarray(w) for w in model.get_weights()]
        mapping = [(v, value) for v, value in zip(model.weights, values)]
        with K.StatelessScope(mapping) as scope:
            out = model(_X, training=True)
        found[K] = (np.asarray(out), [np.asarray(scope.get_current_value(v))
                                      for v in model.weights])
        for a, b in zip(before, model.get_weights()):
            np.testing.assert_array_equal(a, np.asarray(b))  # nothing changed in place
    np.testing.assert_allclose(found[kg][0], found[keras][0], rtol=1e-5, atol=1e-5)
    for a, b in zip(found[kg][1], found[keras][1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_bad_mappings_are_refused():
    layer = kg.layers.Dense(2)
    layer.build((None, 3))
    with pytest.raises(ValueError, match="shape"):
        kg.StatelessScope([(layer.weights[0], np.ones((2, 2)))])
    with pytest.raises(ValueError, match="Variable"):
        kg.StatelessScope([("kernel", np.ones((3, 2)))])
