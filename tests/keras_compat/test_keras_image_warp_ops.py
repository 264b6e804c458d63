"""``ops.image.perspective_transform``, ``elastic_transform``, ``scale_and_translate`` and
``extract_patches_3d``: Keras's numbers (the elastic field too, for an int seed), both data
formats, single images, graph nodes on KerasTensors, clear errors."""


import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(0)
_img = _rng.random((2, 9, 11, 3)).astype("float32")
_start = np.array([[0, 0], [10, 0], [0, 8], [10, 8]], "float32")
_end = (_start + _rng.uniform(-3, 3, (2, 4, 2))).astype("float32")  # one set per image


def _close(ours, theirs, tol=1e-5):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


@pytest.mark.parametrize("interpolation, fill_value, data_format", [
    ("bilinear", 0, "channels_last"), ("nearest", 0.5, "channels_last"),
    ("bilinear", 2.0, "channels_first")])
def test_perspective_transform_matches_keras(interpolation, fill_value, data_format):
    images = _img if data_format == "channels_last" else np.moveaxis(_img, -1, 1)
    kwargs = dict(interpolation=interpolation, fill_value=fill_value, data_format=data_format)
    starts = np.broadcast_to(_start, (2, 4, 2))
    _close(kg.ops.image.perspective_transform(images, starts, _end, **kwargs),
           keras.ops.image.perspective_transform(images, starts, _end, **kwargs))
    _close(kg.ops.image.perspective_transform(images[1], _start, _end[1], **kwargs),
           keras.ops.image.perspective_transform(images[1], _start, _end[1], **kwargs))


@pytest.mark.parametrize("kwargs", [
    {}, {"alpha": 6.0, "sigma": 1.3, "fill_mode": "constant", "fill_value": 0.25},
    {"alpha": 4.0, "sigma": 0.9, "interpolation": "nearest", "fill_mode": "wrap"},
    {"alpha": 3.0, "sigma": 2.0, "fill_mode": "mirror", "data_format": "channels_first"}])
def test_elastic_transform_with_an_int_seed_gives_kerass_numbers(kwargs):
    images = np.moveaxis(_img, -1, 1) if kwargs.get("data_format") == "channels_first" else _img
    ours = kg.ops.image.elastic_transform(images, seed=3, **kwargs)
    _close(ours, keras.ops.image.elastic_transform(images, seed=3, **kwargs))
    assert not np.allclose(np.asarray(ours), images, atol=1e-3)  # it does deform
    _close(kg.ops.image.elastic_transform(images[0], seed=5, **kwargs),
           keras.ops.image.elastic_transform(images[0], seed=5, **kwargs))


def test_elastic_transform_without_seed_draws_fresh_fields():
    a = np.asarray(kg.ops.image.elastic_transform(_img, alpha=5.0, sigma=1.0))
    b = np.asarray(kg.ops.image.elastic_transform(_img, alpha=5.0, sigma=1.0))
    assert a.shape == _img.shape and not np.allclose(a, b)


@pytest.mark.parametrize("method, antialias", [("linear", True), ("cubic", False),
                                               ("lanczos3", True)])
def test_scale_and_translate_matches_keras(method, antialias):
    scale, shift = np.array([1.7, 0.6], "float32"), np.array([0.5, -1.0], "float32")
    args = (_img, (2, 12, 7, 3), scale, shift, (1, 2), method, antialias)
    _close(kg.ops.image.scale_and_translate(*args), keras.ops.image.scale_and_translate(*args))
    plane = np.arange(9, dtype="float32").reshape(3, 3)  # Keras's docstring example
    args = (plane, (5, 5), np.array([2.0, 2.0], "float32"),
            np.array([-0.5, -0.5], "float32"), (0, 1), "linear")
    _close(kg.ops.image.scale_and_translate(*args), keras.ops.image.scale_and_translate(*args))
    assert np.asarray(kg.ops.image.scale_and_translate(*args))[0].tolist() == [
        0.0, 0.5, 1.0, 1.5, 2.0]


@pytest.mark.parametrize("kwargs", [
    {"size": 2}, {"size": (2, 3, 2), "strides": 1},
    {"size": 3, "strides": (1, 2, 2), "padding": "same"},
    {"size": 2, "strides": 1, "dilation_rate": 2},
    {"size": 2, "data_format": "channels_first"}])
def test_extract_patches_3d_matches_keras(kwargs):
    volumes = _rng.random((2, 6, 7, 8, 2)).astype("float32")
    if kwargs.get("data_format") == "channels_first":
        volumes = np.moveaxis(volumes, -1, 1)
    _close(kg.ops.image.extract_patches_3d(volumes, **kwargs),
           keras.ops.image.extract_patches_3d(volumes, **kwargs), 0)
    _close(kg.ops.image.extract_patches_3d(volumes[1], **kwargs),
           keras.ops.image.extract_patches_3d(volumes[1], **kwargs), 0)
    integers = (volumes * 100).astype("int32")
    _close(kg.ops.image.extract_patches_3d(integers, **kwargs),
           keras.ops.image.extract_patches_3d(integers, **kwargs), 0)


def test_the_ops_are_graph_nodes_that_serialize():
    images, starts, ends = kg.Input((9, 11, 3)), kg.Input((4, 2)), kg.Input((4, 2))
    volumes = kg.Input((4, 4, 4, 2))
    scale, shift = np.array([2.0, 2.0], "float32"), np.array([0.0, 0.0], "float32")
    outputs = [kg.ops.image.perspective_transform(images, starts, ends),
               kg.ops.image.elastic_transform(images, alpha=3.0, sigma=1.0, seed=2),
               kg.ops.image.scale_and_translate(images, (None, 18, 22, 3), scale, shift,
                                                (1, 2), "linear"),
               kg.ops.image.extract_patches_3d(volumes, 2)]
    assert [o.shape for o in outputs] == [(None, 9, 11, 3), (None, 9, 11, 3),
                                          (None, 18, 22, 3), (None, 2, 2, 2, 16)]
    model = kg.Model([images, starts, ends, volumes], outputs)
    assert {layer.op_name for layer in model.operations if hasattr(layer, "op_name")} >= {
        "perspective_transform", "elastic_transform", "scale_and_translate",
        "extract_patches_3d"}
    starts_value = np.broadcast_to(_start, (2, 4, 2))
    vol = _rng.random((2, 4, 4, 4, 2)).astype("float32")
    got = model([_img, starts_value, _end, vol])
    expected = [keras.ops.image.perspective_transform(_img, starts_value, _end),
                keras.ops.image.elastic_transform(_img, alpha=3.0, sigma=1.0, seed=2),
                keras.ops.image.scale_and_translate(_img, (2, 18, 22, 3), scale, shift,
                                                   (1, 2), "linear"),
                keras.ops.image.extract_patches_3d(vol, 2)]
    for ours, theirs in zip(got, expected):
        _close(ours, theirs)
    rebuilt = kg.Functional.from_config(model.get_config())
    for ours, again in zip(got, rebuilt([_img, starts_value, _end, vol])):
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(again))


def test_keras_files_with_the_ops_load_both_ways(tmp_path):
    def build(K):
        images, starts, ends = K.Input((9, 11, 3)), K.Input((4, 2)), K.Input((4, 2))
        return K.Model([images, starts, ends], [
            K.ops.image.perspective_transform(images, starts, ends, interpolation="nearest"),
            K.ops.image.elastic_transform(images, alpha=2.0, sigma=1.0, seed=4),
            K.ops.image.scale_and_translate(images, (2, 18, 22, 3), np.array([2.0, 1.5]),
                                            np.array([0.0, 0.5]), (1, 2), "cubic")])

    inputs = [_img, np.broadcast_to(_start, (2, 4, 2)), _end]
    build(keras).save(tmp_path / "keras.keras")
    build(kg).save(tmp_path / "kgraph.keras")
    for ours, theirs in [(kg.load_model(tmp_path / "keras.keras"), build(keras)),
                         (build(kg), keras.models.load_model(tmp_path / "kgraph.keras"))]:
        for a, b in zip(ours(inputs), theirs(inputs)):
            _close(a, b)


def test_bad_arguments_name_the_op():
    with pytest.raises(ValueError, match="perspective_transform.*start_points shape"):
        kg.ops.image.perspective_transform(_img, np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="perspective_transform.*same shape"):
        kg.ops.image.perspective_transform(_img, _start, _end)
    with pytest.raises(ValueError, match="perspective_transform.*interpolation"):
        kg.ops.image.perspective_transform(_img, _start, _start, interpolation="bicubic")
    with pytest.raises(ValueError, match="elastic_transform.*fill_mode"):
        kg.ops.image.elastic_transform(_img, fill_mode="edge")
    with pytest.raises(ValueError, match="elastic_transform.*rank"):
        kg.ops.image.elastic_transform(_img[0, 0])
    with pytest.raises(ValueError, match="scale_and_translate.*method"):
        kg.ops.image.scale_and_translate(_img, _img.shape, [1.0, 1.0], [0.0, 0.0], (1, 2),
                                         "triangle")
    with pytest.raises(TypeError, match="extract_patches_3d.*size"):
        kg.ops.image.extract_patches_3d(np.zeros((1, 4, 4, 4, 1)), (2, 2))
    with pytest.raises(ValueError, match="extract_patches_3d.*rank"):
        kg.ops.image.extract_patches_3d(_img[0], 2)


def test_signatures_are_kerass():
    import inspect

    for name in ("perspective_transform", "elastic_transform", "scale_and_translate",
                 "extract_patches_3d"):
        assert inspect.signature(getattr(kg.ops.image, name)) == inspect.signature(
            getattr(keras.ops.image, name)), name
        assert name in kg.ops.image.__all__ and kg.ops.get_op(name) is getattr(kg.ops.image,
                                                                                 name)
