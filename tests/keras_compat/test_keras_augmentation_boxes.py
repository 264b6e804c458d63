"""Bounding boxes through the augmentation layers: each layer's box transform (a pure
function of the parameters it draws) against Keras's ``transform_bounding_boxes`` for a
transformation Keras drew (the dict form itself: ``test_keras_augmentation_boxes_dict``)."""

import jax.numpy as jnp
import keras
import numpy as np
import pytest

import kgraph as kg
from kgraph.layers import augmentation_boxes as ab
from kgraph.layers.augmentation import rotation_transforms
from kgraph.layers.augmentation_warp import perspective_boxes

H, W = 30, 40
ABSOLUTE = ["xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw"]
FORMATS = ABSOLUTE + ["rel_xyxy", "rel_yxyx", "rel_xywh", "rel_center_xywh"]


def _xyxy(rng, shape, height=H, width=W, margin=0.0):
    x = np.sort(rng.uniform(-margin, width + margin, shape + (2,)), axis=-1)
    y = np.sort(rng.uniform(-margin, height + margin, shape + (2,)), axis=-1)
    return np.stack([x[..., 0], y[..., 0], x[..., 1], y[..., 1]], -1).astype("float32")


def _boxes(fmt, xyxy, labels, height=H, width=W):
    boxes = keras.utils.bounding_boxes.convert_format(xyxy, "xyxy", fmt, height=height,
                                                      width=width)
    return {"boxes": jnp.asarray(boxes), "labels": jnp.asarray(labels)}


def _keras_boxes(layer, data, transformation):
    out = layer.transform_bounding_boxes({k: jnp.asarray(v) for k, v in data.items()},
                                         transformation)
    return np.asarray(out["boxes"]), np.asarray(out["labels"])


def _compare(ours, theirs, atol):
    np.testing.assert_allclose(np.asarray(ours["boxes"]), theirs[0], rtol=1e-5, atol=atol)
    np.testing.assert_array_equal(np.asarray(ours["labels"]), theirs[1])
    return float(np.max(np.abs(np.asarray(ours["boxes"]) - theirs[0])))


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return _xyxy(rng, (4, 6), margin=3.0), rng.integers(0, 5, (4, 6)), np.zeros((4, H, W, 3))


@pytest.mark.parametrize("mode", ["horizontal", "vertical", "horizontal_and_vertical"])
def test_flip_boxes_match_keras_in_every_format(data, mode):
    xyxy, labels, images = data
    for fmt in FORMATS:
        layer = keras.layers.RandomFlip(mode, bounding_box_format=fmt, seed=3)
        transformation = layer.get_random_transformation({"images": images})
        flips = np.asarray(transformation["flips"]).reshape(-1)
        kept = np.zeros_like(flips)
        ours = ab.flip_boxes(_boxes(fmt, xyxy, labels), flips if "horiz" in mode else kept,
                             flips if "vert" in mode else kept, fmt, H, W)
        _compare(ours, _keras_boxes(layer, _boxes(fmt, xyxy, labels), transformation), 1e-4)


def _translation(layer, transformation):
    return layer._get_translation_matrix(transformation["translations"])


def _zoom(layer, transformation):
    zooms = np.concatenate([transformation["width_zoom"], transformation["height_zoom"]], 1)
    return layer._get_zoom_matrix(zooms, H, W)


@pytest.mark.parametrize("name, args, matrix", [
    ("RandomTranslation", (0.4, 0.3), _translation),
    ("RandomZoom", (0.5, 0.4), _zoom),
    ("RandomZoom", ((-0.6, -0.2),), _zoom),
], ids=["translation", "zoom", "zoom_in"])
def test_affine_boxes_match_keras_in_every_format(data, name, args, matrix):
    xyxy, labels, images = data
    for fmt in FORMATS:
        layer = getattr(keras.layers, name)(*args, bounding_box_format=fmt, seed=5)
        transformation = layer.get_random_transformation({"images": images})
        ours = ab.transform_boxes(_boxes(fmt, xyxy, labels), matrix(layer, transformation),
                                  fmt, H, W)
        _compare(ours, _keras_boxes(layer, _boxes(fmt, xyxy, labels), transformation),
                 1e-3 if fmt.startswith("rel") else 2e-3)


def test_rotation_boxes_match_keras(data):
    xyxy, labels, images = data
    layer = keras.layers.RandomRotation(0.3, bounding_box_format="xyxy", seed=7)
    transformation = layer.get_random_transformation({"images": images})
    matrices = rotation_transforms(np.radians(np.asarray(transformation["angle"])), H, W)
    theirs = _keras_boxes(layer, _boxes("xyxy", xyxy, labels), transformation)
    _compare(ab.transform_boxes(_boxes("xyxy", xyxy, labels), matrices, "xyxy", H, W), theirs,
             1e-3)
    # Keras's rotation reads any format as xyxy; kgraph converts: the same corners
    for fmt in ["center_yxhw", "rel_xywh"]:
        ours = ab.transform_boxes(_boxes(fmt, xyxy, labels), matrices, fmt, H, W)
        back = kg.utils.bounding_boxes.convert_format(ours, fmt, "xyxy", H, W)
        _compare(back, theirs, 1e-3)


@pytest.mark.parametrize("factors", [(0.4, 0.0), (0.0, 0.4)], ids=["x", "y"])
def test_shear_boxes_match_keras_on_square_images(factors):
    # Keras shears boxes in relative coordinates, one axis after the other: exact for one
    # axis on square images, which is where the two agree
    rng = np.random.default_rng(1)
    side = 36
    xyxy, labels = _xyxy(rng, (4, 6), side, side), rng.integers(0, 5, (4, 6))
    images = np.zeros((4, side, side, 3))
    for fmt in FORMATS:
        layer = keras.layers.RandomShear(*factors, bounding_box_format=fmt, seed=2)
        transformation = layer.get_random_transformation({"images": images})
        matrices = kg.layers.augmentation_warp.shear_transforms(
            *np.asarray(transformation["shear_factor"]).T)
        ours = ab.transform_boxes(_boxes(fmt, xyxy, labels, side, side), matrices, fmt, side,
                                  side)
        theirs = _keras_boxes(layer, _boxes(fmt, xyxy, labels, side, side), transformation)
        _compare(ours, theirs, 1e-3)


def test_perspective_boxes_match_keras(data):
    xyxy, labels, images = data
    layer = keras.layers.RandomPerspective(factor=0.7, scale=0.6, bounding_box_format="xyxy",
                                           seed=2)
    transformation = layer.get_random_transformation({"images": images})
    assert 0 < np.sum(transformation["apply_perspective"]) < 4
    ours = perspective_boxes(_boxes("xyxy", xyxy, labels), transformation["apply_perspective"],
                             transformation["start_points"], transformation["end_points"],
                             "xyxy", H, W)
    _compare(ours, _keras_boxes(layer, _boxes("xyxy", xyxy, labels), transformation), 2e-3)


@pytest.mark.parametrize("fmt", ABSOLUTE)
def test_crop_boxes_match_keras_inside_the_window(fmt):
    # Keras's RandomCrop subtracts the window's top from x and its left from y, and only
    # clips at 0: given the window as (left, top) and boxes ending inside it, its numbers
    # are the geometric ones
    rng = np.random.default_rng(2)
    top, left, height, width = 7, 11, 16, 20
    xyxy = _xyxy(rng, (3, 5), height, width) + np.array([left, top, left, top], "float32")
    xyxy[..., :2] -= rng.uniform(0, 8, (3, 5, 2)).astype("float32")  # some start outside
    labels = rng.integers(0, 5, (3, 5))
    layer = keras.layers.RandomCrop(height, width, bounding_box_format=fmt)
    theirs = _keras_boxes(layer, _boxes(fmt, xyxy, labels), (left, top))
    ours = ab.crop_boxes(_boxes(fmt, xyxy, labels), top, left, height, width, fmt, H, W)
    _compare(ours, theirs, 1e-4)


def test_mix_up_boxes_match_keras():
    rng = np.random.default_rng(4)
    images, xyxy = np.zeros((4, H, W, 3), "float32"), _xyxy(rng, (4, 3))
    labels = rng.integers(0, 5, (4, 3))
    layer = keras.layers.MixUp(bounding_box_format="xyxy", seed=1)
    transformation = layer.get_random_transformation({"images": images})
    theirs = _keras_boxes(layer, _boxes("xyxy", xyxy, labels), transformation)
    ours = ab.mix_boxes(_boxes("xyxy", xyxy, labels), transformation["permutation_order"])
    np.testing.assert_array_equal(ours["boxes"], theirs[0])
    # Keras joins the labels along the batch axis (shape (8, 3)); kgraph as the boxes
    np.testing.assert_array_equal(ours["labels"], np.concatenate(np.split(theirs[1], 2), 1))
    out = kg.layers.MixUp(bounding_box_format="xyxy", seed=3)(
        {"images": images, "bounding_boxes": _boxes("xyxy", xyxy, labels)})["bounding_boxes"]
    assert out["boxes"].shape == (4, 6, 4) and out["labels"].shape == (4, 6)
    np.testing.assert_array_equal(out["boxes"][:, :3], xyxy)
    pairs = [int(np.flatnonzero((xyxy == row[3:]).all(axis=(1, 2)))[0])
             for row in np.asarray(out["boxes"])]
    assert sorted(pairs) == [0, 1, 2, 3]  # a permutation of the batch
    np.testing.assert_array_equal(out["labels"][:, 3:], labels[pairs])


def _policy_matrices(layer, transforms):
    """Keras's RandAugment draws as the warps of its eleven operations (identity: colour)."""
    kept = np.tile([1.0, 0, 0, 0, 1, 0, 0, 0], (4, 1))
    shear = np.asarray(transforms["random_shear"]["shear_factor"]).T
    angles = np.radians(np.asarray(transforms["random_rotation"]["angle"]))
    return [kg.layers.augmentation_warp.shear_transforms(*shear),
            _translation(layer.random_translation, transforms["random_translation"]),
            rotation_transforms(angles, H, W)] + [kept] * 8


MOVES = [True] * 3 + [False] * 8


@pytest.mark.parametrize("choices", [[1], [2], [5], [1, 2], [3, 2]])
def test_rand_augment_boxes_match_keras(data, choices):
    # Keras moves boxes by the operations chosen in the order of its operation list (kgraph:
    # in the order chosen, as the images): ascending choices agree. Its shear is the
    # relative-coordinate one, left out here
    xyxy, labels, images = data
    layer = keras.layers.RandAugment(num_ops=len(choices), factor=0.4,
                                     bounding_box_format="xyxy", seed=6)
    transformation = layer.get_random_transformation({"images": images})
    transformation["layer_idxes"] = jnp.asarray(choices)
    given = _boxes("xyxy", xyxy, labels)
    ours = ab.policy_boxes(given, choices, _policy_matrices(layer, transformation["transforms"]),
                           MOVES, "xyxy", H, W)
    _compare(ours, _keras_boxes(layer, given, transformation), 2e-3)


def test_rand_augment_boxes_compose_in_the_order_chosen(data):
    xyxy, labels, images = data
    layer = keras.layers.RandAugment(factor=0.4, bounding_box_format="xyxy", seed=6)
    matrices = _policy_matrices(layer, layer.get_random_transformation(
        {"images": images})["transforms"])
    given = _boxes("xyxy", xyxy, labels)

    def warp(boxes, *indices):
        for index in indices:
            boxes = ab.transform_boxes(boxes, matrices[index], "xyxy", H, W)
        return boxes

    for choices in ([0, 2], [2, 0], [1, 1], [0, 4, 2]):
        ours = ab.policy_boxes(given, choices, matrices, MOVES, "xyxy", H, W)
        expected = warp(given, *[c for c in choices if MOVES[c]])
        _compare(ours, (np.asarray(expected["boxes"]), np.asarray(expected["labels"])), 1e-4)
