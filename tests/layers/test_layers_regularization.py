"""Regularization layers' own behaviour (generic checks are in test_conformance.py)."""

import jax
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers


@pytest.mark.parametrize("layer, shape, channel_axis", [
    (layers.SpatialDropout1D(0.5), (4, 6, 10), -1),
    (layers.SpatialDropout2D(0.5), (4, 3, 3, 10), -1),
    (layers.SpatialDropout2D(0.5, data_format="channels_first"), (4, 10, 3, 3), 1),
    (layers.SpatialDropout3D(0.5), (2, 2, 2, 2, 10), -1),
    (layers.SpatialDropout3D(0.5, data_format="channels_first"), (2, 10, 2, 2, 2), 1),
])
def test_spatial_dropout_drops_whole_feature_maps(layer, shape, channel_axis, key):
    x = np.ones(shape, np.float32)
    out = np.asarray(layer(x, training=True, key=key))
    assert set(np.unique(out)) <= {0.0, 2.0}  # kept values scaled by 1 / (1 - rate)
    channels = np.moveaxis(out, channel_axis, -1).reshape(shape[0], -1, 10)
    # every (sample, channel) map is all kept or all dropped
    assert np.all(channels.min(axis=1) == channels.max(axis=1))
    assert 0 < (channels == 0).mean() < 1
    np.testing.assert_array_equal(layer(x), x)  # identity in inference


def test_spatial_dropout_config_and_errors():
    config = layers.SpatialDropout2D(0.2, seed=1).get_config()
    assert config["data_format"] == "channels_last" and config["seed"] == 1
    assert "noise_shape" not in config
    assert "data_format" not in layers.SpatialDropout1D(0.2).get_config()
    with pytest.raises(ValueError, match="data_format"):
        layers.SpatialDropout2D(0.2, data_format="nchw")
    with pytest.raises(ValueError, match="rate"):
        layers.SpatialDropout1D(1.5)
    with pytest.raises(ValueError, match="expected ndim=4"):
        layers.SpatialDropout2D(0.2)(kg.Input(shape=(3, 4)))


def test_gaussian_noise_statistics_and_inference_identity(key):
    x = np.full((200, 50), 3.0, np.float32)
    out = np.asarray(layers.GaussianNoise(0.5)(x, training=True, key=key))
    assert abs(out.mean() - 3.0) < 0.02 and abs(out.std() - 0.5) < 0.02
    np.testing.assert_array_equal(layers.GaussianNoise(0.5)(x), x)
    with pytest.raises(ValueError, match="stddev"):
        layers.GaussianNoise(-0.1)


def test_gaussian_dropout_is_multiplicative_unit_mean_noise(key):
    x = np.full((200, 50), 2.0, np.float32)
    out = np.asarray(layers.GaussianDropout(0.2)(x, training=True, key=key))
    expected_std = 2.0 * np.sqrt(0.2 / 0.8)
    assert abs(out.mean() - 2.0) < 0.03 and abs(out.std() - expected_std) < 0.03
    np.testing.assert_array_equal(layers.GaussianDropout(0.2)(x), x)
    with pytest.raises(ValueError, match="rate"):
        layers.GaussianDropout(2)


def test_alpha_dropout_keeps_selu_statistics(key):
    x = np.random.default_rng(0).normal(size=(400, 100)).astype(np.float32)
    layer = layers.AlphaDropout(0.2)
    out = np.asarray(layer(x, training=True, key=key))
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1.0) < 0.02
    dropped_value = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.2) * (1 + 0.2 * dropped_value ** 2)) ** -0.5
    b = -a * dropped_value * 0.2
    dropped = np.isclose(out, a * dropped_value + b, atol=1e-6)
    assert 0.15 < dropped.mean() < 0.25
    np.testing.assert_allclose(out[~dropped], a * x[~dropped] + b, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(layer(x), x)


def test_noise_layers_honour_seed_and_key_in_compiled_training(key):
    x_in = kg.Input(shape=(8,))
    model = kg.Model(x_in, layers.GaussianNoise(0.3, seed=1, name="noise")(x_in))
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    data = np.zeros((2, 8), np.float32)
    apply = jax.jit(lambda d, k: program.apply(params, state, d, training=True, key=k)[0])
    a, b = apply(data, key), apply(data, key)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, apply(data, jax.random.PRNGKey(4)))
    other_seed = layers.GaussianNoise(0.3, seed=2)(data, training=True, key=key)
    assert not np.array_equal(layers.GaussianNoise(0.3, seed=1)(data, training=True, key=key),
                              other_seed)
    with pytest.raises(ValueError, match="needs a random key"):
        program.apply(params, state, data, training=True)


def test_activity_regularization_adds_l1_l2_of_its_input_to_losses():
    x_in = kg.Input(shape=(3,))
    reg = layers.ActivityRegularization(l1=0.1, l2=0.01, name="reg")
    model = kg.Model(x_in, reg(x_in))
    data = np.array([[1.0, -2.0, 3.0]], np.float32)
    out, _, losses = compiler.compile(model).apply({}, {}, data, return_losses=True)
    np.testing.assert_array_equal(out, data)
    np.testing.assert_allclose(losses, 0.1 * 6.0 + 0.01 * 14.0, rtol=1e-6)  # batch of 1
    reg(np.concatenate([data, 3 * data]))  # Keras 3 divides by the batch size
    assert len(reg.losses) == 1
    np.testing.assert_allclose(reg.losses[0], (0.1 * 24.0 + 0.01 * 140.0) / 2, rtol=1e-6)
    config = reg.get_config()
    assert config["l1"] == 0.1 and config["l2"] == 0.01 and "activity_regularizer" not in config
    assert reg.weights == []
