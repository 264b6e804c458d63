"""Non-trainable state a layer assigns while the model runs in inference (a call counter)
against Keras 3 on JAX: ``predict``, ``evaluate``, ``predict_on_batch`` and
``test_on_batch`` carry it from batch to batch and leave the last value in the variable."""

import keras
import numpy as np
import pytest

import kgraph as kg

X = np.arange(12, dtype="float32").reshape(6, 2)
Y = np.ones((6, 2), "float32")


def _counting_model(lib):
    class Counter(lib.layers.Layer):
        def build(self, input_shape):
            self.count = self.add_weight(shape=(), initializer="zeros", trainable=False,
                                         name="count")

        def call(self, inputs):
            self.count.assign(self.count + 1.0)
            return inputs + self.count

    inputs = lib.Input(shape=(2,))
    model = lib.Model(inputs, Counter(name="counter")(inputs))
    model.compile(optimizer="sgd", loss="mse")
    return model


def _count(model):
    return float(np.asarray(model.get_layer("counter").count))


@pytest.mark.parametrize("run", ["predict", "evaluate", "predict_on_batch", "test_on_batch"])
def test_state_assigned_in_inference_carries_as_keras(run):
    results = {}
    for lib in (keras, kg):
        model = _counting_model(lib)
        calls = {"predict": lambda: model.predict(X, batch_size=2, verbose=0),
                 "evaluate": lambda: model.evaluate(X, Y, batch_size=2, verbose=0),
                 "predict_on_batch": lambda: model.predict_on_batch(X),
                 "test_on_batch": lambda: model.test_on_batch(X, Y)}
        first, second = calls[run](), calls[run]()
        results[lib] = (np.asarray(first), np.asarray(second), _count(model))
    for ours, theirs in zip(results[kg], results[keras]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)
