"""Pooling layers: values against NumPy references (TF "same" padding), masks, errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers
from tests.support.helpers import MakeMask


def _rand(rng, *shape):
    return rng.normal(size=shape).astype(np.float32)


def _pool_ref(x, pool, strides, padding, mode):
    """NumPy 2D pooling, channels last; "same" windows only count real elements."""
    n, h, w, c = x.shape
    if padding == "valid":
        oh, ow = (h - pool[0]) // strides[0] + 1, (w - pool[1]) // strides[1] + 1
        top = left = 0
    else:
        oh, ow = -(-h // strides[0]), -(-w // strides[1])
        top = max((oh - 1) * strides[0] + pool[0] - h, 0) // 2
        left = max((ow - 1) * strides[1] + pool[1] - w, 0) // 2
    out = np.zeros((n, oh, ow, c), np.float64)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * strides[0] - top, j * strides[1] - left
            window = x[:, max(r0, 0):r0 + pool[0], max(c0, 0):c0 + pool[1]]
            out[:, i, j] = window.max(axis=(1, 2)) if mode == "max" else window.mean(axis=(1, 2))
    return out


@pytest.mark.parametrize("mode", ["max", "average"])
@pytest.mark.parametrize("pool,strides,padding", [
    ((2, 2), None, "valid"), ((3, 3), (2, 2), "same"), ((3, 2), (1, 2), "same"),
    ((2, 3), (2, 1), "valid"), ((4, 4), (3, 3), "same")])
def test_pooling2d_matches_numpy(mode, pool, strides, padding, rng):
    x = _rand(rng, 2, 7, 6, 3)
    cls = layers.MaxPooling2D if mode == "max" else layers.AveragePooling2D
    layer = cls(pool, strides=strides, padding=padding)
    out = np.asarray(layer(x))
    expected = _pool_ref(x, pool, strides or pool, padding, mode)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    assert layer.compute_output_shape((None, 7, 6, 3)) == (None, *expected.shape[1:])
    first = cls(pool, strides=strides, padding=padding, data_format="channels_first")
    np.testing.assert_allclose(np.asarray(first(x.transpose(0, 3, 1, 2))),
                               expected.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-6)


def test_same_average_pooling_excludes_padding_from_the_count():
    x = np.ones((1, 3, 1), np.float32)
    np.testing.assert_allclose(layers.AveragePooling1D(2, strides=2, padding="same")(x),
                               np.ones((1, 2, 1)))  # the last window has 1 real element


def test_pooling1d_and_3d(rng):
    x = _rand(rng, 2, 7, 3)
    out = np.asarray(layers.MaxPooling1D(3, strides=2)(x))
    np.testing.assert_allclose(out, np.stack([x[:, i:i + 3].max(1) for i in (0, 2, 4)], 1))
    v = _rand(rng, 1, 4, 4, 2, 2)
    out = np.asarray(layers.AveragePooling3D()(v))
    expected = v.reshape(1, 2, 2, 2, 2, 1, 2, 2).mean(axis=(2, 4, 6))
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    assert out.shape == (1, 2, 2, 1, 2)


def test_max_pooling_keeps_int_dtype_and_average_pools_to_float():
    x = np.arange(16, dtype=np.int32).reshape(1, 4, 4, 1)
    out = layers.MaxPooling2D()(x)
    assert out.dtype == jnp.int32
    np.testing.assert_array_equal(np.asarray(out)[0, :, :, 0], [[5, 7], [13, 15]])
    avg = layers.AveragePooling2D()
    assert avg(x).dtype == jnp.float32
    assert avg(kg.Input(shape=(4, 4, 1), dtype="int32")).dtype == jnp.float32


def test_global_pooling_values_and_keepdims(rng):
    x = _rand(rng, 2, 3, 4, 5)
    np.testing.assert_allclose(layers.GlobalAveragePooling2D()(x), x.mean((1, 2)), rtol=1e-5)
    np.testing.assert_allclose(layers.GlobalMaxPooling2D(keepdims=True)(x),
                               x.max((1, 2), keepdims=True))
    np.testing.assert_allclose(layers.GlobalAveragePooling2D(data_format="channels_first")(x),
                               x.mean((2, 3)), rtol=1e-5)
    v = _rand(rng, 2, 2, 3, 2, 4)
    np.testing.assert_allclose(layers.GlobalMaxPooling3D()(v), v.max((1, 2, 3)))
    assert layers.GlobalAveragePooling3D(keepdims=True).compute_output_shape(
        (None, 2, 3, 2, 4)) == (None, 1, 1, 1, 4)
    assert layers.GlobalMaxPooling1D(data_format="channels_first").compute_output_shape(
        (None, 4, 7)) == (None, 4)


MASK = np.array([[True, True, False, True, False], [False, False, True, True, True]])


def test_global_average_pooling1d_masked_mean(rng):
    x = _rand(rng, 2, 5, 3)
    out = np.asarray(layers.GlobalAveragePooling1D()(x, mask=MASK))
    expected = np.stack([x[b][MASK[b]].mean(0) for b in range(2)])
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    first = layers.GlobalAveragePooling1D(data_format="channels_first", keepdims=True)
    out = np.asarray(first(x.transpose(0, 2, 1), mask=MASK))
    np.testing.assert_allclose(out[..., 0], expected, rtol=1e-5, atol=1e-6)
    empty = layers.GlobalAveragePooling1D()(x, mask=np.zeros((2, 5), bool))
    assert np.isnan(np.asarray(empty)).all()  # 0 / 0, as Keras


def test_global_max_pooling1d_takes_every_step_and_has_no_mask_argument(rng):
    x = _rand(rng, 2, 5, 3)
    with pytest.warns(UserWarning, match="does not support masking"):
        out = np.asarray(layers.GlobalMaxPooling1D()(layers.Masking(mask_value=x[0, 2, 0])(x)))
    np.testing.assert_allclose(out, x.max(1))
    with pytest.raises(TypeError, match="mask"):
        layers.GlobalMaxPooling1D()(x, mask=MASK)


class _SeesMask(kg.Layer):
    """Returns 1 where it got a mask, 0 otherwise (to see whether a mask flows)."""

    def call(self, inputs, mask=None):
        return jnp.full(inputs.shape[:1], 0.0 if mask is None else 1.0)


@pytest.mark.filterwarnings("ignore:Layer .* does not support masking")
@pytest.mark.parametrize("cls", [layers.GlobalAveragePooling1D, layers.GlobalMaxPooling1D])
def test_graph_masks_reach_global_pooling_and_stop_there(cls):
    x = kg.Input(shape=(4, 2))
    pooled = cls(name="pool")(MakeMask()(x))
    model = kg.Model(x, [pooled, _SeesMask()(pooled)])
    data = np.arange(1, 17, dtype=np.float32).reshape(2, 4, 2)
    data[:, 1, 0] = 0.0  # step 1 masked
    data[0, 1, 1] = 1e3
    keep = data[:, [0, 2, 3]]
    # the average leaves masked steps out; the max takes every step (as Keras)
    expected = keep.mean(1) if cls is layers.GlobalAveragePooling1D else data.max(1)
    program = compiler.compile(model)
    (out, seen), _ = jax.jit(program.apply)(*compiler.variables(model), data)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    np.testing.assert_array_equal(seen, [0.0, 0.0])  # the pooled output carries no mask


@pytest.mark.parametrize("make,match", [
    (lambda: layers.MaxPooling2D(0), "pool_size"),
    (lambda: layers.MaxPooling2D((2, 2, 2)), "pool_size"),
    (lambda: layers.AveragePooling1D(2, strides=0), "strides"),
    (lambda: layers.AveragePooling2D(padding="causal"), "padding"),
    (lambda: layers.MaxPooling3D(data_format="ncdhw"), "data_format"),
    (lambda: layers.GlobalAveragePooling2D(data_format="x"), "data_format"),
])
def test_invalid_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_pool_larger_than_input_names_the_layer():
    with pytest.raises(ValueError, match='"too_big".*zero or negative'):
        layers.MaxPooling2D(4, name="too_big")(kg.Input(shape=(3, 3, 1)))
    # "same" keeps every window
    assert layers.MaxPooling2D(4, padding="same")(kg.Input(shape=(3, 3, 1))).shape == (
        None, 1, 1, 1)


def test_config_keys_and_defaults():
    config = layers.MaxPooling2D().get_config()
    assert config["pool_size"] == (2, 2) and config["strides"] == (2, 2)
    assert set(config) == {"name", "trainable", "dtype", "pool_size", "padding", "strides",
                           "data_format"}
    assert layers.MaxPooling1D().pool_size == (2,)
    assert layers.AveragePooling3D().pool_size == (2, 2, 2)
    assert set(layers.GlobalMaxPooling1D().get_config()) == {
        "name", "trainable", "dtype", "data_format", "keepdims"}


@pytest.mark.parametrize("make", [
    lambda: layers.MaxPooling2D(name="fresh"), lambda: layers.AveragePooling1D(name="fresh"),
    lambda: layers.GlobalAveragePooling2D(name="fresh"),
    lambda: layers.GlobalMaxPooling1D(name="fresh")])
def test_an_unbuilt_layer_refuses_a_wrong_rank_by_name(make):
    for value in (kg.Input(shape=(4,)), np.zeros((1, 4), np.float32)):
        with pytest.raises(ValueError, match='"fresh".*expected ndim='):
            make()(value)


def test_pooling_gradients_with_respect_to_inputs(rng):
    """Max pooling routes the gradient to each window's maximum; "same" average pooling
    spreads it over the real elements only (this failed when the init value was traced)."""
    x = jnp.asarray(_rand(rng, 1, 4, 3, 1))
    grad = jax.jit(jax.grad(lambda v: layers.MaxPooling2D(2, padding="same")(v).sum()))(x)
    expected = np.zeros((1, 4, 3, 1), np.float32)
    xs = np.asarray(x)[0, :, :, 0]
    for r0 in (0, 2):
        for c0 in (0, 2):
            window = xs[r0:r0 + 2, c0:c0 + 2]
            r, c = np.unravel_index(window.argmax(), window.shape)
            expected[0, r0 + r, c0 + c, 0] = 1.0
    np.testing.assert_allclose(grad, expected)
    grad = jax.jit(jax.grad(lambda v: layers.AveragePooling2D(2, padding="same")(v).sum()))(x)
    expected = np.full((1, 4, 3, 1), 0.25, np.float32)
    expected[0, :, 2] = 0.5  # the last column's windows hold 2 real elements
    np.testing.assert_allclose(grad, expected, rtol=1e-6)
