"""Keras's dict form of the augmentation layers: ``{"images", "labels",
"segmentation_masks"}`` transformed with the same draws; other entries pass through."""

import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(0)
IMAGES = _rng.random((6, 8, 8, 3)).astype("float32")
MASKS = (_rng.random((6, 8, 8, 1)) * 4).astype("int32")
LABELS = np.eye(6, dtype="float32")


def test_masks_move_with_their_images_and_labels_stay():
    out = kg.layers.RandomFlip("horizontal", seed=3)(
        {"images": IMAGES, "labels": LABELS, "segmentation_masks": MASKS, "ids": np.arange(6)})
    np.testing.assert_array_equal(np.asarray(out["ids"]), np.arange(6))
    np.testing.assert_array_equal(np.asarray(out["labels"]), LABELS)
    flipped = np.all(np.asarray(out["images"]) == IMAGES[:, :, ::-1], axis=(1, 2, 3))
    kept = np.all(np.asarray(out["images"]) == IMAGES, axis=(1, 2, 3))
    assert np.all(flipped | kept) and flipped.any() and kept.any()
    masks = np.asarray(out["segmentation_masks"])
    np.testing.assert_array_equal(masks[flipped], MASKS[flipped][:, :, ::-1])
    np.testing.assert_array_equal(masks[kept], MASKS[kept])


def test_warped_masks_keep_their_classes_and_follow_the_images():
    layer = kg.layers.RandomRotation(0.25, fill_mode="constant", seed=1)
    out = layer({"images": np.repeat(MASKS.astype("float32"), 3, -1),
                 "segmentation_masks": MASKS})
    masks = np.asarray(out["segmentation_masks"])
    assert set(np.unique(masks)) <= set(np.unique(MASKS)) | {0}  # nearest: no blends
    assert not np.array_equal(masks, MASKS)
    # the images are the masks: warped by nearest interpolation too, they are the masks
    nearest = kg.layers.RandomRotation(0.25, fill_mode="constant", interpolation="nearest",
                                       seed=1)
    out = nearest({"images": np.repeat(MASKS.astype("float32"), 3, -1),
                   "segmentation_masks": MASKS})
    np.testing.assert_array_equal(np.asarray(out["images"])[..., :1],
                                  np.asarray(out["segmentation_masks"]))


def test_single_images_inference_and_refusals():
    out = kg.layers.RandomFlip(seed=0)({"images": IMAGES[0], "labels": LABELS[0]})
    assert np.asarray(out["images"]).shape == (8, 8, 3)
    np.testing.assert_array_equal(np.asarray(out["labels"]), LABELS[0])
    same = kg.layers.RandomZoom(0.5)({"images": IMAGES, "segmentation_masks": MASKS},
                                     training=False)
    np.testing.assert_array_equal(np.asarray(same["images"]), IMAGES)
    np.testing.assert_array_equal(np.asarray(same["segmentation_masks"]), MASKS)
    with pytest.raises(ValueError, match="'images' entry"):
        kg.layers.RandomFlip()({"labels": LABELS})
    with pytest.raises(ValueError, match="bounding box format"):
        kg.layers.RandomFlip()({"images": IMAGES, "bounding_boxes": {"boxes": np.ones((6, 1, 4))}})


def test_a_shear_that_collapses_the_image_leaves_no_boxes_not_nans():
    layer = kg.layers.RandomShear(x_factor=1.0, y_factor=1.0, bounding_box_format="xyxy")
    boxes = {"boxes": np.array([[2.0, 1.0, 4.0, 3.0]]), "labels": np.array([3])}
    out = layer.transform_bounding_boxes(boxes, {"shear_factor": np.array([[1.0, 1.0]]),
                                                 "input_shape": (10, 8, 3)})
    np.testing.assert_array_equal(np.asarray(out["boxes"]), [[0.0, 0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(np.asarray(out["labels"]), [-1])
