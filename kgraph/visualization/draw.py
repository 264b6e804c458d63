"""Drawing on batches of images (``keras.visualization.draw_bounding_boxes`` and
``draw_segmentation_masks``), in NumPy: no OpenCV. Box outlines are drawn by hand; class
labels are written with Pillow (needed only when labels are drawn).

>>> import numpy as np
>>> images = np.zeros((1, 6, 8, 3), "uint8")
>>> boxes = {"boxes": np.array([[[1, 1, 5, 4]]]), "labels": np.array([[0]])}
>>> drawn = draw_bounding_boxes(images, boxes, "xyxy", color=(255, 0, 0), line_thickness=1)
>>> (drawn[0, ..., 0] > 0).astype(int)
array([[0, 0, 0, 0, 0, 0, 0, 0],
       [0, 1, 1, 1, 1, 1, 0, 0],
       [0, 1, 0, 0, 0, 1, 0, 0],
       [0, 1, 0, 0, 0, 1, 0, 0],
       [0, 1, 1, 1, 1, 1, 0, 0],
       [0, 0, 0, 0, 0, 0, 0, 0]])
"""

from __future__ import annotations

import numpy as np

from kgraph import config
from kgraph.utils.bounding_boxes.converters import convert_format

__all__ = ["draw_bounding_boxes", "draw_segmentation_masks"]


def _batched_images(name, images):
    images = np.asarray(images)
    if images.ndim != 4:
        raise ValueError(f"{name}: `images` must be batched 4D tensor. Received: "
                         f"images.shape={images.shape}")
    return images


def _to_uint8(images):
    """Keras's conversion: floats up to 1 are scaled to [0, 255], others clipped to it."""
    if images.dtype.kind == "f" and images.size > 0:
        images = np.clip(images, 0, 1) * 255 if images.max() <= 1.0 \
            else np.clip(images, 0, 255)
    return images.astype("uint8")


def _channel_color(color, channels):
    """``color`` (RGB) with one value per image channel (padded with zeros, or cut)."""
    values = list(color)[:channels]
    return np.array(values + [0] * (channels - len(values)), "uint8")


def _rectangle(image, x1, y1, x2, y2, color, thickness):
    """The outline of ``(x1, y1, x2, y2)`` (inclusive pixel corners) on ``image`` (HWC),
    lines ``thickness`` pixels wide centred on the edges, clipped to the image."""
    height, width = image.shape[:2]
    low, high = -(thickness // 2), (thickness - 1) // 2  # offsets of a line's pixels

    def band(top, bottom, left, right):
        top, left = max(top, 0), max(left, 0)
        bottom, right = min(bottom, height - 1), min(right, width - 1)
        if top <= bottom and left <= right:
            image[top:bottom + 1, left:right + 1] = color

    x1, x2 = min(x1, x2), max(x1, x2)
    y1, y2 = min(y1, y2), max(y1, y2)
    band(y1 + low, y1 + high, x1 + low, x2 + high)  # top
    band(y2 + low, y2 + high, x1 + low, x2 + high)  # bottom
    band(y1 + low, y2 + high, x1 + low, x1 + high)  # left
    band(y1 + low, y2 + high, x2 + low, x2 + high)  # right


def _text_location(x, y, font_scale, thickness):
    """Keras's place for a label: above the box if it fits, else inside its top left."""
    font_height = int(font_scale * 12)
    if y - 8 - 2 * font_height > 0:
        return x, y - 8
    return x + 3, y + 2 * font_height + thickness + 3


def _write(image, text, origin, color, font_scale, thickness):
    """``text`` on ``image`` (HWC uint8) with its baseline's left end at ``origin``."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise ImportError("draw_bounding_boxes: drawing class labels (`class_mapping`) needs "
                          "Pillow: pip install pillow.") from None
    channels = image.shape[-1]
    canvas = Image.fromarray(image[..., 0] if channels == 1 else image[..., :3])
    font = ImageFont.load_default(size=max(1, round(20 * font_scale)))
    ink = tuple(int(c) for c in color[:3]) if channels != 1 else int(color[0])
    ImageDraw.Draw(canvas).text(origin, text, fill=ink, font=font, anchor="ls",
                                stroke_width=max(0, thickness - 1), stroke_fill=ink)
    drawn = np.asarray(canvas)
    if channels == 1:
        image[..., 0] = drawn
    else:
        image[..., :3] = drawn


def draw_bounding_boxes(images, bounding_boxes, bounding_box_format, class_mapping=None,
                        color=(128, 128, 128), line_thickness=2, text_thickness=1,
                        font_scale=1.0, data_format=None):
    """Images (a batch, as uint8) with their ``bounding_boxes`` (``{"boxes": (batch, N,
    4), "labels": (batch, N)}``, optional ``"confidences"``) drawn in ``color``, boxes
    labelled -1 skipped; the names of ``class_mapping`` (class id to name) are written
    above the boxes (with Pillow). Float images up to 1 are scaled to [0, 255], others
    clipped to it, as Keras; the result has the input's layout.

    >>> import numpy as np
    >>> drawn = draw_bounding_boxes(np.zeros((2, 8, 8, 3)), {"boxes": np.zeros((2, 1, 4)),
    ...                             "labels": -np.ones((2, 1))}, "xyxy")
    >>> drawn.shape, drawn.dtype.name, int(drawn.max())  # -1: nothing drawn
    ((2, 8, 8, 3), 'uint8', 0)
    """
    images = _batched_images("draw_bounding_boxes", images)
    if not isinstance(bounding_boxes, dict):
        raise TypeError("draw_bounding_boxes: `bounding_boxes` should be a dict. Received: "
                        f"bounding_boxes of type {type(bounding_boxes)}")
    if "boxes" not in bounding_boxes or "labels" not in bounding_boxes:
        raise ValueError("draw_bounding_boxes: `bounding_boxes` should be a dict containing "
                         f"'boxes' and 'labels' keys. Received keys: {sorted(bounding_boxes)}")
    class_mapping = class_mapping or {}
    text_thickness = text_thickness or line_thickness
    first = (data_format or config.image_data_format()) == "channels_first"
    images = images.transpose(0, 2, 3, 1) if first else images
    height, width = images.shape[1:3]
    boxes = np.asarray(convert_format(bounding_boxes["boxes"], bounding_box_format, "xyxy",
                                      height, width))
    labels = np.asarray(bounding_boxes["labels"])
    confidences = bounding_boxes.get("confidences")
    confidences = None if confidences is None else np.asarray(confidences)
    images = _to_uint8(images).copy()
    ink = _channel_color(color, images.shape[-1])
    for i, image in enumerate(images):
        for j, box in enumerate(boxes[i]):
            label = int(labels[i][j].astype("int32"))
            if label == -1:
                continue
            x1, y1, x2, y2 = (int(v) for v in box.astype("int32"))
            _rectangle(image, x1, y1, x2, y2, ink, int(line_thickness))
            if label in class_mapping:
                text = class_mapping[label]
                if confidences is not None:
                    text = f"{text} | {confidences[i][j]:.2f}"
                _write(image, text, _text_location(x1, y1, font_scale, text_thickness), ink,
                       font_scale, int(text_thickness))
    return images.transpose(0, 3, 1, 2) if first else images


def _palette(num_classes):
    """Keras's default colours, one per class."""
    palette = np.array([2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1])
    return [((i * palette) % 255).tolist() for i in range(num_classes)]


def draw_segmentation_masks(images, segmentation_masks, num_classes=None, color_mapping=None,
                            alpha=0.8, blend=True, ignore_index=-1, data_format=None):
    """Images with each class of their integer ``segmentation_masks`` (``(batch, h, w)``
    or ``(batch, h, w, 1)``) painted in its colour (``color_mapping``: class to RGB, else
    Keras's palette); classes run from 0 to ``num_classes - 1`` (by default the masks'
    largest value, which is then not painted, as Keras). With ``blend``: ``(1 - alpha)
    image + alpha colour`` where the mask is not ``ignore_index``, as uint8; else the
    painted images as float32. The result is channels-last, as Keras's.

    >>> import numpy as np
    >>> masks = np.array([[[0, 1], [1, 2]]])[..., None]
    >>> drawn = draw_segmentation_masks(np.zeros((1, 2, 2, 3)), masks, num_classes=3,
    ...                                 color_mapping={0: (0, 0, 0), 1: (255, 0, 0),
    ...                                                2: (0, 0, 255)}, alpha=1.0)
    >>> drawn[0].tolist()
    [[[0, 0, 0], [255, 0, 0]], [[255, 0, 0], [0, 0, 255]]]
    """
    images = _batched_images("draw_segmentation_masks", images)
    masks = np.asarray(segmentation_masks)
    if (data_format or config.image_data_format()) == "channels_first":
        images = images.transpose(0, 2, 3, 1)
        masks = masks.transpose(0, 2, 3, 1) if masks.ndim == 4 else masks
    if masks.dtype.kind not in "iu":
        raise TypeError("draw_segmentation_masks: `segmentation_masks` must be in integer "
                        f"dtype. Received: segmentation_masks.dtype={masks.dtype}")
    masks = masks if masks.ndim == 4 else masks[..., None]
    images = images.astype("float32")
    if num_classes is None:
        num_classes = int(masks.max())
    colors = _palette(num_classes) if color_mapping is None \
        else [color_mapping[i] for i in range(num_classes)]
    valid = masks[..., 0] != ignore_index
    painted = images.copy()
    for index, color in enumerate(colors):
        painted[masks[..., 0] == index] = np.asarray(color, "float32")
    if not blend:
        return painted
    blended = images * (1 - alpha) + painted * alpha
    return np.where(valid[..., None], blended, images).astype("uint8")
