"""``kgraph.utils.bounding_boxes`` against ``keras.utils.bounding_boxes`` on random boxes:
every format pair, batched and unbatched, dicts, under ``jax.jit``, and the errors."""

import itertools

import jax
import keras
import numpy as np
import pytest

import kgraph as kg

KB, GB = keras.utils.bounding_boxes, kg.utils.bounding_boxes
FORMATS = ["xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx",
           "rel_xywh", "rel_center_xywh"]
H, W = 37, 53


def _xyxy(rng, shape, height=H, width=W):
    """Random valid xyxy boxes of ``shape + (4,)`` (some partly outside the image)."""
    x = np.sort(rng.uniform(-5, width + 5, shape + (2,)), axis=-1)
    y = np.sort(rng.uniform(-5, height + 5, shape + (2,)), axis=-1)
    return np.stack([x[..., 0], y[..., 0], x[..., 1], y[..., 1]], -1).astype("float32")


def _in(fmt, boxes):
    """``boxes`` (xyxy) expressed in ``fmt`` by Keras."""
    return np.asarray(KB.convert_format(boxes, "xyxy", fmt, height=H, width=W))


@pytest.mark.parametrize("shape", [(6,), (3, 5)], ids=["unbatched", "batched"])
def test_convert_format_every_pair_matches_keras(shape):
    boxes = _xyxy(np.random.default_rng(0), shape)
    worst = 0.0
    for source, target in itertools.product(FORMATS, FORMATS):
        given = _in(source, boxes)
        theirs = np.asarray(KB.convert_format(given, source, target, height=H, width=W))
        ours = np.asarray(GB.convert_format(given, source.upper(), target, height=H, width=W))
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        worst = max(worst, float(np.max(np.abs(ours - theirs))))
    assert worst <= 1e-5, worst


def test_convert_format_dicts_dtypes_arrays_of_sizes_and_jit():
    rng = np.random.default_rng(1)
    boxes, labels = _xyxy(rng, (2, 4)), rng.integers(0, 5, (2, 4))
    ours = GB.convert_format({"boxes": boxes, "labels": labels}, "xyxy", "rel_yxyx",
                             height=H, width=W)
    theirs = KB.convert_format({"boxes": boxes.copy(), "labels": labels}, "xyxy", "rel_yxyx",
                               height=H, width=W)
    np.testing.assert_allclose(ours["boxes"], theirs["boxes"], rtol=1e-6)
    np.testing.assert_array_equal(ours["labels"], labels)
    assert GB.convert_format(boxes, "xyxy", "xywh", dtype="float16").dtype == "float16"
    heights = np.array([[[20.0]], [[40.0]]], "float32")  # one size per image, broadcast
    np.testing.assert_allclose(
        GB.convert_format(boxes, "xyxy", "rel_xyxy", height=heights, width=heights),
        KB.convert_format(boxes, "xyxy", "rel_xyxy", height=heights, width=heights), rtol=1e-6)
    jitted = jax.jit(lambda b, h: GB.convert_format(b, "center_yxhw", "rel_xywh", height=h,
                                                    width=W))
    given = _in("center_yxhw", boxes)
    np.testing.assert_allclose(jitted(given, H), KB.convert_format(
        given, "center_yxhw", "rel_xywh", height=H, width=W), rtol=1e-6, atol=1e-7)


def test_convert_format_errors():
    with pytest.raises(ValueError, match="last dimension of 4"):
        GB.convert_format(np.zeros((2, 3)), "xyxy", "yxyx")
    with pytest.raises(ValueError, match="Supported formats"):
        GB.convert_format(np.zeros((2, 4)), "xyxy", "corners")
    with pytest.raises(ValueError, match="`height` and `width`"):
        GB.convert_format(np.zeros((2, 4)), "xyxy", "rel_xyxy")


@pytest.mark.parametrize("fmt", ["xyxy", "rel_xyxy"])
@pytest.mark.parametrize("shape", [(7,), (2, 6)], ids=["unbatched", "batched"])
def test_clip_to_image_size_matches_keras(fmt, shape):
    rng = np.random.default_rng(2)
    boxes = _xyxy(rng, shape, 2 * H, 2 * W) - np.array([H, W, H, W], "float32") / 2
    boxes[..., 0, :] = [60.0, 1.0, 70.0, 3.0]  # outside on the right: no area left
    if fmt == "rel_xyxy":
        boxes = boxes / np.array([W, H, W, H], "float32")
    labels = rng.integers(0, 4, shape)
    data = {"boxes": boxes, "labels": labels, "extra": "kept"}
    ours = GB.clip_to_image_size(data, height=H, width=W, bounding_box_format=fmt)
    theirs = KB.clip_to_image_size(dict(data), height=H, width=W, bounding_box_format=fmt)
    np.testing.assert_allclose(ours["boxes"], theirs["boxes"], atol=0)
    np.testing.assert_array_equal(ours["labels"], theirs["labels"])
    assert ours["extra"] == "kept" and (np.asarray(ours["labels"]) == -1).any()
    no_labels = GB.clip_to_image_size({"boxes": boxes}, H, W, fmt)
    assert set(no_labels) == {"boxes"}
    one_hot = GB.clip_to_image_size({"boxes": boxes, "labels": np.eye(4)[labels]}, H, W, fmt)
    emptied = np.asarray(theirs["labels"]) == -1  # (Keras's clip takes class ids only)
    np.testing.assert_array_equal(np.asarray(one_hot["labels"])[emptied], -1)
    np.testing.assert_array_equal(np.asarray(one_hot["labels"])[~emptied],
                                  np.eye(4)[labels][~emptied])
    with pytest.raises(NotImplementedError, match="clip_to_image_size"):
        GB.clip_to_image_size(data, H, W, "xywh")
    with pytest.raises(ValueError, match="`height` and `width`"):
        GB.clip_to_image_size(data, bounding_box_format="xyxy")


def test_affine_transform_matches_keras_and_moves_unbatched_boxes_alike():
    rng = np.random.default_rng(3)
    boxes = _xyxy(rng, (3, 5))
    params = [rng.uniform(-40, 40, 3), rng.uniform(-0.2, 0.2, 3), rng.uniform(-0.2, 0.2, 3),
              rng.uniform(0.7, 1.3, 3), rng.uniform(-20, 20, 3), rng.uniform(-20, 20, 3)]
    params = [p.astype("float32") for p in params]
    for center in [(None, None), (0.25, 0.75)]:
        theirs = np.asarray(KB.affine_transform(boxes, *params, H, W, *center))
        ours = np.asarray(GB.affine_transform(boxes, *params, H, W, *center))
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-3)
        single = GB.affine_transform(boxes[1], *(p[1:2] for p in params), H, W, *center)
        np.testing.assert_allclose(single, theirs[1], rtol=1e-5, atol=1e-3)
    jitted = jax.jit(lambda b, *p: GB.affine_transform(b, *p, height=H, width=W))
    np.testing.assert_allclose(jitted(boxes, *params),
                               KB.affine_transform(boxes, *params, H, W), rtol=1e-5, atol=1e-3)
    with pytest.raises(NotImplementedError, match="affine_transform"):
        GB.affine_transform(boxes, *params, H, W, bounding_box_format="yxyx")


def test_a_quarter_turn_moves_a_box_as_the_image_moves():
    # the lit pixels of a box, rotated by the image op with Keras's rotation matrix, are
    # bounded by the moved box (a quarter turn maps pixel centres onto pixel centres)
    side, box = 11, np.array([[[1.0, 2.0, 4.0, 3.0]]], "float32")
    image = np.zeros((1, side, side, 1), "float32")
    image[0, 2:4, 1:5] = 1.0
    matrix = kg.layers.augmentation.rotation_transforms(np.radians([90.0]), side, side)
    turned = np.asarray(kg.ops.image.affine_transform(image, matrix, interpolation="nearest"))
    rows, cols = np.nonzero(turned[0, ..., 0] > 0.5)
    zeros, ones = np.zeros(1, "float32"), np.ones(1, "float32")
    out = np.asarray(GB.affine_transform(box, ones * 90, zeros, zeros, ones, zeros, zeros,
                                         side, side))
    np.testing.assert_allclose(out[0, 0], [cols.min(), rows.min(), cols.max(), rows.max()],
                               atol=1e-4)


@pytest.mark.parametrize("shape", [(6,), (2, 5)], ids=["unbatched", "batched"])
def test_crop_and_pad_match_keras(shape):
    boxes = _xyxy(np.random.default_rng(4), shape)
    np.testing.assert_allclose(GB.crop(boxes, 5, 7, 20, 30),
                               KB.crop(boxes, 5, 7, 20, 30), atol=0)
    np.testing.assert_allclose(GB.pad(boxes, 5, 7), KB.pad(boxes, 5, 7), atol=0)
    for function in (GB.crop, GB.pad):
        with pytest.raises(NotImplementedError, match=function.__name__):
            function(boxes, 1, 1, 2, 2, bounding_box_format="yxyx")


@pytest.mark.parametrize("variance", [None, [0.1, 0.1, 0.2, 0.2]])
@pytest.mark.parametrize("encoding", ["center_yxhw", "center_xywh"])
def test_deltas_match_keras_and_round_trip(encoding, variance):
    rng = np.random.default_rng(5)
    anchors, boxes = _xyxy(rng, (6,)), _xyxy(rng, (2, 6))
    anchors_rel = _in("rel_xywh", anchors)
    args = dict(variance=variance, image_shape=(H, W, 3))
    theirs = np.asarray(KB.encode_box_to_deltas(anchors_rel, boxes, "rel_xywh", "xyxy",
                                                encoding, **args))
    ours = np.asarray(GB.encode_box_to_deltas(anchors_rel, boxes, "rel_xywh", "xyxy", encoding,
                                              **args))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
    decoded_theirs = np.asarray(KB.decode_deltas_to_boxes(anchors_rel, theirs, "rel_xywh",
                                                          "yxyx", encoding, **args))
    decoded = np.asarray(GB.decode_deltas_to_boxes(anchors_rel, ours, "rel_xywh", "yxyx",
                                                   encoding, **args))
    np.testing.assert_allclose(decoded, decoded_theirs, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(decoded, _in("yxyx", boxes), rtol=1e-5, atol=1e-3)
    levels = GB.decode_deltas_to_boxes({"p3": anchors_rel}, {"p3": ours}, "rel_xywh", "yxyx",
                                       encoding, **args)
    np.testing.assert_allclose(levels["p3"], decoded, atol=1e-6)


def test_delta_errors_name_the_function():
    anchors = np.zeros((2, 4), "float32")
    with pytest.raises(ValueError, match="encode_box_to_deltas.*length 4"):
        GB.encode_box_to_deltas(anchors, anchors, "xyxy", "xyxy", variance=[1.0, 1.0])
    with pytest.raises(ValueError, match="decode_deltas_to_boxes.*'center_xywh'"):
        GB.decode_deltas_to_boxes(anchors, anchors, "xyxy", "xyxy", encoded_format="xyxy")


@pytest.mark.parametrize("ranks", [(2, 2), (3, 3), (3, 2), (2, 3)])
@pytest.mark.parametrize("masking", [False, True])
def test_compute_iou_matches_keras(ranks, masking):
    rng = np.random.default_rng(6)
    shapes = [(4,) if r == 2 else (2, 4) for r in ranks]
    boxes1, boxes2 = _xyxy(rng, shapes[0]), _xyxy(rng, (5,) if ranks[1] == 2 else (2, 5))
    boxes1[..., 1, :] = -1.0  # padding boxes: masked
    for fmt in ["xyxy", "center_xywh", "rel_yxyx"]:
        b1, b2 = _in(fmt, boxes1), _in(fmt, boxes2)
        ours = np.asarray(GB.compute_iou(b1, b2, fmt, use_masking=masking, mask_val=-2,
                                         image_shape=(H, W, 3)))
        if masking and ranks[0] != ranks[1]:  # Keras transposes the masks by one rank only
            reference = np.asarray(KB.compute_iou(b1, b2, fmt, image_shape=(H, W, 3)))
            mask = np.broadcast_to(np.all(boxes1 == -1, -1)[..., None], reference.shape)
            reference = np.where(mask, -2.0, reference)
        else:
            reference = np.asarray(KB.compute_iou(b1, b2, fmt, use_masking=masking,
                                                  mask_val=-2, image_shape=(H, W, 3)))
        assert ours.shape == reference.shape
        np.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-6)


def test_compute_ciou_matches_keras_and_errors():
    rng = np.random.default_rng(7)
    boxes1, boxes2 = _xyxy(rng, (2, 6)), _xyxy(rng, (2, 6))
    for fmt in ["xyxy", "yxyx", "center_yxhw"]:
        np.testing.assert_allclose(
            GB.compute_ciou(_in(fmt, boxes1), _in(fmt, boxes2), fmt),
            KB.compute_ciou(_in(fmt, boxes1), _in(fmt, boxes2), fmt), rtol=1e-5, atol=1e-6)
    rel = GB.compute_ciou(_in("rel_xyxy", boxes1), _in("rel_xyxy", boxes2), "rel_xyxy",
                          image_shape=(H, W, 3))
    np.testing.assert_allclose(rel, KB.compute_ciou(boxes1, boxes2, "xyxy"), rtol=1e-4,
                               atol=1e-5)
    jitted = jax.jit(lambda a, b: (GB.compute_ciou(a, b, "xyxy"), GB.compute_iou(a, b, "xyxy"),
                                   GB.clip_to_image_size({"boxes": a}, H, W)["boxes"]))
    for ours, theirs in zip(jitted(boxes1, boxes2), (
            KB.compute_ciou(boxes1, boxes2, "xyxy"), KB.compute_iou(boxes1, boxes2, "xyxy"),
            KB.clip_to_image_size({"boxes": boxes1}, H, W)["boxes"])):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="image_shape"):
        GB.compute_ciou(boxes1, boxes2, "rel_xyxy")
    with pytest.raises(ValueError, match="image_shape"):
        GB.compute_iou(boxes1, boxes2, "rel_xyxy")
    with pytest.raises(ValueError, match="boxes1"):
        GB.compute_iou(boxes1[0, 0], boxes2, "xyxy")
