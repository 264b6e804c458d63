"""MixUp, CutMix, RandomErasing and RandomColorJitter: Keras's transforms for given draws,
Keras's distributions for the draws, labels and masks with the images' draws, Keras's
configs and files, identities in inference, keyed under jit."""


import jax
import keras
import numpy as np
import pytest

import kgraph as kg
from tests.support.helpers import assert_keyed_in_a_program
from kgraph.layers.augmentation_mixing import _mix_labels

_img = (np.random.default_rng(0).random((4, 9, 7, 3)) * 255).astype("float32")
_labels = np.eye(4, dtype="float32")[[0, 2, 1, 3]]
_weights = np.array([0.1, 0.5, 0.9, 1.0], "float32")
_perm = np.array([2, 0, 3, 1])
_boxes = tuple(np.array(v, "float32") for v in (  # x0, x1, y0, y1 per image
    [0.5, 2.0, 0.0, 3.3], [4.2, 6.9, 7.0, 5.0], [1.0, 0.0, 2.5, 8.1], [6.0, 9.0, 4.4, 8.9]))


def _jitted(layer, training=True):
    """The layer's call compiled once (eager JAX dispatches and compiles op by op)."""
    return jax.jit(lambda data: layer(data, training=training))


_JITTER = dict(brightness_factor=0.3, contrast_factor=0.4, saturation_factor=0.6,
               hue_factor=0.5)

LAYERS = [("MixUp", {"alpha": 0.4}), ("CutMix", {"factor": (0.2, 0.8)}),
          ("RandomErasing", {"factor": 0.7, "scale": (0.1, 0.2), "fill_value": 5.0,
                             "value_range": (0, 1)}),
          ("RandomColorJitter", _JITTER)]


@pytest.mark.parametrize("name, kwargs", LAYERS, ids=[c[0] for c in LAYERS])
def test_configs_match_kerass_and_the_layers_are_off_in_inference(name, kwargs):
    ours, theirs = getattr(kg.layers, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    ours_config, theirs_config = ours.get_config(), theirs.get_config()
    assert set(ours_config) <= set(theirs_config) | {"data_format"}
    for key in set(ours_config) - {"name", "dtype"}:
        assert ours_config[key] == theirs_config[key], key
    rebuilt = getattr(kg.layers, name).from_config(ours_config)
    assert rebuilt.get_config() == ours_config
    np.testing.assert_array_equal(np.asarray(ours(_img, training=False)), _img)
    np.testing.assert_array_equal(np.asarray(theirs(_img, training=False)), _img)
    batch = np.concatenate([_img] * 4)
    assert not np.allclose(np.asarray(_jitted(ours)(batch)), batch)


def test_mixup_and_cutmix_transforms_match_kerass():
    """For given draws (Keras draws them with its own generator), Keras's
    ``transform_images`` / ``transform_labels`` against kgraph's."""
    theirs = keras.layers.MixUp()
    drawn = {"mix_weight": _weights, "permutation_order": _perm}
    np.testing.assert_allclose(np.asarray(kg.layers.MixUp()._mix(_img, _weights, _perm)),
                               np.asarray(theirs.transform_images(_img, drawn)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(_mix_labels(_labels, _weights, _perm)),
                               np.asarray(theirs.transform_labels(_labels, drawn)), rtol=1e-6)
    ours, theirs = kg.layers.CutMix(), keras.layers.CutMix()
    masks, weights = theirs._generate_batch_mask(_img.shape, _boxes)
    drawn = {"permutation_order": _perm, "batch_masks": masks, "mix_weight": weights}
    np.testing.assert_array_equal(np.asarray(ours._paste(_img, _boxes, _perm)),
                                  np.asarray(theirs.transform_images(_img, drawn)))
    np.testing.assert_allclose(
        np.asarray(_mix_labels(_labels, ours._label_weights(_boxes, 9, 7), _perm)),
        np.asarray(theirs.transform_labels(_labels, drawn)), rtol=1e-6)


def test_mixup_weights_are_beta_and_labels_and_masks_get_the_images_draws():
    weights, permutation = kg.layers.MixUp(alpha=0.2)._draw(jax.random.PRNGKey(0), 20000)
    weights = np.asarray(weights)
    assert abs(weights.mean() - 0.5) < 0.02
    assert abs(weights.var() - 1 / (4 * (2 * 0.2 + 1))) < 0.01  # Beta(0.2, 0.2)'s variance
    assert sorted(np.asarray(permutation).tolist()) == list(range(20000))
    images = np.arange(6, dtype="float32")[:, None, None, None] * np.ones((6, 3, 3, 1))
    out = _jitted(kg.layers.MixUp(alpha=1.0, seed=2))(
        {"images": images, "labels": np.eye(6, dtype="float32"), "segmentation_masks": images})
    mixed, labels = np.asarray(out["images"])[:, 0, 0, 0], np.asarray(out["labels"])
    np.testing.assert_allclose(mixed, labels @ np.arange(6), rtol=1e-5)  # same w and perm
    np.testing.assert_allclose(labels.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(out["segmentation_masks"]), np.asarray(out["images"]))


def test_cutmix_pastes_one_donor_box_and_mixes_labels_by_its_area():
    images = np.arange(8, dtype="float32")[:, None, None, None] * np.ones((8, 16, 16, 2))
    out = _jitted(kg.layers.CutMix(seed=3))(
        {"images": images, "labels": np.eye(8, dtype="float32"), "segmentation_masks": images})
    pasted, labels = np.asarray(out["images"]), np.asarray(out["labels"])
    np.testing.assert_array_equal(np.asarray(out["segmentation_masks"]), pasted)
    for i in range(8):
        donor_pixels = pasted[i, ..., 0] != i
        if not donor_pixels.any():
            continue
        donor = int(np.unique(pasted[i][donor_pixels])[0])
        assert np.unique(pasted[i][donor_pixels]).size == 1  # one donor, all channels
        rows, cols = np.nonzero(donor_pixels)
        assert donor_pixels.sum() == (np.ptp(rows) + 1) * (np.ptp(cols) + 1)  # a box
        assert labels[i, i] + labels[i, donor] == pytest.approx(1.0)
        assert labels[i, donor] == pytest.approx(donor_pixels.mean(), abs=33 / 256)
    single = _img[0]  # Keras leaves single images as they are
    np.testing.assert_array_equal(np.asarray(kg.layers.CutMix()(single)), single)


@pytest.mark.parametrize("fill_value", [0.0, 300.0, (10.0, 300.0, -5.0)])
def test_erasing_transform_matches_kerass(fill_value):
    ours, theirs = kg.layers.RandomErasing(fill_value=fill_value), keras.layers.RandomErasing()
    erase = np.array([True, False, True, True])
    fill = np.clip(np.broadcast_to(np.asarray(fill_value, "float32"), _img.shape), 0, 255)
    drawn = {"apply_erasing": erase, "batch_masks": theirs._generate_batch_mask(_img.shape,
                                                                                 _boxes),
             "fill_value": fill}  # Keras on JAX cannot make a per-channel fill itself
    our_fill = ours._draw(jax.random.PRNGKey(0), _img.shape)[2]
    np.testing.assert_array_equal(np.asarray(ours._erase(_img, _boxes, erase, our_fill)),
                                  np.asarray(theirs.transform_images(_img, drawn)))


def test_erasing_rate_box_sizes_and_noise_fill():
    ones = np.ones((2000, 10, 10, 1), "float32")
    erased = np.asarray(_jitted(kg.layers.RandomErasing(
        factor=(0.6, 0.6), scale=(0.16, 0.16), fill_value=0.0, seed=1))(ones))
    hit = erased.min(axis=(1, 2, 3)) == 0
    assert 0.56 < hit.mean() < 0.64
    sizes = (erased[hit] == 0).sum(axis=(1, 2, 3))
    assert set(sizes.tolist()) == {16}  # sides of 0.4 * 10 pixels, wherever they start
    always = _jitted(kg.layers.RandomErasing(factor=1.0, seed=1))(ones)  # p ~ U(0, 1)
    assert 0.45 < (np.asarray(always).min(axis=(1, 2, 3)) < 1).mean() < 0.55
    noisy = np.asarray(_jitted(kg.layers.RandomErasing(factor=(1, 1), value_range=(0, 1)))(
        np.full((64, 10, 10, 1), 0.5, "float32")))
    changed = noisy[noisy != 0.5]
    assert changed.min() >= 0 and changed.max() <= 1 and np.mean(changed == 0) > 0.3


@pytest.mark.parametrize("value_range", [(0, 255), (0, 1)])
def test_color_jitter_matches_kerass_steps(value_range):
    """Keras's RandomColorJitter runs its four sub-layers in order, each with its own
    draws: for given amounts, those sub-layers' transforms against kgraph's."""
    images = _img if value_range == (0, 255) else _img / 255
    ours = kg.layers.RandomColorJitter(value_range, **_JITTER)
    theirs = keras.layers.RandomColorJitter(value_range, **_JITTER)
    amounts = {"brightness": np.array([-0.2, 0.1, 0.0, 0.3], "float32") * value_range[1],
               "contrast": np.array([0.7, 1.2, 1.0, 1.4], "float32"),
               "saturation": np.array([0.0, 0.5, 1.0, 2.5], "float32"),
               "hue": np.array([-0.4, -0.05, 0.2, 0.45], "float32")}
    expected = theirs.random_brightness.transform_images(
        images, {"rgb_delta": amounts["brightness"].reshape(-1, 1, 1, 1)})
    expected = theirs.random_contrast.transform_images(
        expected, {"contrast_factor": amounts["contrast"].reshape(-1, 1, 1, 1)})
    expected = theirs.random_saturation.transform_images(expected,
                                                         {"factor": amounts["saturation"]})
    expected = theirs.random_hue.transform_images(expected, {"factor": amounts["hue"]})
    np.testing.assert_allclose(np.asarray(ours._jitter(images, amounts)), np.asarray(expected),
                               rtol=1e-5, atol=1e-3 * value_range[1])


def test_color_jitter_draws_kerass_ranges_and_fixed_jitters_match_keras():
    layer = kg.layers.RandomColorJitter(brightness_factor=0.5, contrast_factor=(0.2, 0.3),
                                        hue_factor=0.5)
    drawn = {k: np.asarray(v) for k, v in layer._draw(jax.random.PRNGKey(0), 4000).items()}
    assert set(drawn) == {"brightness", "contrast", "hue"}
    for name, low, high in [("brightness", -127.5, 127.5), ("contrast", 0.8, 1.3),
                            ("hue", -0.25, 0.25)]:
        assert low <= drawn[name].min() < low + 0.05 * (high - low)
        assert high - 0.05 * (high - low) < drawn[name].max() <= high
    only_more = kg.layers.RandomColorJitter(contrast_factor=0.5)._draw(jax.random.PRNGKey(1), 500)
    assert np.asarray(only_more["contrast"]).min() >= 1.0  # Keras: a number f is [1, 1 + f]
    fixed = dict(brightness_factor=(0.2, 0.2), contrast_factor=0.0,
                 saturation_factor=(0.5, 0.5), hue_factor=0.0)
    for data_format, images in [("channels_last", _img),
                                ("channels_first", np.moveaxis(_img, -1, 1))]:
        ours = _jitted(kg.layers.RandomColorJitter(**fixed, data_format=data_format))(images)
        expected = keras.layers.RandomColorJitter(**fixed)(_img)
        if data_format == "channels_first":
            expected = np.moveaxis(np.asarray(expected), -1, 1)
        np.testing.assert_allclose(np.asarray(ours), np.asarray(expected), rtol=1e-5, atol=1e-3)


def test_labels_and_masks_pass_through_erasing_and_jitter():
    masks = np.ones((4, 9, 7, 1), "int32")
    for layer in (kg.layers.RandomErasing(factor=(1, 1), seed=0),
                  kg.layers.RandomColorJitter(brightness_factor=0.5, seed=0)):
        out = _jitted(layer)({"images": _img, "labels": _labels, "segmentation_masks": masks})
        np.testing.assert_array_equal(np.asarray(out["labels"]), _labels)
        np.testing.assert_array_equal(np.asarray(out["segmentation_masks"]), masks)
        assert not np.allclose(np.asarray(out["images"]), _img)


@pytest.mark.parametrize("name, kwargs", LAYERS, ids=[c[0] for c in LAYERS])
def test_kerass_files_load_and_training_is_keyed_under_jit(name, kwargs, tmp_path):
    x = keras.Input((9, 7, 3))
    keras.Model(x, getattr(keras.layers, name)(**kwargs)(x)).save(tmp_path / "m.keras")
    model = kg.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(np.asarray(model(_img, training=False)), _img)
    assert_keyed_in_a_program(model, _img)


def test_bad_arguments_name_the_layer():
    with pytest.raises(ValueError, match=r"mix_up.*alpha.*positive.*-1"):
        kg.layers.MixUp(alpha=-1)
    with pytest.raises(ValueError, match=r"cut_mix.*factor.*\[0, 1\].*factor=2"):
        kg.layers.CutMix(factor=2)
    with pytest.raises(ValueError, match=r"random_erasing.*`scale`"):
        kg.layers.RandomErasing(scale=1.5)
    with pytest.raises(ValueError, match=r"RandomErasing.*fill_value.*'grey'"):
        kg.layers.RandomErasing(fill_value="grey")
    with pytest.raises(ValueError, match=r"3 channels, received 1"):
        kg.layers.RandomErasing(fill_value=(1, 2, 3))(np.ones((2, 4, 4, 1), "float32"))
    with pytest.raises(ValueError, match=r"RandomColorJitter.*`hue_factor`.*hue_factor=2"):
        kg.layers.RandomColorJitter(hue_factor=2)
    with pytest.raises(ValueError, match=r"RandomColorJitter.*value_range"):
        kg.layers.RandomColorJitter(value_range=(0, 1, 2))
