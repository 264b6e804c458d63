"""Feature extraction and model introspection: layers, get_layer, input/output, freezing."""

import jax
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers


def _model():
    x = kg.Input(shape=(4,), name="x")
    h = layers.Dense(8, activation="relu", name="block1")(x)
    h = layers.Dense(8, activation="relu", name="block2")(h)
    h = layers.Dense(6, activation="relu", name="block3")(h)
    return kg.Model(x, layers.Dense(2, name="head")(h), name="net")


def test_feature_extractor_shares_weights_with_the_original():
    model = _model()
    features = kg.Model(model.inputs, model.get_layer("block3").output, name="features")
    data = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    assert features(data).shape == (3, 6)
    block3 = model.get_layer("block3")
    assert features.get_layer("block3") is block3
    assert {id(v) for v in features.weights} <= {id(v) for v in model.weights}
    block3.kernel = np.zeros_like(block3.kernel)  # change the shared weight once ...
    np.testing.assert_array_equal(features(data), np.maximum(block3.bias, 0) * np.ones((3, 1)))
    params, _ = compiler.variables(features)
    assert set(params) == {"block1", "block2", "block3"}
    np.testing.assert_array_equal(params["block3"]["kernel"], 0.0)  # ... both models see it


def test_layers_get_layer_input_output_weights():
    model = _model()
    assert [layer.name for layer in model.layers] == ["x", "block1", "block2", "block3", "head"]
    assert model.get_layer(index=1).name == "block1" and model.get_layer("head").name == "head"
    with pytest.raises(ValueError, match="No such layer: 'nope'"):
        model.get_layer("nope")
    block2 = model.get_layer("block2")
    assert block2.input is model.get_layer("block1").output
    assert block2.output.shape == (None, 8)
    assert len(model.weights) == 8 and all(isinstance(v, kg.Variable) for v in model.weights)
    assert model.count_params() == 4 * 8 + 8 + 8 * 8 + 8 + 8 * 6 + 6 + 6 * 2 + 2


def test_freezing_moves_weights_to_state_and_out_of_gradients():
    model = _model()
    model.get_layer("block1").trainable = False
    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    assert "block1" not in params and set(state["block1"]) == {"kernel", "bias"}
    assert len(model.trainable_weights) == 6 and len(model.non_trainable_weights) == 2
    lines = []
    model.summary(print_fn=lines.append)
    assert "Non-trainable params: 40" in lines[0]
