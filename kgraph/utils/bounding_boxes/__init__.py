"""``keras.utils.bounding_boxes``: converting, clipping, moving and comparing bounding boxes
(pure ``jax.numpy``; see ``converters`` for the formats).

>>> import kgraph as kg
>>> kg.utils.bounding_boxes.convert_format([[10, 20, 30, 40]], "xyxy", "yxyx").tolist()
[[20.0, 10.0, 40.0, 30.0]]
"""

from kgraph.utils.bounding_boxes.converters import (affine_transform, clip_to_image_size,
                                                    convert_format, crop,
                                                    decode_deltas_to_boxes,
                                                    encode_box_to_deltas, pad)
from kgraph.utils.bounding_boxes.iou import compute_ciou, compute_iou

__all__ = ["affine_transform", "clip_to_image_size", "compute_ciou", "compute_iou",
           "convert_format", "crop", "decode_deltas_to_boxes", "encode_box_to_deltas", "pad"]
