"""Pickling and deep-copying models as Keras 3 does (``Model.__reduce__`` through the bytes
of a ``.keras`` file): functional, sequential and subclassed models, compiled or not, keep
their weights, compile state and optimizer state. Compared with Keras doing the same to the
same model: predictions, evaluation and training after the round trip."""

from __future__ import annotations

import copy
import pickle

import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 3)).astype("float32")
Y = _rng.normal(size=(8, 2)).astype("float32")


@keras.saving.register_keras_serializable("kgraph_pickling_test")  # Keras finds it so
class KerasNet(keras.Model):
    def __init__(self, hidden=4, **kwargs):
        super().__init__(**kwargs)
        self.body = keras.layers.Dense(hidden, activation="relu")
        self.out = keras.layers.Dense(2)

    def call(self, x):
        return self.out(self.body(x))


class KgraphNet(kg.Model):  # not registered: kgraph's pickle carries the class
    def __init__(self, hidden=4, **kwargs):
        super().__init__(**kwargs)
        self.body = kg.layers.Dense(hidden, activation="relu")
        self.out = kg.layers.Dense(2)

    def call(self, x):
        return self.out(self.body(x))


@keras.saving.register_keras_serializable("kgraph_pickling_test")
def keras_abs_error(y_true, y_pred):
    return keras.ops.mean(keras.ops.abs(y_true - y_pred), axis=-1)


def kgraph_abs_error(y_true, y_pred):  # not registered: kgraph's pickle carries it
    return kg.ops.mean(kg.ops.abs(y_true - y_pred), axis=-1)


def _functional(lib):
    x = lib.Input((3,))
    return lib.Model(x, lib.layers.Dense(2)(lib.layers.Dense(4, activation="relu")(x)))


def _sequential(lib):
    return lib.Sequential([lib.Input((3,)), lib.layers.Dense(4, activation="relu"),
                           lib.layers.Dense(2)])


def _subclassed(lib):
    return KerasNet() if lib is keras else KgraphNet()


def _pair(make):
    theirs, ours = make(keras), make(kg)
    theirs(X), ours(X)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    return theirs, ours


def _weights(model):
    return [np.asarray(w) for w in model.get_weights()]


def _assert_weights_equal(got, want, rtol=0.0):
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-7 if rtol else 0)


_MAKERS = pytest.mark.parametrize("make", [_functional, _sequential, _subclassed],
                                  ids=["functional", "sequential", "subclassed"])


@_MAKERS
def test_an_uncompiled_model_pickles_as_kerass(make):
    theirs, ours = _pair(make)
    their_copy = pickle.loads(pickle.dumps(theirs))
    our_copy = pickle.loads(pickle.dumps(ours))
    assert type(our_copy) is type(ours)
    _assert_weights_equal(_weights(our_copy), _weights(their_copy))
    np.testing.assert_allclose(our_copy.predict(X, verbose=0), their_copy.predict(X, verbose=0),
                               rtol=1e-5, atol=1e-6)


@_MAKERS
def test_a_trained_model_pickles_with_its_optimizer_state_as_kerass(make):
    theirs, ours = _pair(make)
    for model in (theirs, ours):
        model.compile(optimizer="adam", loss="mse", metrics=["mae"])
        model.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    _assert_weights_equal(_weights(ours), _weights(theirs), rtol=1e-5)
    their_copy = pickle.loads(pickle.dumps(theirs))
    our_copy = pickle.loads(pickle.dumps(ours))
    _assert_weights_equal(_weights(our_copy), _weights(ours))
    np.testing.assert_allclose(our_copy.evaluate(X, Y, verbose=0),
                               their_copy.evaluate(X, Y, verbose=0), rtol=1e-5)
    for model in (their_copy, our_copy):  # Adam's moments and step count carry on
        model.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    _assert_weights_equal(_weights(our_copy), _weights(their_copy), rtol=1e-5)


@_MAKERS
def test_deepcopy_after_predict_keeps_the_compile_state_as_keras(make):
    theirs, ours = _pair(make)
    for model in (theirs, ours):
        model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
        model.predict(X, verbose=0)
    their_copy, our_copy = copy.deepcopy(theirs), copy.deepcopy(ours)
    np.testing.assert_allclose(our_copy.evaluate(X, Y, verbose=0),
                               their_copy.evaluate(X, Y, verbose=0), rtol=1e-5)
    for model in (their_copy, our_copy):
        model.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    _assert_weights_equal(_weights(our_copy), _weights(their_copy), rtol=1e-5)
    _assert_weights_equal(_weights(ours), _weights(theirs))  # the originals are untouched
    assert not np.array_equal(_weights(our_copy)[0], _weights(ours)[0])


def test_a_model_compiled_with_a_custom_loss_function_pickles_as_kerass():
    theirs, ours = _pair(_functional)
    theirs.compile(optimizer="sgd", loss=keras_abs_error)
    ours.compile(optimizer="sgd", loss=kgraph_abs_error)
    for model in (theirs, ours):
        model.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    their_copy = pickle.loads(pickle.dumps(theirs))
    our_copy = pickle.loads(pickle.dumps(ours))
    np.testing.assert_allclose(our_copy.evaluate(X, Y, verbose=0),
                               their_copy.evaluate(X, Y, verbose=0), rtol=1e-5)
    for model in (their_copy, our_copy):
        model.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    _assert_weights_equal(_weights(our_copy), _weights(their_copy), rtol=1e-5)
