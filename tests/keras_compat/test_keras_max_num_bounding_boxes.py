"""``MaxNumBoundingBoxes`` against Keras's: boxes and labels padded or cut to
``max_number``, one image or a batch, in a functional model, and its config."""

import jax
import keras
import numpy as np
import pytest

import compiler
import kgraph as kg


def _data(rng, shape=(2, 5)):
    return {"images": rng.uniform(0, 255, shape[:-1] + (8, 8, 3)).astype("float32"),
            "bounding_boxes": {"boxes": rng.uniform(0, 8, shape + (4,)).astype("float32"),
                               "labels": rng.integers(0, 4, shape).astype("int32")},
            "labels": np.arange(shape[0])}


@pytest.mark.parametrize("max_number, fill_value", [(3, -1), (7, -1), (5, 0), (8, -2)])
@pytest.mark.parametrize("batched", [True, False])
def test_pads_and_truncates_as_keras(max_number, fill_value, batched):
    data = _data(np.random.default_rng(0), (2, 5) if batched else (5,))
    ours = kg.layers.MaxNumBoundingBoxes(max_number, fill_value, bounding_box_format="xyxy")(
        {**data, "bounding_boxes": dict(data["bounding_boxes"])})
    theirs = keras.layers.MaxNumBoundingBoxes(max_number, fill_value,
                                              bounding_box_format="xyxy")(
        {**data, "bounding_boxes": dict(data["bounding_boxes"])})
    for key in ("boxes", "labels"):
        a, b = np.asarray(ours["bounding_boxes"][key]), np.asarray(theirs["bounding_boxes"][key])
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ours["images"], theirs["images"])
    np.testing.assert_array_equal(ours["labels"], data["labels"])


def test_rules_config_and_functional_models():
    data = _data(np.random.default_rng(1))
    for module in (kg.layers, keras.layers):  # boxes need a format, as Keras
        with pytest.raises(ValueError, match="bounding_box_format"):
            module.MaxNumBoundingBoxes(3)({**data, "bounding_boxes": dict(data["bounding_boxes"])})
    images = data["images"]
    np.testing.assert_array_equal(kg.layers.MaxNumBoundingBoxes(3)(images), images)
    config = keras.layers.MaxNumBoundingBoxes(4, bounding_box_format="yxyx").get_config()
    layer = kg.layers.MaxNumBoundingBoxes.from_config(config)
    assert (layer.max_number, layer.bounding_box_format) == (4, "yxyx")
    ours = layer.get_config()
    assert {k: v for k, v in ours.items() if k not in ("dtype", "fill_value")} == {
        k: v for k, v in config.items() if k != "dtype"}
    again = kg.layers.MaxNumBoundingBoxes(4, fill_value=-3).get_config()
    assert kg.layers.MaxNumBoundingBoxes.from_config(again).fill_value == -3
    x, b, lb = kg.Input((8, 8, 3)), kg.Input((5, 4)), kg.Input((5,), dtype="int32")
    out = kg.layers.MaxNumBoundingBoxes(3, bounding_box_format="xyxy")(
        {"images": x, "bounding_boxes": {"boxes": b, "labels": lb}})
    assert out["bounding_boxes"]["boxes"].shape == (None, 3, 4)
    assert out["bounding_boxes"]["labels"].dtype == "int32"
    program = compiler.compile(kg.Model([x, b, lb], out))
    params, state = program.init(jax.random.PRNGKey(0))
    boxes = data["bounding_boxes"]
    result = jax.jit(lambda *a: program.apply(params, state, list(a))[0])(
        images, boxes["boxes"], boxes["labels"])
    np.testing.assert_array_equal(result["bounding_boxes"]["boxes"], boxes["boxes"][:, :3])
    with pytest.raises(ValueError, match="max_number"):
        kg.layers.MaxNumBoundingBoxes(0)
