"""RandomShear, RandomPerspective and RandomElasticTransform: Keras's transforms for given
draws, Keras's draw ranges and rates, fixed cases, configs and files, masks moved with the
images, identities in inference, clear errors."""


import inspect

import jax
import jax.numpy as jnp
import keras
import numpy as np
import pytest

import kgraph as kg
from tests.support.helpers import assert_keyed_in_a_program

_img = (np.random.default_rng(0).random((4, 16, 12, 3)) * 255).astype("float32")
_apply = np.array([True, False, True, True])


def _close(ours, theirs, tol=1e-4):
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=tol)


@pytest.mark.parametrize("kwargs", [{}, {"fill_mode": "constant", "fill_value": 7.0},
                                    {"fill_mode": "wrap", "interpolation": "nearest"}])
def test_shear_matches_kerass_transform(kwargs):
    x_amounts = np.array([0.3, -0.2, 0.0, 0.5], "float32")
    y_amounts = np.array([-0.1, 0.4, 0.2, -0.5], "float32")
    ours = kg.layers.RandomShear(0.5, 0.5, **kwargs)
    theirs = keras.layers.RandomShear(0.5, 0.5, **kwargs)
    expected = theirs.transform_images(_img, {"shear_factor": np.stack([x_amounts, y_amounts],
                                                                       axis=1)})
    _close(ours._shear(_img, x_amounts, y_amounts), expected)
    assert not np.allclose(np.asarray(expected), _img)


@pytest.mark.parametrize("kwargs", [{}, {"interpolation": "nearest", "fill_value": 3.0}])
def test_perspective_matches_kerass_transform(kwargs):
    h, w = _img.shape[1:3]
    start = np.broadcast_to(np.array([[0, 0], [w - 1, 0], [0, h - 1], [w - 1, h - 1]],
                                     "float32"), (4, 4, 2))
    end = start * (1 + np.random.default_rng(1).uniform(-0.4, 0.4, (4, 4, 2)))
    ours = kg.layers.RandomPerspective(**kwargs)
    theirs = keras.layers.RandomPerspective(**kwargs)
    expected = theirs.transform_images(_img, {"apply_perspective": _apply,
                                              "start_points": start,
                                              "end_points": end.astype("float32")})
    _close(ours._perspective(_img, _apply, start, end), expected)
    np.testing.assert_array_equal(np.asarray(expected)[1], _img[1])


@pytest.mark.parametrize("kwargs, images", [
    ({}, _img), ({"fill_mode": "constant", "value_range": (0.2, 0.8)}, _img / 255),
    ({"interpolation": "nearest", "fill_mode": "wrap"}, _img)])
def test_elastic_transform_matches_kerass_transform_for_a_seed(kwargs, images):
    """Keras's field comes from its ``seed``; kgraph's from the same key ``[seed, 0]``.
    On 16 x 12 images kgraph blurs in a 3-tap window (scale 1): distortion 0.3 uses 1 tap
    of it (Keras's size ``int(6 sigma) | 1``), distortion 1.0 all 3."""
    ours = kg.layers.RandomElasticTransform(**kwargs)
    theirs = keras.layers.RandomElasticTransform(**kwargs)
    for distortion in (0.3, 1.0):
        expected = theirs.transform_images(images, {
            "apply_transform": _apply, "distortion_factor": np.float32(distortion),
            "seed": 5})
        _close(ours._distort(images, _apply, distortion, jnp.array([5, 0], jnp.uint32)),
               expected, 1e-3)
    assert not np.allclose(np.asarray(expected), np.clip(images, *ours.value_range))


def test_draws_have_kerass_ranges_and_rates():
    key, batch = jax.random.PRNGKey(0), 4000
    x, y = map(np.asarray, kg.layers.RandomShear((0.1, 0.3), (0.05, 0.2))._amounts(key,
                                                                                    batch))
    assert 0.1 <= np.abs(x).min() and np.abs(x).max() <= 0.3
    assert 0.05 <= np.abs(y).min() and np.abs(y).max() <= 0.2
    assert 0.45 < (x < 0).mean() < 0.55 and np.all((x < 0) == (y < 0))  # one sign for both
    x, _ = kg.layers.RandomShear(0.2)._amounts(key, batch)  # a number f: (-f, f)
    assert -0.2 <= np.asarray(x).min() < -0.19 and 0.19 < np.asarray(x).max() <= 0.2
    apply, start, end = map(np.asarray, kg.layers.RandomPerspective(0.5, 0.4)._draw(
        key, batch, 16, 12))
    assert 0.2 < apply.mean() < 0.3  # probability ~ U(0, 0.5), then a coin
    assert start[0].tolist() == [[0, 0], [11, 0], [0, 15], [11, 15]]
    ratio = (end - start)[:, 1:] / start[:, 1:].clip(1)
    assert np.all(np.abs(ratio) <= 0.2 + 1e-6) and np.abs(ratio).max() > 0.19
    assert np.all(end[:, 0] == 0)  # Keras moves corners multiplicatively: (0, 0) stays
    layer = kg.layers.RandomElasticTransform(factor=(0.8, 0.8), scale=(0.2, 0.3))
    apply, distortion, _ = layer._draw(key, batch)
    assert 0.77 < np.asarray(apply).mean() < 0.83 and 0.2 <= float(distortion) < 0.3


def test_fixed_cases_match_keras():
    out_of_range = _img * 2  # no transform at all: not even clipped, as Keras
    for name, kwargs, images in [
            ("RandomShear", {}, _img), ("RandomPerspective", {"factor": 0.0}, _img),
            ("RandomPerspective", {"factor": (1.0, 1.0), "scale": 0.0}, _img),
            ("RandomElasticTransform", {"scale": 0.0}, out_of_range),
            ("RandomElasticTransform", {"factor": 0.0}, out_of_range)]:
        ours = getattr(kg.layers, name)(**kwargs)(images, training=True)
        _close(ours, getattr(keras.layers, name)(**kwargs)(images, training=True), 1e-3)
        _close(ours, images, 1e-3)
    sheared = kg.layers.RandomShear((0.5, 0.5), (0.0, 0.0), fill_mode="constant",
                                    interpolation="nearest", seed=1)(_img[:, :6, :6])
    expected = [keras.layers.RandomShear((0.5, 0.5), (0.0, 0.0), fill_mode="constant",
                                         interpolation="nearest").transform_images(
        _img[:, :6, :6], {"shear_factor": np.array([[s, 0.0]] * 4, "float32")})
        for s in (0.5, -0.5)]
    for i in range(4):  # each image sheared by +0.5 or -0.5
        assert any(np.allclose(np.asarray(sheared)[i], np.asarray(e)[i]) for e in expected)


@pytest.mark.parametrize("name, args", [("RandomShear", (0.3, 0.2)),
                                        ("RandomPerspective", (0.5, 0.3)),
                                        ("RandomElasticTransform", (0.7, 0.5))])
def test_configs_files_and_inference_match_keras(name, args, tmp_path):
    ours, theirs = getattr(kg.layers, name)(*args), getattr(keras.layers, name)(*args)
    assert inspect.signature(type(ours).__init__) == inspect.signature(type(theirs).__init__)
    config = theirs.get_config()
    assert set(ours.get_config()) <= set(config) | {"data_format"}
    for key in set(ours.get_config()) - {"name", "dtype"}:
        assert tuple(np.ravel(ours.get_config()[key])) == tuple(np.ravel(config[key])), key
    rebuilt = getattr(kg.layers, name).from_config(ours.get_config())
    assert rebuilt.get_config() == ours.get_config()
    np.testing.assert_array_equal(np.asarray(ours(_img, training=False)), _img)
    x = keras.Input(_img.shape[1:])
    model = keras.Model(x, theirs(x))
    model.save(tmp_path / "m.keras")
    loaded = kg.load_model(tmp_path / "m.keras")
    _close(loaded(_img, training=False), model(_img, training=False), 0)
    many = np.tile(_img, (16, 1, 1, 1))  # applied with probability 1/2 per image: some are
    assert not np.allclose(np.asarray(loaded.layers[1](many, training=True)), many)


@pytest.mark.parametrize("layer", [
    kg.layers.RandomShear(0.4, 0.4, interpolation="nearest", seed=1),
    kg.layers.RandomPerspective(scale=0.6, interpolation="nearest", seed=1),
    kg.layers.RandomElasticTransform(scale=(0.9, 1.0), interpolation="nearest", seed=1)],
    ids=lambda layer: type(layer).__name__)
def test_masks_move_with_the_images_in_a_jitted_program(layer):
    classes = np.floor(_img / 64)  # 4 classes; channel 0 is also the mask
    data = {"images": classes, "segmentation_masks": classes[..., :1].astype("int32"),
            "labels": np.arange(4)}
    out = layer(data)
    moved = np.asarray(out["images"])
    np.testing.assert_array_equal(moved[..., :1], np.asarray(out["segmentation_masks"]))
    assert not np.array_equal(moved, classes) and out["labels"].tolist() == [0, 1, 2, 3]
    x = kg.Input(_img.shape[1:])
    model = kg.Model(x, layer(x))
    assert_keyed_in_a_program(model, _img)


def test_bad_arguments_name_the_layer():
    for build, error, message in [
            (lambda: kg.layers.RandomShear(1.5, name="s"), ValueError, 's".*x_factor'),
            (lambda: kg.layers.RandomShear(y_factor=(0.1, 0.2, 0.3)), ValueError, "y_factor"),
            (lambda: kg.layers.RandomShear(fill_mode="mirror"), NotImplementedError,
             "RandomShear.*fill_mode"),
            (lambda: kg.layers.RandomPerspective(scale=2.0), ValueError,
             "RandomPerspective.*scale"),
            (lambda: kg.layers.RandomPerspective(factor=(2.0, 3.0)), ValueError, "factor"),
            (lambda: kg.layers.RandomPerspective(interpolation="bicubic"),
             NotImplementedError, "RandomPerspective.*interpolation"),
            (lambda: kg.layers.RandomElasticTransform(scale=-0.5), ValueError,
             "RandomElasticTransform.*scale"),
            (lambda: kg.layers.RandomElasticTransform(value_range=(0,)), ValueError,
             "value_range"),
            (lambda: kg.layers.RandomElasticTransform(fill_mode="edge"), NotImplementedError,
             "fill_mode")]:
        with pytest.raises(error, match=message):
            build()
    with pytest.raises(ValueError, match="RandomShear.*rank"):
        kg.layers.RandomShear(0.2)(_img[0, 0])
