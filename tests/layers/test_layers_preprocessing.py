"""Preprocessing layers' own behaviour (generic checks are in test_conformance.py)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers


# ------------------------------------------------------------------- Rescaling
def test_rescaling_values_dtypes_and_array_scale():
    pixels = np.array([[0, 128, 255]], np.uint8)
    out = layers.Rescaling(1 / 127.5, offset=-1)(pixels)
    assert out.dtype == jnp.float32
    np.testing.assert_allclose(out, pixels / 127.5 - 1, rtol=1e-6, atol=1e-7)
    per_channel = layers.Rescaling(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(per_channel(np.ones((2, 3), np.float32)), [[1, 2, 3]] * 2)
    assert per_channel.get_config()["scale"] == [1.0, 2.0, 3.0]
    symbolic = layers.Rescaling(0.5, dtype="mixed_bfloat16")(kg.Input(shape=(3,), dtype="uint8"))
    assert symbolic.dtype == jnp.bfloat16


# --------------------------------------------------------------- Normalization
def test_normalization_adapt_computes_feature_statistics(rng):
    data = rng.normal(5.0, 3.0, size=(50, 3)).astype(np.float32)
    layer = layers.Normalization()
    layer.adapt(data)
    mean, variance, count = layer.get_weights()
    np.testing.assert_allclose(mean, data.mean(0), rtol=1e-5)
    np.testing.assert_allclose(variance, data.var(0), rtol=1e-5)
    assert count == 50
    assert [(v.name, v.trainable) for v in layer.weights] == [
        ("mean", False), ("variance", False), ("count", False)]
    np.testing.assert_allclose(layer(data), (data - data.mean(0)) / data.std(0), rtol=1e-4,
                               atol=1e-5)


def test_normalization_adapt_on_batches_equals_whole_array_and_axis_variants(rng):
    data = rng.normal(2.0, 4.0, size=(40, 2, 3)).astype(np.float32)
    whole, batched = layers.Normalization(axis=(1, 2)), layers.Normalization(axis=(1, 2))
    whole.adapt(data)
    batched.adapt([data[:10], (data[10:25], None), data[25:]])  # (x, y) tuples use x
    for a, b in zip(whole.get_weights()[:2], batched.get_weights()[:2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert whole.get_weights()[0].shape == (2, 3)
    scalar = layers.Normalization(axis=None)
    scalar.adapt(data)
    assert scalar.get_weights()[0].shape == ()
    np.testing.assert_allclose(scalar(data), (data - data.mean()) / data.std(), rtol=1e-4,
                               atol=1e-4)


def test_normalization_statistics_live_in_compiled_state(rng):
    data = rng.normal(1.0, 2.0, size=(30, 4)).astype(np.float32)
    norm = layers.Normalization(name="norm")
    norm.adapt(data)
    x_in = kg.Input(shape=(4,))
    model = kg.Model(x_in, norm(x_in))
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    assert params == {} and set(state["norm"]) == {"mean", "variance", "count"}
    out, new_state = jax.jit(program.apply)(params, state, data)
    np.testing.assert_allclose(out, norm(data), rtol=1e-6)
    shifted = {"norm": {**state["norm"], "mean": state["norm"]["mean"] + 1.0}}
    out2, _ = jax.jit(program.apply)(params, shifted, data)
    np.testing.assert_allclose(out - out2, 1.0 / np.sqrt(state["norm"]["variance"]) +
                               np.zeros_like(out), rtol=1e-5)


def test_normalization_errors_before_adapt_but_graphs_can_be_built():
    norm = layers.Normalization(name="norm")
    x_in = kg.Input(shape=(3,))
    model = kg.Model(x_in, norm(x_in))  # symbolic use before adapt is fine
    data = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match='"norm".*adapt'):
        norm(data)
    program = compiler.compile(model)
    with pytest.raises(ValueError, match="adapt"):
        jax.jit(program.apply)(*compiler.variables(model), data)
    norm.adapt(np.array([[0.0, 1.0, 2.0], [2.0, 3.0, 6.0]], np.float32))
    out, _ = jax.jit(program.apply)(*compiler.variables(model), data)
    np.testing.assert_allclose(out, [[0.0, -1.0, -1.5]] * 2, rtol=1e-6)


def test_normalization_restored_weights_count_as_adapted():
    source = layers.Normalization()
    source.adapt(np.array([[1.0], [3.0]], np.float32))
    restored = layers.Normalization()
    restored.build((None, 1))
    restored.set_weights(source.get_weights())
    np.testing.assert_allclose(restored(np.array([[3.0]], np.float32)), [[1.0]])
    # compiler.assign (checkpoint restore) also makes the statistics usable under jit
    x_in = kg.Input(shape=(1,))
    fresh = layers.Normalization(name="fresh")
    model = kg.Model(x_in, fresh(x_in))
    compiler.assign(model, {}, {"fresh": {"mean": np.array([1.0]), "variance": np.array([4.0]),
                                          "count": np.array(2, np.int32)}})
    out, _ = jax.jit(compiler.compile(model).apply)(*compiler.variables(model),
                                                   np.array([[5.0]], np.float32))
    np.testing.assert_allclose(out, [[2.0]])


def test_normalization_given_mean_variance_and_invert():
    layer = layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 0.25])
    data = np.array([[3.0, 3.0]], np.float32)
    np.testing.assert_allclose(layer(data), [[1.0, 2.0]])
    assert layer.weights == []
    inverse = layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 0.25], invert=True)
    np.testing.assert_allclose(inverse(layer(data)), data)
    # a mean of lower rank aligns with the last kept axes
    images = np.ones((1, 2, 2, 3), np.float32)
    per_channel = layers.Normalization(axis=-1, mean=[0.0, 1.0, 2.0], variance=[1.0, 1.0, 1.0])
    np.testing.assert_allclose(per_channel(images)[0, 0, 0], [1.0, 0.0, -1.0])
    config = layer.get_config()
    assert config["mean"] == [1.0, 2.0] and config["axis"] == [-1]


def test_normalization_argument_errors():
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        layers.Normalization(mean=1.0)
    with pytest.raises(ValueError, match="same shape"):
        layers.Normalization(mean=[1.0, 2.0], variance=[1.0])
    with pytest.raises(ValueError, match="rank of `mean`"):
        layers.Normalization(axis=-1, mean=np.zeros((2, 2)), variance=np.ones((2, 2)))
    layer = layers.Normalization()
    layer.adapt(np.ones((4, 3), np.float32))
    with pytest.raises(ValueError, match="incompatible shape"):
        layer.adapt(np.ones((4, 2), np.float32))
    with pytest.raises(ValueError, match="range"):
        layers.Normalization(axis=3)(kg.Input(shape=(2,)))
    with pytest.raises(ValueError, match="cannot also be adapted"):
        layers.Normalization(mean=0.0, variance=1.0).adapt(np.ones((2, 1)))


# -------------------------------------------------------------------- Resizing
def test_resizing_nearest_and_bilinear_values():
    image = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    down = layers.Resizing(2, 2, interpolation="nearest")(image)
    np.testing.assert_array_equal(down[0, :, :, 0], [[5.0, 7.0], [13.0, 15.0]])
    bilinear = layers.Resizing(2, 2)(image)  # half-pixel centres: average of 2x2 blocks
    np.testing.assert_allclose(bilinear[0, :, :, 0], [[2.5, 4.5], [10.5, 12.5]])
    same = layers.Resizing(4, 4)(image)
    np.testing.assert_allclose(same, image)


def test_resizing_crop_pad_channels_first_unbatched_and_int_images(rng):
    image = rng.random((1, 4, 8, 2)).astype(np.float32)
    cropped = layers.Resizing(4, 4, crop_to_aspect_ratio=True)(image)
    np.testing.assert_allclose(cropped, image[:, :, 2:6])  # centred square crop, no resize
    padded = layers.Resizing(8, 8, pad_to_aspect_ratio=True, fill_value=-1.0)(image)
    np.testing.assert_allclose(padded[:, 2:6], image)
    np.testing.assert_array_equal(padded[:, :2], -1.0)
    first = layers.Resizing(2, 4, data_format="channels_first")(np.moveaxis(image, -1, 1))
    np.testing.assert_allclose(first, np.moveaxis(layers.Resizing(2, 4)(image), -1, 1),
                               rtol=1e-6)
    single = layers.Resizing(2, 4)(image[0])
    np.testing.assert_allclose(single, layers.Resizing(2, 4)(image)[0], rtol=1e-6)
    pixels = (rng.random((1, 4, 4, 1)) * 255).astype(np.uint8)
    small = layers.Resizing(2, 2)(pixels)
    assert small.dtype == jnp.uint8
    np.testing.assert_array_equal(small, np.round(layers.Resizing(2, 2)(
        pixels.astype(np.float32))).astype(np.uint8))


def test_resizing_errors_and_shapes():
    with pytest.raises(ValueError, match="interpolation"):
        layers.Resizing(2, 2, interpolation="cubic-ish")
    with pytest.raises(ValueError, match="Only one of"):
        layers.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="min_ndim=3"):
        layers.Resizing(2, 2)(kg.Input(shape=(4,)))
    assert layers.Resizing(3, 5)(kg.Input(shape=(None, None, 3))).shape == (None, 3, 5, 3)
    assert layers.Resizing(3, 5, data_format="channels_first")(
        kg.Input(shape=(3, 8, 8))).shape == (None, 3, 3, 5)


# ------------------------------------------------------------------ CenterCrop
def test_center_crop_slices_the_centre_and_resizes_small_images(rng):
    image = rng.random((2, 5, 6, 3)).astype(np.float32)
    np.testing.assert_array_equal(layers.CenterCrop(3, 2)(image), image[:, 1:4, 2:4])
    first = layers.CenterCrop(3, 2, data_format="channels_first")(np.moveaxis(image, -1, 1))
    np.testing.assert_array_equal(first, np.moveaxis(image[:, 1:4, 2:4], -1, 1))
    larger = layers.CenterCrop(10, 12)(image)  # same aspect ratio: a plain resize
    np.testing.assert_allclose(larger, layers.Resizing(10, 12)(image), rtol=1e-6)
    assert layers.CenterCrop(3, 2)(np.ones((5, 6, 3), np.uint8)).dtype == jnp.float32
