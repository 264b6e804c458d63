"""``kgraph.visualization`` against ``keras.visualization``: segmentation masks drawn as
Keras draws them; bounding boxes drawn where they are (Keras's box drawing needs OpenCV,
which kgraph does not use: the geometry is checked instead); the galleries' figures (Agg
backend) holding the same axes, pictures, titles and legends as Keras's."""

import sys

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import keras  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

import kgraph as kg  # noqa: E402

KV, GV = keras.visualization, kg.visualization


@pytest.fixture(autouse=True)
def _no_figures_left():
    yield
    plt.close("all")


def _figure(plot, *args, **kwargs):
    """The figure ``plot`` leaves (not shown): its axes' pictures, titles, legend texts."""
    plt.close("all")
    plot(*args, show=False, **kwargs)
    figure = plt.gcf()
    pictures = [np.asarray(a.get_images()[0].get_array()) if a.get_images() else None
                for a in figure.axes]
    legends = [[t.get_text() for t in legend.get_texts()] for legend in figure.legends]
    return (pictures, [a.get_title() for a in figure.axes], legends,
            tuple(figure.get_size_inches()))


def _same_figures(ours, theirs):
    assert len(ours[0]) == len(theirs[0])
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_array_equal(a, b)
    assert ours[1:] == theirs[1:]


@pytest.mark.parametrize("blend", [True, False])
@pytest.mark.parametrize("num_classes", [None, 4])
def test_draw_segmentation_masks_matches_keras(blend, num_classes):
    rng = np.random.default_rng(0)
    images = rng.uniform(0, 255, (2, 5, 6, 3)).astype("float32")
    masks = rng.integers(-1, 4, (2, 5, 6, 1)).astype("int32")
    for kwargs in [{}, {"color_mapping": {i: (10 * i, 255 - 9 * i, 3 * i) for i in range(4)},
                        "alpha": 0.35, "ignore_index": 2}]:
        if num_classes is None and "color_mapping" in kwargs:
            continue
        theirs = np.asarray(KV.draw_segmentation_masks(images, masks, num_classes, blend=blend,
                                                       **kwargs))
        ours = GV.draw_segmentation_masks(images, masks, num_classes, blend=blend, **kwargs)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, atol=1e-4 if not blend else 0)
    first = GV.draw_segmentation_masks(images.transpose(0, 3, 1, 2), masks.transpose(0, 3, 1, 2),
                                       4, data_format="channels_first")
    np.testing.assert_array_equal(first, GV.draw_segmentation_masks(images, masks, 4))
    with pytest.raises(TypeError, match="integer dtype"):
        GV.draw_segmentation_masks(images, masks.astype("float32"))
    with pytest.raises(ValueError, match="4D"):
        GV.draw_segmentation_masks(images[0], masks[0])


def _expected_outline(shape, box, thickness):
    """The pixels of a box's outline: within ``thickness`` of its edges (inclusive ends)."""
    rows, cols = np.mgrid[:shape[0], :shape[1]]
    x1, y1, x2, y2 = box
    low, high = -(thickness // 2), (thickness - 1) // 2
    inside = ((cols >= x1 + low) & (cols <= x2 + high) & (rows >= y1 + low)
              & (rows <= y2 + high))
    near = lambda v, edge: (v >= edge + low) & (v <= edge + high)  # noqa: E731
    return inside & (near(cols, x1) | near(cols, x2) | near(rows, y1) | near(rows, y2))


@pytest.mark.parametrize("thickness", [1, 2, 3])
def test_draw_bounding_boxes_outlines_the_boxes_in_any_format(thickness):
    if "cv2" not in sys.modules:  # Keras draws with OpenCV, which is not installed here
        with pytest.raises(ImportError, match="cv2"):
            KV.draw_bounding_boxes(np.zeros((1, 4, 4, 3)), {"boxes": np.zeros((1, 1, 4)),
                                                            "labels": np.zeros((1, 1))}, "xyxy")
    rng = np.random.default_rng(1)
    images = rng.uniform(0, 1, (2, 20, 24, 3)).astype("float32")  # scaled to [0, 255]
    xyxy = np.array([[[3, 4, 15, 12], [6, 2, 20, 17]], [[1, 1, 22, 18], [8, 9, 9, 10]]])
    labels = np.array([[0, -1], [2, 1]])  # -1: not drawn
    color = (250, 20, 70)
    base = (np.clip(images, 0, 1) * 255).astype("uint8")
    for fmt in ["xyxy", "center_yxhw", "rel_xywh"]:
        boxes = keras.utils.bounding_boxes.convert_format(xyxy.astype("float32"), "xyxy", fmt,
                                                          height=20, width=24)
        drawn = GV.draw_bounding_boxes(images, {"boxes": boxes, "labels": labels}, fmt,
                                       color=color, line_thickness=thickness)
        assert drawn.dtype == np.uint8 and drawn.shape == images.shape
        for i in range(2):
            outline = np.zeros((20, 24), bool)
            for box, label in zip(np.rint(xyxy[i]).astype(int), labels[i]):
                if label != -1:
                    outline |= _expected_outline((20, 24), box, thickness)
            np.testing.assert_array_equal(drawn[i][outline], np.broadcast_to(color, (
                outline.sum(), 3)))
            np.testing.assert_array_equal(drawn[i][~outline], base[i][~outline])
    first = GV.draw_bounding_boxes(images.transpose(0, 3, 1, 2), {"boxes": xyxy,
                                   "labels": labels}, "xyxy", color=color,
                                   line_thickness=thickness, data_format="channels_first")
    np.testing.assert_array_equal(first.transpose(0, 2, 3, 1), GV.draw_bounding_boxes(
        images, {"boxes": xyxy, "labels": labels}, "xyxy", color=color,
        line_thickness=thickness))


def test_draw_bounding_boxes_writes_class_names_above_the_boxes():
    images = np.zeros((1, 60, 80, 3), "uint8")
    boxes = {"boxes": np.array([[[10, 40, 60, 55]]]), "labels": np.array([[3]])}
    plain = GV.draw_bounding_boxes(images, boxes, "xyxy", color=(255, 255, 0))
    named = GV.draw_bounding_boxes(images, boxes, "xyxy", color=(255, 255, 0),
                                   class_mapping={3: "cat"})
    text = np.any(named != plain, axis=-1)[0]
    rows, cols = np.nonzero(text)
    assert text.sum() > 20 and rows.max() < 40 - 1 and cols.min() >= 10  # above, from x1
    np.testing.assert_array_equal(named[0][text][:, 2], 0)  # in the box's colour (no blue)
    scored = GV.draw_bounding_boxes(images, {**boxes, "confidences": np.array([[0.5]])},
                                    "xyxy", class_mapping={3: "cat"})
    assert np.any(scored != GV.draw_bounding_boxes(images, boxes, "xyxy",
                                                   class_mapping={3: "cat"}))
    with pytest.raises(TypeError, match="dict"):
        GV.draw_bounding_boxes(images, [boxes], "xyxy")
    with pytest.raises(ValueError, match="'labels'"):
        GV.draw_bounding_boxes(images, {"boxes": boxes["boxes"]}, "xyxy")


@pytest.mark.parametrize("batch, kwargs", [
    (4, {}), (5, {}), (3, {"rows": 1, "cols": 3}), (2, {"value_range": (0, 1)}),
    (4, {"y_true": [0, 1, 2, 1], "y_pred": [1, 1, 2, 0], "label_map": {0: "a", 1: "b"}}),
], ids=["square", "five", "one_row", "unit_range", "labels"])
def test_plot_image_gallery_matches_keras(batch, kwargs):
    rng = np.random.default_rng(2)
    high = kwargs.get("value_range", (0, 255))[1]
    images = (rng.uniform(0, high, (batch, 6, 5, 3))).astype("float32")
    _same_figures(_figure(GV.plot_image_gallery, images, **kwargs),
                  _figure(KV.plot_image_gallery, images, **kwargs))
    handles = [matplotlib.patches.Patch(color="red", label="mine")]
    _same_figures(_figure(GV.plot_image_gallery, images, legend_handles=handles),
                  _figure(KV.plot_image_gallery, images, legend_handles=handles))


def test_plot_image_gallery_channels_first_path_and_errors(tmp_path):
    images = np.random.default_rng(3).uniform(0, 255, (4, 6, 5, 3)).astype("float32")
    ours = _figure(GV.plot_image_gallery, images.transpose(0, 3, 1, 2),
                   data_format="channels_first")
    _same_figures(ours, _figure(KV.plot_image_gallery, images))
    plt.close("all")
    GV.plot_image_gallery(images, path=str(tmp_path / "gallery.png"))
    assert (tmp_path / "gallery.png").stat().st_size > 0 and not plt.get_fignums()
    with pytest.raises(ValueError, match="`path`"):
        GV.plot_image_gallery(images, path=str(tmp_path / "g.png"), show=True)
    with pytest.raises(ValueError, match="label_map"):
        GV.plot_image_gallery(images, y_true=[0, 1, 0, 1])
    with pytest.raises(ValueError, match="4D"):
        GV.plot_image_gallery(images[0])


def test_plot_segmentation_mask_gallery_matches_keras():
    rng = np.random.default_rng(4)
    images = rng.uniform(0, 255, (3, 6, 5, 3)).astype("float32")
    y_true, y_pred = rng.integers(0, 3, (2, 3, 6, 5, 1))
    for kwargs in [{"y_true": y_true}, {"y_true": y_true, "y_pred": y_pred, "alpha": 0.4},
                   {"y_pred": y_pred, "blend": False}]:
        _same_figures(_figure(GV.plot_segmentation_mask_gallery, images, 3, **kwargs),
                      _figure(KV.plot_segmentation_mask_gallery, images, 3, **kwargs))


def test_plot_bounding_box_gallery_draws_both_sets_and_the_legend():
    rng = np.random.default_rng(5)
    images = rng.uniform(0, 255, (4, 16, 16, 3)).astype("float32")
    y_true = {"boxes": np.tile([[[2.0, 2, 10, 10]]], (4, 1, 1)), "labels": np.zeros((4, 1))}
    y_pred = {"boxes": np.tile([[[4.0, 5, 14, 12]]], (4, 1, 1)), "labels": np.ones((4, 1))}
    ours = _figure(GV.plot_bounding_box_gallery, images, "xyxy", y_true=y_true, y_pred=y_pred,
                   legend=True)
    expected = GV.draw_bounding_boxes(
        GV.draw_bounding_boxes(images, y_true, "xyxy", color=(0, 188, 212)), y_pred, "xyxy",
        color=(255, 235, 59))
    for picture, image in zip(ours[0], expected):
        np.testing.assert_array_equal(picture, image)
    # without boxes Keras runs (its drawing needs OpenCV): the same figure and legend
    _same_figures(_figure(GV.plot_bounding_box_gallery, images, "xyxy", legend=True),
                  _figure(KV.plot_bounding_box_gallery, images, "xyxy", legend=True))
    with pytest.raises(ValueError, match="legend"):
        GV.plot_bounding_box_gallery(images, "xyxy", legend=True, legend_handles=[1])


def test_matplotlib_is_needed_only_by_the_galleries(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="plot_image_gallery needs matplotlib"):
        GV.plot_image_gallery(np.zeros((1, 2, 2, 3)))
    drawn = GV.draw_bounding_boxes(np.zeros((1, 4, 4, 3)), {"boxes": np.array([[[0, 0, 2, 2]]]),
                                   "labels": np.array([[0]])}, "xyxy")
    assert drawn.any()
