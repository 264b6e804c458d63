"""The ``bounding_boxes`` entry of the image layers' dict inputs: checked and made dense
(``{"boxes": float32 (..., N, 4), "labels": (..., N)}``), ragged lists padded.

>>> dense = densify_bounding_boxes({"boxes": [[[0, 0, 1, 1]], [[0, 0, 2, 2], [1, 1, 3, 3]]],
...                                 "labels": [[1], [2, 3]]})
>>> dense["boxes"].shape, dense["labels"].tolist()
((2, 2, 4), [[1, -1], [2, 3]])
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

__all__ = ["densify_bounding_boxes", "validate_bounding_boxes"]


def validate_bounding_boxes(bounding_boxes, owner="bounding boxes"):
    """Raise a ValueError naming ``owner`` unless ``bounding_boxes`` is a dict with
    ``"boxes"`` and ``"labels"`` of matching ranks (or lists of the same length)."""
    if not isinstance(bounding_boxes, dict) or "boxes" not in bounding_boxes \
            or "labels" not in bounding_boxes:
        raise ValueError(f"{owner}: expected `bounding_boxes` to be a dict with keys 'boxes' "
                         f"and 'labels'. Received: {bounding_boxes!r}")
    boxes, labels = bounding_boxes["boxes"], bounding_boxes["labels"]
    if isinstance(boxes, (list, tuple)):
        if not isinstance(labels, (list, tuple)) or len(boxes) != len(labels):
            raise ValueError(f"{owner}: if `bounding_boxes['boxes']` is a list, "
                             "`bounding_boxes['labels']` must be a list of the same length. "
                             f"Received: boxes of length {len(boxes)}, labels={labels!r}")
        return
    box_rank, label_rank = np.ndim(boxes), np.ndim(labels)
    if box_rank not in (2, 3):
        raise ValueError(f"{owner}: expected `bounding_boxes['boxes']` to have rank 2 or 3, "
                         "with shape (num_boxes, 4) or (batch_size, num_boxes, 4). Received: "
                         f"bounding_boxes['boxes'].shape={tuple(np.shape(boxes))}")
    if label_rank not in (box_rank - 1, box_rank):
        raise ValueError(f"{owner}: found bounding_boxes['boxes'].shape="
                         f"{tuple(np.shape(boxes))} and expected bounding_boxes['labels'] to "
                         f"have rank {box_rank - 1} or {box_rank}, but received "
                         f"bounding_boxes['labels'].shape={tuple(np.shape(labels))}")


def _is_ragged_batch(boxes):
    return (len(boxes) > 0 and isinstance(boxes[0], (list, tuple)) and len(boxes[0]) > 0
            and isinstance(boxes[0][0], (list, tuple)))


def densify_bounding_boxes(bounding_boxes, owner="bounding boxes", boxes_default_value=0,
                           labels_default_value=-1):
    """``bounding_boxes`` (validated) with float32 ``"boxes"`` and array ``"labels"``; a
    batch given as lists of different lengths is padded to the longest with
    ``boxes_default_value`` boxes and ``labels_default_value`` labels. A new dict."""
    validate_bounding_boxes(bounding_boxes, owner)
    boxes, labels = bounding_boxes["boxes"], bounding_boxes["labels"]
    if isinstance(boxes, (list, tuple)) and _is_ragged_batch(boxes):
        longest = max(len(b) for b in boxes)
        boxes = [list(b) + [[boxes_default_value] * 4] * (longest - len(b)) for b in boxes]
        labels = [list(lb) + [labels_default_value] * (longest - len(lb)) for lb in labels]
    return {**bounding_boxes, "boxes": jnp.asarray(boxes, jnp.float32),
            "labels": jnp.asarray(labels)}
