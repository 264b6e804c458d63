"""Equalization and CLAHE: Keras's numbers (value ranges, bins, tile grids that need
padding, clip limits, layouts, dtypes), Keras's training switches, configs and files, and
both trace under jit."""


import jax
import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(0)


def _jitted(layer, training):
    """The layer's call compiled once (eager JAX dispatches and compiles op by op)."""
    return jax.jit(lambda images: layer(images, training=training))


_img = (_rng.random((3, 10, 9, 3)) * 255).astype("float32")

EQUALIZATION = [
    ({}, _img), ({"bins": 16}, np.round(_img)),
    ({"bins": 32, "value_range": (1, 0)}, _img / 255),
    ({"bins": 7, "value_range": (-1, 1)}, _img / 127.5 - 1),
    ({"bins": 16}, np.full((2, 4, 4, 3), 7.0, "float32")),  # one occupied level: unchanged
    ({"bins": 64, "data_format": "channels_first"}, np.moveaxis(_img, -1, 1)),
    ({"bins": 16}, _img[0]),
]  # few bins: Keras's JAX Equalization counts bin by bin
CLAHE = [
    ({"tile_grid_size": (2, 2)}, _img), ({}, _img),  # 8 x 8 tiles: padded to 16 x 16
    ({"tile_grid_size": (3, 4), "clip_limit": 2.0}, _img),
    ({"tile_grid_size": (2, 3), "clip_limit": 0}, _img),
    ({"tile_grid_size": (2, 2), "value_range": (0, 1)}, _img / 255),
    ({"tile_grid_size": (2, 2), "data_format": "channels_first"}, np.moveaxis(_img, -1, 1)),
    ({"tile_grid_size": (4, 4)}, _img[0]),
    ({"tile_grid_size": (2, 2)}, (_rng.random((2, 8, 8, 3)) * 255).astype("uint8")),
]


@pytest.mark.parametrize("kwargs, images", EQUALIZATION,
                         ids=[f"equalization-{i}" for i in range(len(EQUALIZATION))])
def test_equalization_matches_keras_in_training_and_is_off_in_inference(kwargs, images):
    ours = kg.layers.Equalization(**kwargs)
    theirs = keras.layers.Equalization(**kwargs)
    expected = np.asarray(theirs(images, training=True))
    np.testing.assert_allclose(np.asarray(_jitted(ours, True)(images)), expected, atol=1e-5)
    np.testing.assert_array_equal(np.asarray(ours(images, training=False)), images)
    np.testing.assert_array_equal(np.asarray(theirs(images, training=False)), images)


def test_equalization_spreads_levels_over_the_batch_as_keras():
    """Keras counts one histogram per channel over the whole batch."""
    images = np.array([10.0, 20.0, 30.0, 40.0], "float32").reshape(2, 1, 2, 1)
    out = np.asarray(_jitted(kg.layers.Equalization(), True)(images)).ravel()
    np.testing.assert_allclose(out, [0.0, 85.0, 170.0, 255.0])


@pytest.mark.parametrize("kwargs, images", CLAHE, ids=[f"clahe-{i}" for i in range(len(CLAHE))])
def test_clahe_matches_keras_in_training_and_inference(kwargs, images):
    ours = kg.layers.ContrastLimitedAdaptiveHistogramEqualization(**kwargs)
    theirs = keras.layers.ContrastLimitedAdaptiveHistogramEqualization(**kwargs)
    expected = np.asarray(_jitted(theirs, False)(images))
    assert not np.allclose(expected, images)
    for training in (True, False):
        out = _jitted(ours, training)(images)
        assert out.dtype == expected.dtype
        np.testing.assert_allclose(np.asarray(out, "float32"), expected.astype("float32"),
                                   atol=1e-3 * max(kwargs.get("value_range", (0, 255))))


def test_configs_match_kerass_and_kerass_files_load(tmp_path):
    for name, kwargs in [("Equalization", {"bins": 32, "value_range": (0, 1)}),
                         ("ContrastLimitedAdaptiveHistogramEqualization",
                          {"clip_limit": 3.0, "tile_grid_size": (2, 3)})]:
        ours = getattr(kg.layers, name)(**kwargs)
        ours_config = ours.get_config()
        theirs_config = getattr(keras.layers, name)(**kwargs).get_config()
        assert set(ours_config) <= set(theirs_config)
        for key in set(ours_config) - {"name", "dtype"}:
            assert ours_config[key] == theirs_config[key], key
        assert getattr(kg.layers, name).from_config(ours_config).get_config() == ours_config
    # Keras cannot build a functional model with its Equalization (its output spec is the
    # input tensor itself), so only CLAHE comes from a Keras file.
    x = keras.Input((10, 9, 3))
    clahe = keras.layers.ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(3, 2))
    model = keras.Model(x, clahe(x))
    model.save(tmp_path / "m.keras")
    loaded = kg.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(np.asarray(loaded.predict(_img, verbose=0)),
                               np.asarray(model.predict(_img, verbose=0)), atol=1e-3)


def test_labels_and_masks_pass_through_and_bad_arguments_name_the_layer():
    masks = np.ones((3, 10, 9, 1), "int32")
    for layer in (kg.layers.Equalization(),
                  kg.layers.ContrastLimitedAdaptiveHistogramEqualization()):
        out = _jitted(layer, True)({"images": _img, "labels": np.eye(3),
                                    "segmentation_masks": masks})
        np.testing.assert_array_equal(np.asarray(out["labels"]), np.eye(3))
        np.testing.assert_array_equal(np.asarray(out["segmentation_masks"]), masks)
        assert not np.allclose(np.asarray(out["images"]), _img)
    with pytest.raises(ValueError, match=r"Equalization.*`bins`.*bins=0"):
        kg.layers.Equalization(bins=0)
    with pytest.raises(ValueError, match=r"Equalization.*value_range.*\(0, 1, 2\)"):
        kg.layers.Equalization(value_range=(0, 1, 2))
    clahe = kg.layers.ContrastLimitedAdaptiveHistogramEqualization
    with pytest.raises(ValueError, match=r"Contrast.*tile_grid_size.*\(0, 2\)"):
        clahe(tile_grid_size=(0, 2))
    with pytest.raises(ValueError, match=r"Contrast.*clip_limit.*'high'"):
        clahe(clip_limit="high")
