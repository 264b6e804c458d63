"""Conformance cases: preprocessing layers."""

import numpy as np

from kgraph import layers
from tests.support.conformance import LayerCase


ADAPTED = ("adapted statistics are not config; a clone cannot be called (to build it and set "
           "the weights) before it is adapted")


def _adapted(layer, shape=(4,)):
    layer.adapt(np.random.default_rng(0).normal(3.0, 2.0, size=(20, *shape)))
    return layer


CASES = [
    LayerCase("prep_rescaling", lambda **kw: layers.Rescaling(1 / 255, offset=-0.5, **kw),
              (3,)),
    LayerCase("prep_rescaling_int_input", lambda **kw: layers.Rescaling([1.0, 2.0], **kw), (2,),
              input_dtype="int32", input_range=(0, 255)),
    LayerCase("prep_normalization_adapted", lambda **kw: _adapted(layers.Normalization(**kw)),
              (4,), bad_input_shape=(4, 1), skip={"config_round_trip": ADAPTED}),
    LayerCase("prep_normalization_axis_none",
              lambda **kw: _adapted(layers.Normalization(axis=None, **kw), (2, 3)), (2, 3),
              skip={"config_round_trip": ADAPTED}),
    LayerCase("prep_normalization_given",
              lambda **kw: layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 0.25], **kw),
              (3, 2)),
    LayerCase("prep_normalization_invert",
              lambda **kw: layers.Normalization(axis=1, mean=2.0, variance=9.0, invert=True,
                                                **kw), (3,)),
    LayerCase("prep_resizing_bilinear", lambda **kw: layers.Resizing(4, 6, **kw), (6, 5, 2),
              bad_input_shape=(6,)),
    LayerCase("prep_resizing_nearest_crop",
              lambda **kw: layers.Resizing(3, 3, interpolation="nearest",
                                           crop_to_aspect_ratio=True, **kw), (4, 6, 1)),
    LayerCase("prep_resizing_pad_channels_first",
              lambda **kw: layers.Resizing(4, 4, pad_to_aspect_ratio=True,
                                           data_format="channels_first", **kw), (2, 3, 5)),
    LayerCase("prep_resizing_int_input", lambda **kw: layers.Resizing(2, 2, **kw), (4, 4, 1),
              input_dtype="uint8", input_range=(0, 255)),
    LayerCase("prep_center_crop", lambda **kw: layers.CenterCrop(2, 3, **kw), (5, 5, 2),
              bad_input_shape=(5,)),
    LayerCase("prep_center_crop_upscale",
              lambda **kw: layers.CenterCrop(4, 6, data_format="channels_first", **kw),
              (1, 3, 3)),
]
