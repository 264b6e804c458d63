"""Normalization layers' own behaviour against NumPy references (generic checks are in
test_conformance.py; Keras comparisons in test_keras_oracle_normalization.py)."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import initializers, layers
from tests.support.helpers import MakeMask


def _data(*shape, seed=0):
    return (np.random.default_rng(seed).normal(size=shape) * 3 + 1).astype(np.float32)


class MaskOf(kg.Layer):
    """Outputs the mask it receives as float (to observe mask propagation)."""

    def call(self, inputs, mask=None):
        return jnp.ones(inputs.shape[:2]) if mask is None else mask.astype(jnp.float32)


# --------------------------------------------------------------- LayerNormalization
def _layer_norm_ref(x, axes, gamma, beta, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def test_layer_norm_matches_numpy_last_axis():
    layer = layers.LayerNormalization(epsilon=1e-5)
    x = _data(4, 6)
    layer(x)
    gamma, beta = _data(6, seed=1), _data(6, seed=2)
    layer.set_weights([gamma, beta])
    assert [v.name for v in layer.weights] == ["gamma", "beta"]
    np.testing.assert_allclose(layer(x), _layer_norm_ref(x, (1,), gamma, beta, 1e-5),
                               rtol=1e-5, atol=1e-5)


def test_layer_norm_multiple_axes_weights_and_values():
    layer = layers.LayerNormalization(axis=(1, 2))
    x = _data(2, 3, 4)
    layer(x)
    assert [v.shape for v in layer.weights] == [(3, 4), (3, 4)]
    assert layer.get_config()["axis"] == [1, 2]
    gamma, beta = _data(3, 4, seed=3), _data(3, 4, seed=4)
    layer.set_weights([gamma, beta])
    np.testing.assert_allclose(layer(x), _layer_norm_ref(x, (1, 2), gamma, beta, 1e-3),
                               rtol=1e-5, atol=1e-5)


def test_layer_norm_axis_not_last_broadcasts_weights():
    layer = layers.LayerNormalization(axis=1, gamma_initializer=initializers.Constant(2.0),
                                      beta_initializer="ones")
    x = _data(2, 3, 4)
    np.testing.assert_allclose(layer(x), _layer_norm_ref(x, (1,), 2.0, 1.0, 1e-3),
                               rtol=1e-5, atol=1e-5)


def test_layer_norm_rms_scaling_is_keras_variance_scaling_without_beta():
    with pytest.warns(UserWarning, match="deprecated"):
        layer = layers.LayerNormalization(rms_scaling=True)
    x = _data(3, 5)
    out = layer(x)
    assert [v.name for v in layer.weights] == ["gamma"]
    np.testing.assert_allclose(out, x / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-3),
                               rtol=1e-5, atol=1e-5)


def test_layer_norm_without_center_and_scale_has_no_weights():
    layer = layers.LayerNormalization(center=False, scale=False)
    x = _data(2, 4)
    np.testing.assert_allclose(layer(x), _layer_norm_ref(x, (1,), 1.0, 0.0, 1e-3), rtol=1e-5,
                               atol=1e-5)
    assert layer.weights == []


def test_layer_norm_argument_and_shape_errors():
    with pytest.raises(TypeError, match="axis"):
        layers.LayerNormalization(axis="last")
    with pytest.raises(ValueError, match="out of bounds"):
        layers.LayerNormalization(axis=3)(kg.Input(shape=(4,)))
    layer = layers.LayerNormalization(name="ln")
    layer(kg.Input(shape=(4,)))
    with pytest.raises(ValueError, match='layer "ln" is incompatible.*value 4'):
        layer(np.ones((2, 5), np.float32))


def test_layer_norm_passes_masks_and_regularizes_gamma():
    x = kg.Input(shape=(3, 2))
    norm = layers.LayerNormalization(gamma_regularizer="l2", name="ln")
    model = kg.Model(x, MaskOf()(norm(MakeMask()(x))))
    data = np.ones((1, 3, 2), np.float32)
    data[0, 1, 0] = 0.0
    np.testing.assert_allclose(model(data), [[1.0, 0.0, 1.0]])
    program = compiler.compile(model)
    _, _, losses = program.apply(*compiler.variables(model), data, return_losses=True)
    np.testing.assert_allclose(losses, 0.01 * 2.0, rtol=1e-6)  # l2 on gamma = ones(2)


def test_layer_norm_config_is_json_and_round_trips_initializer_objects():
    layer = layers.LayerNormalization(axis=[-2, -1], gamma_initializer=initializers.Constant(3.0),
                                      beta_constraint="non_neg")
    config = json.loads(json.dumps(layer.get_config()))
    assert config["gamma_initializer"] == {"class_name": "Constant", "config": {"value": 3.0}}
    clone = layers.LayerNormalization.from_config(config)
    clone(np.ones((1, 2, 2), np.float32))
    np.testing.assert_allclose(clone.get_weights()[0], np.full((2, 2), 3.0))
    assert clone.get_config() == config


# ----------------------------------------------------------- GroupNormalization
def _group_norm_ref(x, groups, eps):
    b, *spatial, c = x.shape
    g = x.reshape(b, *spatial, groups, c // groups)
    axes = tuple(range(1, g.ndim - 2)) + (g.ndim - 1,)
    mean = g.mean(axis=axes, keepdims=True)
    var = g.var(axis=axes, keepdims=True)
    return ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)


@pytest.mark.parametrize("groups", [1, 2, 4, -1])
def test_group_norm_matches_numpy(groups):
    x = _data(2, 3, 3, 4)
    layer = layers.GroupNormalization(groups=groups, epsilon=1e-5)
    out = layer(x)
    expected = _group_norm_ref(x, 4 if groups == -1 else groups, 1e-5)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    assert layer.groups == (4 if groups == -1 else groups)


def test_group_norm_channels_first_axis_and_affine():
    x = _data(2, 4, 5)  # channels on axis 1
    layer = layers.GroupNormalization(groups=2, axis=1)
    layer(x)
    gamma, beta = _data(4, seed=5), _data(4, seed=6)
    layer.set_weights([gamma, beta])
    moved = np.moveaxis(x, 1, -1)
    expected = _group_norm_ref(moved, 2, 1e-3) * gamma + beta
    np.testing.assert_allclose(layer(x), np.moveaxis(expected, -1, 1), rtol=1e-4, atol=1e-4)


def test_group_norm_validation_errors():
    with pytest.raises(ValueError, match="invalid value for argument `groups`"):
        layers.GroupNormalization(groups=0)
    with pytest.raises(ValueError, match="cannot be more than the number of channels"):
        layers.GroupNormalization(groups=8)(kg.Input(shape=(4,)))
    with pytest.raises(ValueError, match="must be a multiple"):
        layers.GroupNormalization(groups=3)(kg.Input(shape=(4,)))
    with pytest.raises(ValueError, match="defined dimension"):
        layers.GroupNormalization(groups=1)(kg.Input(shape=(None,)))


# ------------------------------------------------------ UnitNormalization / RMS
def test_unit_normalization_values_and_zero_input():
    x = _data(3, 2, 4)
    out = layers.UnitNormalization(axis=[1, 2])(x)
    np.testing.assert_allclose(out, x / np.sqrt((x ** 2).sum(axis=(1, 2), keepdims=True)),
                               rtol=1e-5)
    np.testing.assert_array_equal(layers.UnitNormalization()(np.zeros((1, 3), np.float32)),
                                  np.zeros((1, 3)))
    with pytest.raises(TypeError, match="Invalid value for `axis`"):
        layers.UnitNormalization(axis=1.5)


def test_rms_normalization_values_weight_and_axis():
    x = _data(2, 3, 4)
    layer = layers.RMSNormalization()
    layer(x)
    assert [(v.name, v.shape) for v in layer.weights] == [("scale", (4,))]
    scale = _data(4, seed=7)
    layer.set_weights([scale])
    rms = np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(layer(x), x / rms * scale, rtol=1e-5, atol=1e-5)
    by_axis1 = layers.RMSNormalization(axis=1, epsilon=0.0)
    np.testing.assert_allclose(by_axis1(x), x / np.sqrt((x ** 2).mean(axis=1, keepdims=True)),
                               rtol=1e-5)


@pytest.mark.parametrize("make", [
    lambda **kw: layers.LayerNormalization(**kw),
    lambda **kw: layers.GroupNormalization(groups=2, **kw),
    lambda **kw: layers.RMSNormalization(**kw),
    lambda **kw: layers.UnitNormalization(**kw),
    lambda **kw: layers.BatchNormalization(**kw),
])
def test_statistics_in_float32_under_half_precision(make):
    """Inputs near 300 (exact in bfloat16, step 2): statistics or centring done in bfloat16
    would be off by about a step; float32 statistics match the float32 layer."""
    rng = np.random.default_rng(0)
    x = (300.0 + 2.0 * rng.integers(-3, 4, size=(4, 8))).astype(np.float32)
    reference = np.asarray(make()(x, training=True), np.float32)
    for policy in ("mixed_bfloat16", "bfloat16"):
        out = make(dtype=policy)(x.astype(jnp.bfloat16), training=True)
        assert out.dtype == jnp.bfloat16
        np.testing.assert_allclose(np.asarray(out, np.float32), reference, atol=0.03, rtol=0.01)


# ----------------------------------------------------------- BatchNormalization
def test_batch_norm_training_updates_moving_statistics_and_inference_uses_them():
    layer = layers.BatchNormalization(momentum=0.5, epsilon=1e-3)
    x = _data(6, 3)
    out = layer(x, training=True)
    mean, var = x.mean(axis=0), x.var(axis=0)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-4)
    moving_mean, moving_var = layer.get_weights()[2:]
    np.testing.assert_allclose(moving_mean, 0.5 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(moving_var, 0.5 + 0.5 * var, rtol=1e-5)
    np.testing.assert_allclose(layer(x), (x - moving_mean) / np.sqrt(moving_var + 1e-3),
                               rtol=1e-5, atol=1e-5)


def test_batch_norm_masked_moments_ignore_masked_steps():
    x = _data(2, 5, 3)
    mask = np.array([[1, 1, 0, 1, 0], [1, 0, 1, 1, 1]], bool)
    layer = layers.BatchNormalization(momentum=0.0, epsilon=1e-3)
    out = layer(x, training=True, mask=mask)
    kept = x[mask]
    mean, var = kept.mean(axis=0), kept.var(axis=0)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(layer.get_weights()[2], mean, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(layer.get_weights()[3], var, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="one dimension less"):
        layer(x, training=True, mask=mask[:, :, None])


def test_batch_norm_mask_flows_in_a_compiled_graph():
    x = kg.Input(shape=(4, 2))
    bn = layers.BatchNormalization(momentum=0.0, name="bn")
    model = kg.Model(x, MaskOf()(bn(MakeMask()(x))))
    data = _data(3, 4, 2)
    data[:, 1, 0] = 0.0
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    out, new_state = jax.jit(lambda p, s, d: program.apply(p, s, d, training=True))(
        params, state, data)
    np.testing.assert_allclose(out[:, 1], 0.0)
    kept = data[data[..., 0] != 0]
    np.testing.assert_allclose(new_state["bn"]["moving_mean"], kept.mean(axis=0), rtol=1e-5,
                               atol=1e-5)


def test_batch_norm_axis_list_and_not_trainable():
    layer = layers.BatchNormalization(axis=[1, 2], momentum=0.0)
    x = _data(5, 2, 3)
    out = layer(x, training=True)
    assert [v.shape for v in layer.weights] == [(2, 3)] * 4
    np.testing.assert_allclose(out, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), rtol=1e-4,
                               atol=1e-4)
    frozen = layers.BatchNormalization(trainable=False)
    np.testing.assert_allclose(frozen(x, training=True), x / np.sqrt(1 + 1e-3), rtol=1e-6)
    np.testing.assert_array_equal(frozen.get_weights()[2], np.zeros(3))


def test_batch_norm_moving_statistics_stay_float32_under_mixed_precision():
    layer = layers.BatchNormalization(momentum=0.9, dtype="mixed_bfloat16")
    x = np.full((4, 2), 1.0 + 2 ** -12, np.float32)  # not representable in bfloat16
    layer(x, training=True)
    moving_mean = layer.weights[2]
    assert moving_mean.dtype == jnp.float32
    # the bf16 input is 1.0; the update 0.1 * 1.0 is exact in float32, not rounded to bf16
    np.testing.assert_allclose(moving_mean.numpy(), np.full(2, 0.1, np.float32), rtol=1e-7)


def test_batch_norm_renorm_and_errors():
    with pytest.raises(ValueError, match="invalid keys"):
        layers.BatchNormalization(renorm=True, renorm_clipping={"bad": 1})
    with pytest.raises(ValueError, match="rmax should be greater"):
        layers.BatchNormalization(renorm=True, renorm_clipping={"rmax": 0.5, "rmin": 1.0})
    layer = layers.BatchNormalization(renorm=True, momentum=0.0, renorm_momentum=0.0)
    x = _data(8, 2)
    out = layer(x, training=True)
    names = [v.name for v in layer.weights]
    assert names == ["gamma", "beta", "moving_mean", "moving_variance", "moving_stddev",
                     "renorm_mean", "renorm_stddev"]
    # renorm_stddev starts at 1, renorm_mean at 0: r = std, d = mean, so the output is x
    np.testing.assert_allclose(out, x, rtol=1e-4, atol=1e-4)
    weights = dict(zip(names, layer.get_weights()))
    np.testing.assert_allclose(weights["moving_variance"], x.var(0), rtol=1e-4)
    np.testing.assert_allclose(weights["renorm_stddev"], np.sqrt(x.var(0) + 1e-3), rtol=1e-5)
