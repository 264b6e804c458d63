"""``keras.activations.*`` on symbolic tensors: each adds a graph node (as in Keras, where
the activations are written on ``keras.ops``), and the model computes Keras's numbers;
the two activations Keras writes as ops of its own (``relu`` with arguments, ``mish``)
travel through ``.keras`` files both ways."""

import keras
import numpy as np
import pytest

import kgraph as kg

_FUNCTIONS = [n for n in kg.activations.__all__
              if n not in ("get", "deserialize", "serialize", "name_of")]
_ARGUMENTS = {"threshold": [{"threshold": 0.5, "default_value": -1.0}],
              "relu": [{}, {"max_value": 1.0}, {"negative_slope": 0.1},
                       {"negative_slope": 0.1, "threshold": 0.3, "max_value": 2.0}],
              "gelu": [{}, {"approximate": True}], "elu": [{"alpha": 0.5}],
              "leaky_relu": [{}, {"negative_slope": 0.3}], "softmax": [{"axis": 1}]}
_CASES = [(name, kwargs) for name in _FUNCTIONS for kwargs in _ARGUMENTS.get(name, [{}])]
_DATA = np.random.default_rng(0).normal(size=(3, 6)).astype("float32") * 3


@pytest.mark.parametrize("name,kwargs", _CASES, ids=lambda v: str(v))
def test_an_activation_on_a_symbolic_tensor_is_a_node_with_keras_numbers(name, kwargs):
    x = kg.Input(shape=(6,))
    y = getattr(kg.activations, name)(x, **kwargs)
    model = kg.Model(x, y)
    ours = np.asarray(model(_DATA))
    eager = np.asarray(getattr(kg.activations, name)(_DATA, **kwargs))
    np.testing.assert_allclose(ours, eager, rtol=1e-6, atol=1e-6)
    if name != "linear":
        assert type(y._keras_history.layer).__name__ == "Operation"
    if name == "sparsemax":
        return  # Keras 3.15's sparsemax is not a projection (see kgraph.ops.sparsemax)
    theirs = np.asarray(getattr(keras.activations, name)(_DATA, **kwargs))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("build", [
    lambda K, x: K.activations.relu(x, max_value=1.0, negative_slope=0.1),
    lambda K, x: K.activations.relu(x, threshold=0.5),
    lambda K, x: K.activations.mish(x),
], ids=["relu_capped", "relu_threshold", "mish"])
def test_keras_activation_ops_travel_through_keras_files(build, tmp_path):
    x = kg.Input(shape=(6,))
    model = kg.Model(x, kg.layers.Dense(4)(build(kg, x)))
    path = str(tmp_path / "ours.keras")
    model.save(path)
    theirs = keras.saving.load_model(path)
    np.testing.assert_allclose(np.asarray(theirs(_DATA)), np.asarray(model(_DATA)),
                               rtol=1e-5, atol=1e-6)
    back_path = str(tmp_path / "theirs.keras")
    theirs.save(back_path)
    back = kg.saving.load_model(back_path)
    np.testing.assert_allclose(np.asarray(back(_DATA)), np.asarray(model(_DATA)),
                               rtol=1e-5, atol=1e-6)
