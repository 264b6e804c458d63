"""Bounding-box conversions and geometry (``keras.utils.bounding_boxes``): formats, clipping,
affine transforms, crops, pads and anchor deltas, on arrays (pure ``jax.numpy``, usable
under ``jax.jit`` with the formats static).

Formats (case-insensitive), each box the last axis of 4 numbers:
``"xyxy"`` (left, top, right, bottom), ``"yxyx"``, ``"xywh"`` (left, top, width, height),
``"center_xywh"``, ``"center_yxhw"``, and the relative ``"rel_xyxy"``, ``"rel_yxyx"``,
``"rel_xywh"``, ``"rel_center_xywh"`` (fractions of the image's width and height).

>>> import numpy as np
>>> boxes = np.array([[10.0, 20.0, 30.0, 40.0]])
>>> convert_format(boxes, "xyxy", "center_xywh").tolist()
[[20.0, 30.0, 20.0, 20.0]]
>>> convert_format(boxes, "xyxy", "rel_xyxy", height=100, width=50).tolist()
[[0.20000000298023224, 0.20000000298023224, 0.6000000238418579, 0.4000000059604645]]
"""

from __future__ import annotations

import math

import jax.numpy as jnp

from kgraph import config

__all__ = ["SUPPORTED_FORMATS", "affine_transform", "check_format", "clip_to_image_size",
           "convert_format", "crop", "decode_deltas_to_boxes", "encode_box_to_deltas", "pad"]

SUPPORTED_FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy",
                     "rel_yxyx", "rel_xywh", "rel_center_xywh")


def _parts(boxes):
    return jnp.split(boxes, 4, axis=-1)


def _join(*parts):
    return jnp.concatenate(parts, axis=-1)


# Each format to and from xyxy; relative formats scale by the image's width and height.
def _from_yxyx(b, h, w):
    y1, x1, y2, x2 = _parts(b)
    return _join(x1, y1, x2, y2)


def _from_xywh(b, h, w):
    x1, y1, bw, bh = _parts(b)
    return _join(x1, y1, x1 + bw, y1 + bh)


def _from_center_xywh(b, h, w):
    cx, cy, bw, bh = _parts(b)
    return _join(cx - bw / 2.0, cy - bh / 2.0, cx + bw / 2.0, cy + bh / 2.0)


def _from_center_yxhw(b, h, w):
    cy, cx, bh, bw = _parts(b)
    return _join(cx - bw / 2.0, cy - bh / 2.0, cx + bw / 2.0, cy + bh / 2.0)


def _from_rel_xyxy(b, h, w):
    x1, y1, x2, y2 = _parts(b)
    return _join(x1 * w, y1 * h, x2 * w, y2 * h)


def _from_rel_yxyx(b, h, w):
    y1, x1, y2, x2 = _parts(b)
    return _join(x1 * w, y1 * h, x2 * w, y2 * h)


def _from_rel_xywh(b, h, w):
    x1, y1, bw, bh = _parts(b)
    return _join(x1 * w, y1 * h, (x1 + bw) * w, (y1 + bh) * h)


def _from_rel_center_xywh(b, h, w):
    cx, cy, bw, bh = _parts(b)
    return _join((cx - bw / 2.0) * w, (cy - bh / 2.0) * h, (cx + bw / 2.0) * w,
                 (cy + bh / 2.0) * h)


def _to_yxyx(b, h, w):
    x1, y1, x2, y2 = _parts(b)
    return _join(y1, x1, y2, x2)


def _to_xywh(b, h, w):
    x1, y1, x2, y2 = _parts(b)
    return _join(x1, y1, x2 - x1, y2 - y1)


def _to_center_xywh(b, h, w):
    x1, y1, x2, y2 = _parts(b)
    return _join(x1 + (x2 - x1) / 2.0, y1 + (y2 - y1) / 2.0, x2 - x1, y2 - y1)


def _to_center_yxhw(b, h, w):
    x1, y1, x2, y2 = _parts(b)
    return _join(y1 + (y2 - y1) / 2.0, x1 + (x2 - x1) / 2.0, y2 - y1, x2 - x1)


def _to_rel_xyxy(b, h, w):
    x1, y1, x2, y2 = _parts(b)
    return _join(x1 / w, y1 / h, x2 / w, y2 / h)


def _to_rel_yxyx(b, h, w):
    x1, y1, x2, y2 = _parts(b)
    return _join(y1 / h, x1 / w, y2 / h, x2 / w)


def _to_rel_xywh(b, h, w):
    x1, y1, x2, y2 = _parts(b)
    return _join(x1 / w, y1 / h, (x2 - x1) / w, (y2 - y1) / h)


def _to_rel_center_xywh(b, h, w):
    x1, y1, x2, y2 = _parts(b)
    return _join((x1 + (x2 - x1) / 2.0) / w, (y1 + (y2 - y1) / 2.0) / h, (x2 - x1) / w,
                 (y2 - y1) / h)


def _same(b, h, w):
    return b


_TO_XYXY = {"xyxy": _same, "yxyx": _from_yxyx, "xywh": _from_xywh,
            "center_xywh": _from_center_xywh, "center_yxhw": _from_center_yxhw,
            "rel_xyxy": _from_rel_xyxy, "rel_yxyx": _from_rel_yxyx,
            "rel_xywh": _from_rel_xywh, "rel_center_xywh": _from_rel_center_xywh}
_FROM_XYXY = {"xyxy": _same, "yxyx": _to_yxyx, "xywh": _to_xywh,
              "center_xywh": _to_center_xywh, "center_yxhw": _to_center_yxhw,
              "rel_xyxy": _to_rel_xyxy, "rel_yxyx": _to_rel_yxyx, "rel_xywh": _to_rel_xywh,
              "rel_center_xywh": _to_rel_center_xywh}


def check_format(owner, bounding_box_format):
    """``bounding_box_format`` lower-cased, or a ValueError naming ``owner``."""
    if not isinstance(bounding_box_format, str) \
            or bounding_box_format.lower() not in SUPPORTED_FORMATS:
        raise ValueError(f"{owner}: unknown bounding box format {bounding_box_format!r}; "
                         f"expected one of {SUPPORTED_FORMATS}.")
    return bounding_box_format.lower()


def convert_format(boxes, source, target, height=None, width=None, dtype="float32"):
    """Boxes converted from the format ``source`` to ``target``, cast to ``dtype``.

    ``boxes`` is an array whose last axis has 4 numbers, or a dict with ``"boxes"`` (a new
    dict is returned, its ``"boxes"`` converted). ``height`` and ``width`` (numbers or
    arrays broadcasting against the boxes' ``(..., 1)`` columns) are needed when either
    format is relative.

    >>> convert_format([[10, 20, 30, 40]], "xyxy", "xywh").tolist()
    [[10.0, 20.0, 20.0, 20.0]]
    >>> convert_format({"boxes": [[0.5, 0.5, 1.0, 1.0]], "labels": [3]}, "rel_center_xywh",
    ...                "xyxy", height=10, width=20)["boxes"].tolist()
    [[0.0, 0.0, 20.0, 10.0]]
    """
    if isinstance(boxes, dict):
        return {**boxes, "boxes": convert_format(boxes["boxes"], source, target, height,
                                                 width, dtype)}
    boxes = jnp.asarray(boxes)
    if boxes.ndim == 0 or boxes.shape[-1] != 4:
        raise ValueError("convert_format: `boxes` must be a tensor with the last dimension of "
                         f"4. Received: boxes.shape={tuple(boxes.shape)}")
    if not isinstance(source, str) or not isinstance(target, str) \
            or source.lower() not in SUPPORTED_FORMATS \
            or target.lower() not in SUPPORTED_FORMATS:
        raise ValueError(f"convert_format: invalid source or target format (received "
                         f"source={source!r}, target={target!r}). Supported formats: "
                         f"{SUPPORTED_FORMATS}")
    source, target = source.lower(), target.lower()
    if (source.startswith("rel_") or target.startswith("rel_")) \
            and (height is None or width is None):
        raise ValueError("convert_format() must receive `height` and `width` transforming "
                         f"between relative and absolute formats. Received source={source!r}, "
                         f"target={target!r}, height={height}, width={width}.")
    boxes = boxes.astype(dtype)
    if source == target:
        return boxes
    height = None if height is None else jnp.asarray(height).astype(dtype)
    width = None if width is None else jnp.asarray(width).astype(dtype)
    if source.startswith("rel_") and target.startswith("rel_"):
        source, target = source[4:], target[4:]
    return _FROM_XYXY[target](_TO_XYXY[source](boxes, height, width), height, width)


def _area(boxes):
    x1, y1, x2, y2 = _parts(boxes)
    return (x2 - x1) * (y2 - y1)


def clip_to_image_size(bounding_boxes, height=None, width=None, bounding_box_format="xyxy"):
    """``bounding_boxes`` (a dict: ``"boxes"`` ``(N, 4)`` or ``(batch, N, 4)``, optional
    ``"labels"``) with the boxes clipped to the image (``[0, width] x [0, height]`` in
    ``"xyxy"``, ``[0, 1]`` in ``"rel_xyxy"``, the two formats supported) and the labels of
    boxes left without area set to -1. A new dict is returned.

    >>> out = clip_to_image_size({"boxes": [[-10.0, -20, 150, 160], [50, 40, 50, 80]],
    ...                           "labels": [0, 1]}, height=100, width=120)
    >>> out["boxes"].tolist(), out["labels"].tolist()
    ([[0.0, 0.0, 120.0, 100.0], [50.0, 40.0, 50.0, 80.0]], [0, -1])
    """
    if bounding_box_format not in ("xyxy", "rel_xyxy"):
        raise NotImplementedError("clip_to_image_size: only the 'xyxy' and 'rel_xyxy' formats "
                                  f"are supported. Received: {bounding_box_format!r}")
    if not isinstance(bounding_boxes, dict) or "boxes" not in bounding_boxes:
        raise ValueError("clip_to_image_size: expected a dict with 'boxes' (and optionally "
                         f"'labels'). Received: {type(bounding_boxes).__name__}")
    if bounding_box_format == "xyxy" and (height is None or width is None):
        raise ValueError("clip_to_image_size: `height` and `width` must be set if "
                         f"`format='xyxy'`. Received height={height}, width={width}.")
    boxes = jnp.asarray(bounding_boxes["boxes"])
    if bounding_box_format == "xyxy":
        high_x, high_y = jnp.asarray(width).astype(boxes.dtype), \
            jnp.asarray(height).astype(boxes.dtype)
    else:
        high_x = high_y = 1.0
    x1, y1, x2, y2 = _parts(boxes)
    boxes = _join(jnp.clip(x1, 0, high_x), jnp.clip(y1, 0, high_y), jnp.clip(x2, 0, high_x),
                  jnp.clip(y2, 0, high_y))
    result = {**bounding_boxes, "boxes": boxes}
    if bounding_boxes.get("labels") is not None:
        labels = jnp.asarray(bounding_boxes["labels"])
        areas = _area(boxes)[..., 0]
        areas = areas.reshape(areas.shape + (1,) * (labels.ndim - areas.ndim))  # one-hot too
        result["labels"] = jnp.where(areas > 0, labels, -1)
    return result


def _inverse_affine_matrices(center_x, center_y, angle, translate_x, translate_y, scale,
                             shear_x, shear_y, height, width):
    """Keras's ``(batch, 3, 3)`` matrices moving points as images are moved by the affine
    transform of these parameters (degrees; translations and centres as fractions)."""
    angle = jnp.asarray(angle)
    dtype = angle.dtype if jnp.issubdtype(angle.dtype, jnp.floating) else jnp.float32
    angle = angle.astype(dtype)
    cx, cy = center_x * (width - 1), center_y * (height - 1)
    rot = -angle * (1.0 / 180.0 * math.pi)
    tx, ty = -translate_x * (width - 1), -translate_y * (height - 1)
    sx, sy = -shear_x * (1.0 / 180.0 * math.pi), -shear_y * (1.0 / 180.0 * math.pi)
    cos_sy, tan_sx = jnp.cos(sy), jnp.tan(sx)
    a = jnp.cos(rot - sy) / cos_sy
    b = a * tan_sx + jnp.sin(rot)
    c = -jnp.sin(rot - sy) / cos_sy
    d = jnp.cos(rot) - c * tan_sx
    a0, a1, b0, b1 = d * scale, -b * scale, -c * scale, a * scale
    a2 = cx - a0 * (cx + tx) - a1 * (cy + ty)
    b2 = cy - b0 * (cx + tx) - b1 * (cy + ty)
    zeros, ones = jnp.zeros_like(angle), jnp.ones_like(angle)
    rows = [jnp.broadcast_to(v, angle.shape).astype(dtype)
            for v in (a0, a1, a2, b0, b1, b2, zeros, zeros, ones)]
    return jnp.stack(rows, axis=-1).reshape(angle.shape + (3, 3))


def affine_transform(boxes, angle, translate_x, translate_y, scale, shear_x, shear_y, height,
                     width, center_x=None, center_y=None, bounding_box_format="xyxy"):
    """``"xyxy"`` boxes (``(N, 4)`` or ``(batch, N, 4)``) moved as images are by the affine
    transform of one ``angle`` (degrees), ``translate_x``/``translate_y`` (fractions of the
    width/height), ``scale`` and ``shear_x``/``shear_y`` (degrees) per image (arrays of
    shape ``(batch,)``), about the centre ``(center_x, center_y)`` (fractions, 0.5 by
    default): the enclosing boxes of the moved corners. Only ``"xyxy"`` is supported.

    >>> import numpy as np
    >>> zeros, ones = np.zeros(1, "float32"), np.ones(1, "float32")
    >>> moved = affine_transform(np.array([[[0.0, 0, 2, 1]]]), zeros, ones * 0.5, zeros,
    ...                          ones, zeros, zeros, height=11, width=11)
    >>> np.round(moved, 4).tolist()
    [[[5.0, 0.0, 7.0, 1.0]]]
    """
    if bounding_box_format != "xyxy":
        raise NotImplementedError("affine_transform: only the 'xyxy' bounding box format is "
                                  f"supported. Received: {bounding_box_format!r}")
    center_x = 0.5 if center_x is None else center_x
    center_y = 0.5 if center_y is None else center_y
    matrix = _inverse_affine_matrices(center_x, center_y, angle, translate_x, translate_y,
                                      scale, shear_x, shear_y, height, width)
    boxes = jnp.asarray(boxes).astype(matrix.dtype)
    single = boxes.ndim == 2
    if single:
        boxes = boxes[None]
        matrix = matrix.reshape(-1, 3, 3)[:1]
    if boxes.ndim != 3 or boxes.shape[-1] != 4:
        raise ValueError("affine_transform: `boxes` must have shape (N, 4) or (batch, N, 4). "
                         f"Received: boxes.shape={tuple(jnp.shape(boxes))}")
    matrix = jnp.broadcast_to(matrix.reshape(-1, 3, 3), (boxes.shape[0], 3, 3))
    x1, y1, x2, y2 = (boxes[..., i] for i in range(4))
    corners = jnp.stack([jnp.stack([x1, y1], -1), jnp.stack([x2, y1], -1),
                         jnp.stack([x2, y2], -1), jnp.stack([x1, y2], -1)], axis=2)
    corners = jnp.concatenate([corners, jnp.ones(corners.shape[:-1] + (1,), corners.dtype)],
                              axis=-1)
    moved = jnp.einsum("bnkj,bij->bnki", corners, matrix[:, :2, :])
    out = jnp.concatenate([moved.min(axis=2), moved.max(axis=2)], axis=-1)
    return out[0] if single else out


def _check_xyxy(name, bounding_box_format):
    if bounding_box_format != "xyxy":
        raise NotImplementedError(f"{name}: only the 'xyxy' bounding box format is "
                                  f"supported. Received: {bounding_box_format!r}")


def crop(boxes, top, left, height, width, bounding_box_format="xyxy"):
    """``"xyxy"`` boxes in the window ``height x width`` at ``(top, left)``: shifted by the
    window's corner and clipped to it.

    >>> crop([[10.0, 20, 50, 60], [70, 80, 100, 120]], top=10, left=20, height=40,
    ...      width=30).tolist()
    [[0.0, 10.0, 30.0, 40.0], [30.0, 40.0, 30.0, 40.0]]
    """
    _check_xyxy("crop", bounding_box_format)
    x1, y1, x2, y2 = _parts(jnp.asarray(boxes))
    return _join(jnp.clip(x1 - left, 0, width), jnp.clip(y1 - top, 0, height),
                 jnp.clip(x2 - left, 0, width), jnp.clip(y2 - top, 0, height))


def pad(boxes, top, left, height=None, width=None, bounding_box_format="xyxy"):
    """``"xyxy"`` boxes of an image padded by ``top`` rows and ``left`` columns: shifted by
    them (``height`` and ``width`` are not used, as in Keras).

    >>> pad([[1.0, 2, 3, 4]], top=10, left=20).tolist()
    [[21.0, 12.0, 23.0, 14.0]]
    """
    _check_xyxy("pad", bounding_box_format)
    x1, y1, x2, y2 = _parts(jnp.asarray(boxes))
    return _join(x1 + left, y1 + top, x2 + left, y2 + top)


def _variance(name, variance):
    if variance is None:
        return None
    variance = jnp.asarray(variance, jnp.float32)
    if variance.ndim == 0 or variance.shape[-1] != 4:
        raise ValueError(f"{name}: `variance` must be length 4, got {variance}")
    return variance


def _image_size(image_shape):
    if image_shape is None:
        return None, None
    height, width, _ = image_shape
    return height, width


def encode_box_to_deltas(anchors, boxes, anchor_format, box_format,
                         encoding_format="center_yxhw", variance=None, image_shape=None):
    """The deltas of ``boxes`` (``(N, 4)`` or ``(batch, N, 4)``) from ``anchors``
    (``(N, 4)``), in ``encoding_format`` (``"center_yxhw"`` or ``"center_xywh"``): centre
    offsets in anchor sizes and log size ratios, divided by ``variance`` if given.
    ``image_shape`` ``(height, width, channels)`` is needed for relative formats.

    >>> encode_box_to_deltas([[0.0, 0, 10, 10]], [[5.0, 0, 15, 10]], "xyxy", "xyxy",
    ...                      encoding_format="center_xywh").tolist()
    [[0.5, 0.0, 0.0, 0.0]]
    """
    variance = _variance("encode_box_to_deltas", variance)
    if encoding_format not in ("center_xywh", "center_yxhw"):
        raise ValueError("encode_box_to_deltas: `encoding_format` should be one of "
                         f"'center_xywh' or 'center_yxhw', got {encoding_format}")
    height, width = _image_size(image_shape)
    anchors = convert_format(anchors, anchor_format, encoding_format, height, width)
    boxes = convert_format(boxes, box_format, encoding_format, height, width)
    anchor_sizes = jnp.maximum(anchors[..., 2:], config.epsilon())
    box_sizes = jnp.maximum(boxes[..., 2:], config.epsilon())
    deltas = jnp.concatenate([(boxes[..., :2] - anchors[..., :2]) / anchor_sizes,
                              jnp.log(box_sizes / anchor_sizes)], axis=-1)
    return deltas if variance is None else deltas / variance


def decode_deltas_to_boxes(anchors, boxes_delta, anchor_format, box_format,
                           encoded_format="center_yxhw", variance=None, image_shape=None):
    """Boxes in ``box_format`` from their deltas to ``anchors`` (the inverse of
    ``encode_box_to_deltas``); ``anchors`` and ``boxes_delta`` may be dicts of levels
    (the result is then a dict of the same keys).

    >>> decode_deltas_to_boxes([[0.0, 0, 10, 10]], [[0.5, 0.0, 0.0, 0.0]], "xyxy", "xyxy",
    ...                        encoded_format="center_xywh").tolist()
    [[5.0, 0.0, 15.0, 10.0]]
    """
    variance = _variance("decode_deltas_to_boxes", variance)
    if encoded_format not in ("center_xywh", "center_yxhw"):
        raise ValueError("decode_deltas_to_boxes: `encoded_format` should be 'center_xywh' or "
                         f"'center_yxhw', but got '{encoded_format}'.")
    height, width = _image_size(image_shape)

    def decode(anchor, delta):
        anchor = convert_format(anchor, anchor_format, encoded_format, height, width)
        delta = jnp.asarray(delta)
        if variance is not None:
            delta = delta * variance
        box = jnp.concatenate([delta[..., :2] * anchor[..., 2:] + anchor[..., :2],
                               jnp.exp(delta[..., 2:]) * anchor[..., 2:]], axis=-1)
        return convert_format(box, encoded_format, box_format, height, width)

    if isinstance(anchors, dict) and isinstance(boxes_delta, dict):
        return {level: decode(anchor, boxes_delta[level]) for level, anchor in anchors.items()}
    return decode(anchors, boxes_delta)
