"""Inner layers (Bidirectional, TimeDistributed, RNN cells) deserialize with the
``custom_objects`` and ``safe_mode`` of the enclosing call; layers built from several
inputs keep every input shape in their build config."""

import jax.numpy as jnp
import numpy as np
import pytest

import kgraph as kg
from kgraph.base import catalog
from kgraph import layers, saving

SEQUENCES = np.random.default_rng(0).normal(size=(2, 5, 3)).astype(np.float32)


class MinimalCell(kg.Layer):
    """A tanh RNN cell without bias."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight((input_shape[-1], self.units))
        self.recurrent_kernel = self.add_weight((self.units, self.units))

    def call(self, inputs, states, training=None):
        h = jnp.tanh(inputs @ self.kernel + states[0] @ self.recurrent_kernel)
        return h, [h]

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def bidirectional_model(cell):
    x = kg.Input(shape=(5, 3))
    return kg.Model(x, layers.Bidirectional(layers.RNN(cell, return_sequences=True))(x))


def assert_round_trips(model, **kwargs):
    clone = kg.model_from_json(model.to_json(), **kwargs)
    clone.set_weights(model.get_weights())
    np.testing.assert_allclose(clone(SEQUENCES), model(SEQUENCES), rtol=1e-6)
    return clone


def test_custom_cell_in_bidirectional_round_trips_with_custom_objects():
    model = bidirectional_model(MinimalCell(4))
    assert model(SEQUENCES).shape == (2, 5, 8)
    with pytest.raises(ValueError, match="Could not locate class 'MinimalCell'"):
        kg.model_from_json(model.to_json())
    clone = assert_round_trips(model, custom_objects={"MinimalCell": MinimalCell})
    wrapper = clone.layers[1]
    assert isinstance(wrapper.forward_layer.cell, MinimalCell)
    assert isinstance(wrapper.backward_layer.cell, MinimalCell)


def test_registered_custom_cell_in_bidirectional_round_trips(monkeypatch):
    monkeypatch.setattr(catalog, "_GLOBAL_CUSTOM_OBJECTS", {})
    monkeypatch.setattr(catalog, "_GLOBAL_CUSTOM_NAMES", {})

    @kg.register_layer(package="cells")
    class RegisteredCell(MinimalCell):
        pass

    clone = assert_round_trips(bidirectional_model(RegisteredCell(3)))
    assert isinstance(clone.layers[1].forward_layer.cell, RegisteredCell)


def double(x):
    return 2.0 * x


def test_lambda_in_time_distributed_is_refused_in_safe_mode_like_a_top_level_lambda():
    x = kg.Input(shape=(5, 3))
    model = kg.Model(x, layers.TimeDistributed(layers.Lambda(double, name="fn"))(x))
    text = model.to_json()
    with pytest.raises(ValueError, match='Refusing to deserialize layer "fn" of class Lambda'):
        kg.model_from_json(text)
    clone = kg.model_from_json(text, custom_objects={"double": double}, safe_mode=False)
    np.testing.assert_allclose(clone(SEQUENCES), 2.0 * SEQUENCES, rtol=1e-6)


def test_a_layer_built_from_several_inputs_deserializes_built_for_all_of_them():
    query, value = kg.Input(shape=(4, 6)), kg.Input(shape=(5, 3))
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    mha(query, value)
    config = saving.serialize_layer(mha)
    assert config["build_config"] == {"shapes_dict": {"query_shape": [None, 4, 6],
                                                      "value_shape": [None, 5, 3]}}
    clone = saving.deserialize_layer(config)
    assert clone.built
    assert [w.shape for w in clone.weights] == [w.shape for w in mha.weights]
