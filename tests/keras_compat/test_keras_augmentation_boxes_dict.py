"""Bounding boxes in the augmentation and image layers' dict form: the boxes follow the
images (a box's mask moved as a segmentation mask stays inside its moved box), the dict
form's rules (formats, layers that keep or refuse boxes, inference, one image, ragged
lists, configs, symbolic and compiled use), and ``Resizing`` / ``CenterCrop`` against
Keras."""

import jax
import jax.numpy as jnp
import keras
import numpy as np
import pytest

import compiler
import kgraph as kg

H, W = 30, 40


def _xyxy(rng, shape, height=H, width=W, margin=0.0):
    x = np.sort(rng.uniform(-margin, width + margin, shape + (2,)), axis=-1)
    y = np.sort(rng.uniform(-margin, height + margin, shape + (2,)), axis=-1)
    return np.stack([x[..., 0], y[..., 0], x[..., 1], y[..., 1]], -1).astype("float32")


def _boxes(fmt, xyxy, labels):
    boxes = keras.utils.bounding_boxes.convert_format(xyxy, "xyxy", fmt, height=H, width=W)
    return {"boxes": jnp.asarray(boxes), "labels": jnp.asarray(labels)}

def _box_masks(boxes, height, width):
    """Masks lighting the pixels of integer xyxy ``boxes`` (one per image)."""
    masks = np.zeros((len(boxes), height, width, 1), "float32")
    for mask, (x1, y1, x2, y2) in zip(masks, boxes.astype(int)):
        mask[y1:y2, x1:x2] = 1.0
    return masks


GEOMETRIC = [
    # (a seeded layer draws from its seed's own stream, as Keras's generator: seed 3 picks
    # rotation, contrast and translation; seed 11 picks three tonal operations only)
    ("RandAugment", dict(num_ops=3, factor=0.3, seed=3), 1.5),
    ("RandomFlip", dict(mode="horizontal_and_vertical"), 1e-3),
    ("RandomFlip", dict(mode="horizontal"), 1e-3),
    ("RandomTranslation", dict(height_factor=0.3, width_factor=0.3, fill_mode="constant"), 1.0),
    ("RandomZoom", dict(height_factor=0.4, fill_mode="constant"), 1.5),
    ("RandomRotation", dict(factor=0.15, fill_mode="constant"), 1.5),
    ("RandomShear", dict(x_factor=0.3, y_factor=0.2, fill_mode="constant"), 1.5),
    ("RandomPerspective", dict(scale=0.4), 1.5),
    ("RandomCrop", dict(height=24, width=26), 1e-3),
    ("RandomCrop", dict(height=36, width=44), 1.5),
]


@pytest.mark.parametrize("name, kwargs, slack", GEOMETRIC,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(GEOMETRIC)])
def test_boxes_follow_the_images(name, kwargs, slack):
    """A box's mask, moved as a segmentation mask (nearest), lies inside the moved box, and
    axis-aligned moves keep the box tight around it."""
    boxes = np.array([[5, 4, 19, 12], [22, 9, 35, 26], [3, 15, 12, 28], [14, 2, 30, 21]],
                     "float32")
    masks = _box_masks(boxes, H, W)
    layer = getattr(kg.layers, name)(**{"seed": 11, **kwargs}, bounding_box_format="rel_xywh")
    for operation in ("random_shear", "random_translation", "random_rotation"):
        if hasattr(layer, operation):  # the policy's masks: no reflections at the borders
            getattr(layer, operation).fill_mode = "constant"
    given = kg.utils.bounding_boxes.convert_format(boxes[:, None], "xyxy", "rel_xywh", H, W)
    out = layer({"images": np.repeat(masks, 3, axis=-1) * 255, "segmentation_masks": masks,
                 "bounding_boxes": {"boxes": given, "labels": np.arange(4)[:, None]}})
    height, width = out["segmentation_masks"].shape[1:3]
    moved = np.asarray(kg.utils.bounding_boxes.convert_format(
        out["bounding_boxes"]["boxes"], "rel_xywh", "xyxy", height, width))[:, 0]
    changed = 0
    for mask, box, start in zip(np.asarray(out["segmentation_masks"]), moved, boxes):
        rows, cols = np.nonzero(mask[..., 0] > 0.5)
        lit = np.array([cols.min(), rows.min(), cols.max() + 1, rows.max() + 1])
        assert np.all(box[:2] <= lit[:2] + slack) and np.all(box[2:] >= lit[2:] - slack)
        tight = name in ("RandomFlip", "RandomTranslation", "RandomZoom", "RandomCrop")
        if tight:
            np.testing.assert_allclose(box, lit, atol=slack + 0.5)
        changed += not np.allclose(box, start, atol=0.5)
    assert changed  # the draws moved some boxes
    np.testing.assert_array_equal(out["bounding_boxes"]["labels"], np.arange(4)[:, None])


def test_dict_rules_match_keras():
    images = np.random.default_rng(3).uniform(0, 255, (2, H, W, 3)).astype("float32")
    boxes = {"boxes": np.array([[[1.0, 2, 9, 8]], [[3.0, 4, 20, 18]]]),
             "labels": np.array([[1], [2]])}
    for module in (keras.layers, kg.layers):  # a format is required with boxes
        with pytest.raises(ValueError, match="bounding_box_format"):
            module.RandomFlip()({"images": images, "bounding_boxes": dict(boxes)})
    with pytest.raises(ValueError, match="unknown bounding box format"):
        kg.layers.RandomFlip(bounding_box_format="corners")
    for name in ("CutMix", "RandomElasticTransform",
                 "ContrastLimitedAdaptiveHistogramEqualization"):
        layer = getattr(kg.layers, name)(bounding_box_format="xyxy")
        with pytest.raises(NotImplementedError, match=f"{name} does not support bounding"):
            layer({"images": images, "bounding_boxes": dict(boxes)})
    keep = ["RandomContrast", "RandomBrightness", "RandomGrayscale", "RandomInvert",
            "Solarization", "AutoContrast", "RandomColorDegeneration", "RandomSharpness",
            "RandomPosterization", "RandomSaturation", "RandomHue", "RandomGaussianBlur",
            "RandomColorJitter", "Equalization", "RandomErasing", "AugMix"]
    args = {"RandomContrast": (0.5,), "RandomBrightness": (0.3,),
            "RandomColorDegeneration": (0.5,), "RandomSharpness": (0.5,),
            "RandomPosterization": (4,), "RandomSaturation": (0.5,), "RandomHue": (0.5,)}
    dense = {"boxes": jnp.asarray(boxes["boxes"], "float32"), "labels": boxes["labels"]}
    for name in keep:  # pixels change, boxes stay (Keras's colour layers)
        layer = getattr(kg.layers, name)(*args.get(name, ()), bounding_box_format="xyxy")
        kept = layer._apply_to_boxes(dense, images.shape, jax.random.PRNGKey(0))
        np.testing.assert_array_equal(kept["boxes"], boxes["boxes"])
        np.testing.assert_array_equal(kept["labels"], boxes["labels"])
    for name in ("RandomBrightness", "Solarization"):  # the whole dict form, end to end
        out = getattr(kg.layers, name)(*args.get(name, ()), bounding_box_format="xyxy")(
            {"images": images, "bounding_boxes": dict(boxes)})["bounding_boxes"]
        np.testing.assert_array_equal(out["boxes"], boxes["boxes"])
        assert out["boxes"].dtype == np.float32
    # (Keras's RandomGrayscale fails on dicts; its colour layers' boxes pass through)
    theirs = keras.layers.RandomContrast(0.5, bounding_box_format="xyxy")(
        {"images": images, "bounding_boxes": dict(boxes)})["bounding_boxes"]
    np.testing.assert_array_equal(theirs["boxes"], boxes["boxes"])
    # inference: boxes unchanged (float32), as Keras
    out = kg.layers.RandomRotation(0.3, bounding_box_format="xyxy")(
        {"images": images, "bounding_boxes": dict(boxes)}, training=False)
    np.testing.assert_array_equal(out["bounding_boxes"]["boxes"], boxes["boxes"])


def test_unbatched_ragged_lists_configs_and_compiled_programs():
    layer = kg.layers.RandomTranslation(0.2, 0.2, bounding_box_format="xywh", seed=1)
    image = np.ones((H, W, 3), "float32")
    single = layer({"images": image, "bounding_boxes": {"boxes": np.array([[1.0, 2, 5, 6]]),
                                                        "labels": np.array([3])}})
    assert single["bounding_boxes"]["boxes"].shape == (1, 4)
    ragged = layer({"images": np.stack([image, image]), "bounding_boxes": {
        "boxes": [[[1, 2, 5, 6]], [[1, 2, 5, 6], [7, 8, 4, 4]]], "labels": [[1], [2, 3]]}})
    assert ragged["bounding_boxes"]["boxes"].shape == (2, 2, 4)
    assert ragged["bounding_boxes"]["labels"][0, 1] == -1  # the padding box
    with pytest.raises(ValueError, match=r"takes boxes of shape \(num_boxes, 4\)"):
        layer({"images": image, "bounding_boxes": {"boxes": np.zeros((1, 1, 4)),
                                                   "labels": np.zeros((1, 1))}})
    config = keras.layers.RandomTranslation(0.2, 0.2, bounding_box_format="xywh").get_config()
    assert kg.layers.RandomTranslation.from_config(config).bounding_box_format == "xywh"
    assert layer.get_config()["bounding_box_format"] == "xywh"
    assert "bounding_box_format" not in kg.layers.RandomFlip().get_config()  # as Keras
    # symbolic dicts keep each entry's dtype; a compiled program moves the boxes per key
    x, b, lb = kg.Input((H, W, 3)), kg.Input((3, 4)), kg.Input((3,), dtype="int32")
    out = kg.layers.RandomRotation(0.2, bounding_box_format="xyxy", seed=2)(
        {"images": x, "bounding_boxes": {"boxes": b, "labels": lb}})
    assert out["bounding_boxes"]["labels"].dtype == "int32"
    program = compiler.compile(kg.Model([x, b, lb], out))
    params, state = program.init(jax.random.PRNGKey(0))
    batch = [np.ones((2, H, W, 3)), np.tile([[[5.0, 5, 15, 12]]], (2, 3, 1)),
             np.ones((2, 3), "int32")]
    run = jax.jit(lambda key: program.apply(params, state, batch, training=True, key=key)[0])
    first, second = run(jax.random.PRNGKey(1)), run(jax.random.PRNGKey(2))
    assert not np.allclose(first["bounding_boxes"]["boxes"], second["bounding_boxes"]["boxes"])
    np.testing.assert_array_equal(first["bounding_boxes"]["boxes"],
                                  run(jax.random.PRNGKey(1))["bounding_boxes"]["boxes"])


RESIZES = [("Resizing", (20, 24), {}), ("Resizing", (20, 24), {"pad_to_aspect_ratio": True}),
           ("Resizing", (24, 20), {"pad_to_aspect_ratio": True}),
           ("Resizing", (20, 24), {"crop_to_aspect_ratio": True}),
           ("Resizing", (24, 20), {"crop_to_aspect_ratio": True}),
           ("CenterCrop", (20, 24), {}), ("CenterCrop", (36, 30), {})]


@pytest.mark.parametrize("name, size, kwargs", RESIZES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(RESIZES)])
def test_resizing_and_center_crop_boxes_match_keras(name, size, kwargs):
    rng = np.random.default_rng(5)
    xyxy, labels = _xyxy(rng, (2, 5), margin=2.0), rng.integers(0, 5, (2, 5))
    images = np.zeros((2, H, W, 1), "float32")
    for fmt in ["xyxy", "center_yxhw", "rel_xywh"]:
        given = _boxes(fmt, xyxy, labels)
        given = {"boxes": given["boxes"].at[:, -1].set(-1.0), "labels": given["labels"]}
        theirs = getattr(keras.layers, name)(*size, **kwargs, bounding_box_format=fmt)(
            {"images": images, "bounding_boxes": dict(given)})["bounding_boxes"]
        ours = getattr(kg.layers, name)(*size, **kwargs, bounding_box_format=fmt)(
            {"images": images, "bounding_boxes": dict(given)})
        assert ours["images"].shape == (2, *size, 1)
        np.testing.assert_allclose(ours["bounding_boxes"]["boxes"], theirs["boxes"], rtol=1e-5,
                                   atol=2e-4)
        np.testing.assert_array_equal(ours["bounding_boxes"]["labels"], theirs["labels"])
    single = getattr(kg.layers, name)(*size, **kwargs, bounding_box_format="xyxy")(
        {"images": images[0], "bounding_boxes": {"boxes": xyxy[0], "labels": labels[0]}})
    batched = getattr(kg.layers, name)(*size, **kwargs, bounding_box_format="xyxy")(
        {"images": images, "bounding_boxes": {"boxes": xyxy, "labels": labels}})
    np.testing.assert_array_equal(single["bounding_boxes"]["boxes"],
                                  batched["bounding_boxes"]["boxes"][0])
