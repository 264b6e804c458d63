"""Keras's contract of the image layers, ``get_random_transformation`` and
``transform_images`` / ``transform_labels`` / ``transform_bounding_boxes``: the dict kgraph
draws has Keras's keys and shapes, and Keras's own ``transform_*`` applied to it give
kgraph's ``transform_*`` (and, with the same key, kgraph's call)."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(0)
_images = _rng.uniform(0, 255, (4, 10, 8, 3)).astype("float32")

_LAYERS = [
    ("RandomFlip", {"mode": "horizontal_and_vertical"}),
    ("RandomTranslation", {"height_factor": 0.3, "width_factor": 0.2}),
    ("RandomZoom", {"height_factor": 0.3, "width_factor": (-0.2, 0.4)}),
    ("RandomRotation", {"factor": 0.2}),
    ("RandomShear", {"x_factor": 0.3, "y_factor": 0.2}),
    ("RandomContrast", {"factor": 0.5}),
    ("RandomBrightness", {"factor": 0.3}),
    ("MixUp", {"alpha": 0.4}),
    ("CutMix", {}),
    ("RandomErasing", {"factor": (1.0, 1.0)}),
    ("RandomGaussianBlur", {"factor": (1.0, 1.0)}),
    ("RandomPerspective", {"factor": (1.0, 1.0), "scale": 0.5}),
]


def _numpy(transformation):
    return {name: value if name == "input_shape" or np.isscalar(value) else np.asarray(value)
            for name, value in transformation.items()}


@pytest.mark.parametrize("name, kwargs", _LAYERS, ids=[name for name, _ in _LAYERS])
def test_kerass_transform_images_on_kgraphs_draws_give_kgraphs_images(name, kwargs):
    ours = getattr(kg.layers, name)(seed=3, **kwargs)
    theirs = getattr(keras.layers, name)(seed=3, **kwargs)
    transformation = ours.get_random_transformation(_images)
    keras_keys = theirs.get_random_transformation(_images).keys()
    assert set(transformation) == set(keras_keys)
    drawn = _numpy(transformation)
    for key in transformation:
        theirs_value = theirs.get_random_transformation(_images)[key]
        assert np.shape(drawn[key]) == np.shape(theirs_value), key
    np.testing.assert_allclose(np.asarray(ours.transform_images(_images, transformation)),
                               np.asarray(theirs.transform_images(_images, drawn)),
                               rtol=1e-5, atol=1e-3)


def test_mix_up_labels_and_boxes_follow_kerass_transforms():
    ours, theirs = kg.layers.MixUp(seed=1), keras.layers.MixUp(seed=1)
    transformation = ours.get_random_transformation(_images)
    drawn = _numpy(transformation)
    labels = np.eye(4, dtype="float32")
    np.testing.assert_allclose(np.asarray(ours.transform_labels(labels, transformation)),
                               np.asarray(theirs.transform_labels(labels, drawn)), rtol=1e-6)
    boxes = {"boxes": _rng.uniform(0, 5, (4, 2, 4)).astype("float32"),
             "labels": np.ones((4, 2), "int32")}
    ours_boxes = kg.layers.MixUp(bounding_box_format="xyxy").transform_bounding_boxes(
        boxes, transformation)
    theirs_boxes = keras.layers.MixUp(bounding_box_format="xyxy").transform_bounding_boxes(
        dict(boxes), drawn)
    np.testing.assert_allclose(np.asarray(ours_boxes["boxes"]),
                               np.asarray(theirs_boxes["boxes"]))


def test_inference_draws_nothing_and_leaves_images_as_keras():
    ours, theirs = kg.layers.RandomFlip(), keras.layers.RandomFlip()
    assert ours.get_random_transformation(_images, training=False) is None
    assert theirs.get_random_transformation(_images, training=False) is None
    np.testing.assert_array_equal(np.asarray(ours.transform_images(_images, None)),
                                  np.asarray(theirs.transform_images(_images, None)))
