"""Normalization layers, activation layers, activation functions and the deterministic
parts of the regularization layers against Keras 3 (JAX backend): same weights in, same
outputs (and updated moving statistics) out; same weight names/layouts and config keys."""


import warnings

import numpy as np
import pytest

from kgraph import activations, layers

keras = pytest.importorskip("keras")


def _x(rng, *shape):
    return (rng.normal(size=shape) * 2 + 0.5).astype(np.float32)


def _pair(name, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LayerNormalization(rms_scaling=True) warns in both
        return getattr(keras.layers, name)(*args, **kwargs), getattr(layers, name)(*args,
                                                                                 **kwargs)


def _same_weights(rng, keras_layer, kg_layer, shape, randomize=True):
    """Build both; check weight names/shapes; give both the same (random) values."""
    keras_layer.build(shape)
    kg_layer.build(shape)
    assert [w.name for w in kg_layer.weights] == [w.name for w in keras_layer.weights]
    assert [tuple(w.shape) for w in kg_layer.weights] == [
        tuple(w.shape) for w in keras_layer.weights]
    values = keras_layer.get_weights()
    if randomize:
        values = [rng.uniform(0.5, 1.5, size=np.shape(w)).astype(np.float32) for w in values]
        keras_layer.set_weights(values)
    kg_layer.set_weights(values)


def _assert_weights_equal(keras_layer, kg_layer, rtol=1e-5, atol=1e-6):
    for expected, got in zip(keras_layer.get_weights(), kg_layer.get_weights()):
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def _config_keys_match(keras_layer, kg_layer, keras_only=()):
    assert set(keras_layer.get_config()) - set(kg_layer.get_config()) == set(keras_only)
    assert set(kg_layer.get_config()) <= set(keras_layer.get_config())


# ----------------------------------------------------------- BatchNormalization
@pytest.mark.parametrize("kwargs, shape", [
    ({}, (6, 4)),
    ({"axis": 1, "momentum": 0.8, "epsilon": 1e-5}, (3, 4, 5)),
    ({"center": False}, (4, 2, 3)),
    ({"scale": False, "momentum": 0.5}, (5, 3)),
])
def test_batch_norm_inference_and_one_training_step(kwargs, shape, rng):
    keras_layer, kg_layer = _pair("BatchNormalization", **kwargs)
    _same_weights(rng, keras_layer, kg_layer, shape)
    x = _x(rng, *shape)
    np.testing.assert_allclose(kg_layer(x), keras_layer(x), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(kg_layer(x, training=True), keras_layer(x, training=True),
                               rtol=1e-4, atol=1e-5)
    _assert_weights_equal(keras_layer, kg_layer)  # the updated moving statistics
    np.testing.assert_allclose(kg_layer(x), keras_layer(x), rtol=1e-5, atol=1e-5)
    _config_keys_match(keras_layer, kg_layer)


def test_batch_norm_masked_training_step(rng):
    keras_layer, kg_layer = _pair("BatchNormalization", momentum=0.7)
    _same_weights(rng, keras_layer, kg_layer, (3, 5, 4))
    x = _x(rng, 3, 5, 4)
    mask = rng.random((3, 5)) > 0.4
    np.testing.assert_allclose(kg_layer(x, training=True, mask=mask),
                               keras_layer(x, training=True, mask=mask), rtol=1e-4, atol=1e-5)
    _assert_weights_equal(keras_layer, kg_layer)


def test_batch_norm_renorm_training_steps(rng):
    kwargs = {"renorm": True, "momentum": 0.8, "renorm_momentum": 0.7,
              "renorm_clipping": {"rmax": 1.2, "rmin": 0.8, "dmax": 0.3}}
    keras_layer, kg_layer = _pair("BatchNormalization", **kwargs)
    _same_weights(rng, keras_layer, kg_layer, (6, 3))
    for _ in range(2):
        x = _x(rng, 6, 3)
        np.testing.assert_allclose(kg_layer(x, training=True), keras_layer(x, training=True),
                                   rtol=1e-4, atol=1e-5)
        _assert_weights_equal(keras_layer, kg_layer)
    np.testing.assert_allclose(kg_layer(x), keras_layer(x), rtol=1e-5, atol=1e-5)


# ------------------------------------------------------ other normalization layers
@pytest.mark.parametrize("name, kwargs, shape", [
    ("LayerNormalization", {}, (3, 6)),
    ("LayerNormalization", {"axis": [1, 2], "epsilon": 1e-5}, (2, 3, 4)),
    ("LayerNormalization", {"axis": 1, "center": False}, (2, 3, 4)),
    ("LayerNormalization", {"rms_scaling": True}, (3, 5)),
    ("GroupNormalization", {"groups": 2}, (2, 3, 4)),
    ("GroupNormalization", {"groups": -1, "epsilon": 1e-5}, (2, 3, 3, 4)),
    ("GroupNormalization", {"groups": 3, "axis": 1, "scale": False}, (2, 6, 5)),
    ("RMSNormalization", {}, (3, 6)),
    ("RMSNormalization", {"axis": [1, 2], "epsilon": 1e-3}, (2, 3, 4)),
    ("UnitNormalization", {}, (3, 6)),
    ("UnitNormalization", {"axis": [1, 2]}, (2, 3, 4)),
])
def test_normalization_layers(name, kwargs, shape, rng):
    keras_layer, kg_layer = _pair(name, **kwargs)
    _same_weights(rng, keras_layer, kg_layer, shape)
    x = _x(rng, *shape)
    np.testing.assert_allclose(kg_layer(x), keras_layer(x), rtol=1e-5, atol=1e-5)
    _config_keys_match(keras_layer, kg_layer)


# ------------------------------------------------------------- activation layers
@pytest.mark.parametrize("name, kwargs, shape", [
    ("PReLU", {}, (4, 5)),
    ("PReLU", {"shared_axes": [1, 2]}, (2, 3, 3, 4)),
    ("PReLU", {"shared_axes": 1}, (2, 3, 4)),
    ("ReLU", {}, (4, 5)),
    ("ReLU", {"max_value": 1.5, "negative_slope": 0.1, "threshold": 0.2}, (4, 5)),
    ("ReLU", {"max_value": 6.0}, (4, 5)),
    ("LeakyReLU", {}, (4, 5)),
    ("LeakyReLU", {"negative_slope": 0.05}, (4, 5)),
    ("ELU", {"alpha": 0.7}, (4, 5)),
    ("Softmax", {}, (3, 5)),
    ("Softmax", {"axis": [1, 2]}, (2, 3, 4)),
    ("Softmax", {"axis": 1}, (2, 3, 4)),
])
def test_activation_layers(name, kwargs, shape, rng):
    keras_layer, kg_layer = _pair(name, **kwargs)
    _same_weights(rng, keras_layer, kg_layer, shape)
    x = _x(rng, *shape)
    np.testing.assert_allclose(kg_layer(x), keras_layer(x), rtol=1e-5, atol=1e-6)
    _config_keys_match(keras_layer, kg_layer)


def test_prelu_default_alpha_is_zero_as_keras(rng):
    keras_layer, kg_layer = _pair("PReLU")
    _same_weights(rng, keras_layer, kg_layer, (2, 3), randomize=False)
    np.testing.assert_array_equal(kg_layer.get_weights()[0], np.zeros(3))


def test_softmax_with_mask(rng):
    keras_layer, kg_layer = _pair("Softmax")
    x = _x(rng, 2, 3, 5)
    for mask in (rng.random((2, 3, 5)) > 0.5, rng.random((2, 1, 5)) > 0.3,
                 (rng.random((2, 3, 5)) > 0.5).astype(np.float32)):
        np.testing.assert_allclose(kg_layer(x, mask=mask), keras_layer(x, mask=mask),
                                   rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------ activation functions
# sparsemax: Keras 3.15 computes tau from the sum of the cumulative sums (not a projection
# onto the simplex: equal logits give all zeros); kgraph follows the paper, tested in
# test_layers_activation.py.
@pytest.mark.parametrize("name", sorted(set(activations._BY_NAME) - {"sparsemax"}))
def test_every_activation_by_name(name, rng):
    x = _x(rng, 3, 6)
    expected = np.asarray(keras.activations.get(name)(x))
    np.testing.assert_allclose(activations.get(name)(x), expected, rtol=1e-5, atol=1e-6)


def test_activation_names_cover_keras():
    keras_names = {n for n in dir(keras.activations)
                   if not n.startswith("_") and n not in ("get", "serialize", "deserialize",
                                                          "threshold")}
    assert keras_names <= set(activations._BY_NAME)


# ------------------------------------------ regularization layers (deterministic parts)
@pytest.mark.parametrize("name, args, kwargs, shape", [
    ("SpatialDropout1D", (0.3,), {}, (2, 4, 3)),
    ("SpatialDropout2D", (0.3,), {"data_format": "channels_first"}, (2, 3, 4, 4)),
    ("SpatialDropout3D", (0.3,), {}, (2, 2, 2, 2, 3)),
    ("GaussianNoise", (0.3,), {"seed": 1}, (2, 3)),
    ("GaussianDropout", (0.3,), {}, (2, 3)),
    ("AlphaDropout", (0.3,), {"noise_shape": [None, 1]}, (2, 3)),
    ("ActivityRegularization", (), {"l1": 0.1, "l2": 0.2}, (2, 3)),
])
def test_regularization_layers_in_inference_and_configs(name, args, kwargs, shape, rng):
    keras_layer, kg_layer = _pair(name, *args, **kwargs)
    x = _x(rng, *shape)
    np.testing.assert_array_equal(kg_layer(x), keras_layer(x))
    kg_config, keras_config = kg_layer.get_config(), keras_layer.get_config()
    assert set(kg_config) == set(keras_config)
    for key in set(kg_config) - {"name", "dtype"}:
        assert kg_config[key] == keras_config[key], key


def test_activity_regularization_loss_matches_keras(rng):
    keras_layer, kg_layer = _pair("ActivityRegularization", l1=0.1, l2=0.2)
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras_layer(inputs))
    x = _x(rng, 2, 3)
    model(x)
    kg_layer(x)
    np.testing.assert_allclose(kg_layer.losses[0], model.losses[0], rtol=1e-6)
