"""``MaxNumBoundingBoxes``: Keras's layer giving every image the same number of bounding
boxes, for batching (in training and in inference alike).

>>> import numpy as np
>>> layer = MaxNumBoundingBoxes(max_number=3, bounding_box_format="xyxy")
>>> out = layer({"images": np.zeros((1, 8, 8, 3)),
...              "bounding_boxes": {"boxes": np.array([[[1.0, 2, 3, 4]]]),
...                                 "labels": np.array([[7]])}})
>>> out["bounding_boxes"]["boxes"].tolist(), out["bounding_boxes"]["labels"].tolist()
([[[1.0, 2.0, 3.0, 4.0], [-1.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, -1.0]]], [[7, -1, -1]])
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph.base.layer import Layer
from kgraph.layers.augmentation_boxes import _BoxesMixin
from kgraph.ops import conv_utils as cu

__all__ = ["MaxNumBoundingBoxes"]


def _pad_or_truncate(values, number, fill_value):
    """``values`` with axis 1 cut or padded (with ``fill_value``) to ``number``."""
    values = values[:, :number]
    pads = [(0, 0)] * values.ndim
    pads[1] = (0, number - values.shape[1])
    return jnp.pad(values, pads, constant_values=jnp.asarray(fill_value, values.dtype))


class MaxNumBoundingBoxes(_BoxesMixin, Layer):
    """Pad (with ``fill_value``, boxes and labels alike) or truncate the ``"bounding_boxes"``
    of a dict input (``{"images": ..., "bounding_boxes": {"boxes", "labels"}, ...}``) to
    ``max_number`` boxes per image; everything else passes through unchanged. The layer
    takes ``bounding_box_format`` (required with boxes, as Keras) and ``data_format`` as
    keyword arguments."""

    def __init__(self, max_number, fill_value=-1, **kwargs):
        data_format = kwargs.pop("data_format", None)
        super().__init__(**kwargs)
        self.max_number = int(max_number)
        if self.max_number < 1:
            raise ValueError(f'Layer "{self.name}" (MaxNumBoundingBoxes): `max_number` must be '
                             f"a positive integer. Received: max_number={max_number!r}")
        self.fill_value = int(fill_value)
        self.data_format = cu.standardize_data_format(data_format)

    def call(self, inputs, training=True):
        if not isinstance(inputs, dict):
            return jnp.asarray(inputs)
        if "images" not in inputs:
            raise ValueError(f'Layer "{self.name}" (MaxNumBoundingBoxes): a dict input needs '
                             f"an 'images' entry, received keys {sorted(inputs)}.")
        out = {**inputs, "images": jnp.asarray(inputs["images"])}
        if jnp.ndim(out["images"]) not in (3, 4):
            raise ValueError(f'Layer "{self.name}" (MaxNumBoundingBoxes) expects images of '
                             f"rank 3 or 4, received shape {tuple(out['images'].shape)}.")
        if "bounding_boxes" in inputs:
            boxes = self._dense_boxes(inputs["bounding_boxes"])
            out["bounding_boxes"] = self._apply_to_boxes(boxes, out["images"].shape, None)
        return out

    def _augment_boxes(self, bounding_boxes, images_shape, key):
        return {**bounding_boxes,
                "boxes": _pad_or_truncate(bounding_boxes["boxes"], self.max_number,
                                          self.fill_value),
                "labels": _pad_or_truncate(bounding_boxes["labels"], self.max_number,
                                           self.fill_value)}

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format,
                "max_number": self.max_number, "fill_value": self.fill_value}
