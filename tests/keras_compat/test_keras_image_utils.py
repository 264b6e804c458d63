"""``keras.utils`` / ``keras.preprocessing.image`` image functions against Keras: the same
pixels from files written and read by either, the same crops and resizes."""

import keras
import numpy as np
import pytest

import kgraph as kg

_RNG = np.random.default_rng(0)
_IMAGE = _RNG.uniform(0, 255, size=(30, 44, 3)).astype("float32")


@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("scale", [True, False])
def test_array_to_img_and_back_equal_keras(channels, scale):
    x = _IMAGE[:, :, :1].repeat(channels, axis=2) if channels != 3 else _IMAGE
    ours = kg.utils.array_to_img(x, scale=scale)
    theirs = keras.utils.array_to_img(x, scale=scale)
    assert (ours.mode, ours.size) == (theirs.mode, theirs.size)
    np.testing.assert_array_equal(kg.utils.img_to_array(ours), keras.utils.img_to_array(theirs))
    np.testing.assert_array_equal(kg.utils.img_to_array(ours, data_format="channels_first"),
                                  keras.utils.img_to_array(theirs,
                                                           data_format="channels_first"))


@pytest.mark.parametrize("color_mode", ["grayscale", "rgb", "rgba"])
@pytest.mark.parametrize("target_size,keep", [(None, False), ((16, 16), False),
                                              ((16, 16), True), ((10, 30), True)])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_files_load_as_keras_loads_them(tmp_path, color_mode, target_size, keep, interpolation):
    path = tmp_path / "image.png"
    kg.preprocessing.image.save_img(str(path), _IMAGE)
    written_by_keras = tmp_path / "keras.png"
    keras.utils.save_img(str(written_by_keras), _IMAGE)
    assert path.read_bytes() == written_by_keras.read_bytes()
    ours = kg.utils.load_img(path, color_mode, target_size, interpolation, keep)
    theirs = keras.utils.load_img(path, color_mode, target_size, interpolation, keep)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def test_jpeg_of_an_rgba_image_is_saved_as_rgb(tmp_path):
    rgba = _IMAGE[:, :, :1].repeat(4, axis=2)
    with pytest.warns(UserWarning, match="alpha"):
        kg.utils.save_img(str(tmp_path / "image.jpg"), rgba)
    assert kg.utils.load_img(tmp_path / "image.jpg", color_mode="rgba").size == (44, 30)


@pytest.mark.parametrize("shape", [(30, 44, 3), (2, 30, 44, 3), (44, 30, 1)])
@pytest.mark.parametrize("size", [(16, 16), (10, 30), (40, 20)])
@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
def test_smart_resize_equals_keras(shape, size, interpolation):
    x = _RNG.uniform(size=shape).astype("float32")
    ours = kg.preprocessing.image.smart_resize(x, size, interpolation=interpolation)
    theirs = keras.preprocessing.image.smart_resize(x, size, interpolation=interpolation)
    assert isinstance(ours, np.ndarray)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_clear_errors():
    with pytest.raises(ValueError, match="rank 3"):
        kg.utils.array_to_img(np.ones((2, 2)))
    with pytest.raises(ValueError, match="color_mode"):
        kg.utils.load_img(__file__.replace(".py", ".png"), color_mode="cmyk")
    with pytest.raises(ValueError, match="smart_resize expects"):
        kg.utils.smart_resize(np.ones((4, 4)), (2, 2))
