"""Conformance cases: the reshaping layers beyond Flatten/Reshape (see core.py for those)."""

from kgraph import layers
from tests.support.conformance import LayerCase

CASES = [
    LayerCase("reshape_permute", lambda **kw: layers.Permute((2, 1), **kw), (3, 4),
              bad_input_shape=(3, 4, 1)),
    LayerCase("reshape_permute_rank3", lambda **kw: layers.Permute((3, 1, 2), **kw), (2, 3, 4)),
    LayerCase("reshape_repeat_vector", lambda **kw: layers.RepeatVector(3, **kw), (4,),
              bad_input_shape=(4, 2)),
    LayerCase("reshape_cropping1d", lambda **kw: layers.Cropping1D((1, 2), **kw), (6, 2),
              bad_input_shape=(6,)),
    LayerCase("reshape_cropping2d", lambda **kw: layers.Cropping2D(((1, 0), (1, 2)), **kw),
              (4, 5, 2), bad_input_shape=(4, 5)),
    LayerCase("reshape_cropping2d_channels_first",
              lambda **kw: layers.Cropping2D(1, data_format="channels_first", **kw), (2, 4, 5)),
    LayerCase("reshape_cropping3d", lambda **kw: layers.Cropping3D(**kw), (3, 4, 3, 1),
              bad_input_shape=(3, 4, 1)),
    LayerCase("reshape_zero_padding1d", lambda **kw: layers.ZeroPadding1D((1, 2), **kw), (3, 2),
              bad_input_shape=(3,)),
    LayerCase("reshape_zero_padding2d", lambda **kw: layers.ZeroPadding2D(((1, 0), (2, 1)), **kw),
              (3, 3, 2), bad_input_shape=(3, 2)),
    LayerCase("reshape_zero_padding2d_channels_first",
              lambda **kw: layers.ZeroPadding2D(1, data_format="channels_first", **kw), (2, 3, 3)),
    LayerCase("reshape_zero_padding3d", lambda **kw: layers.ZeroPadding3D(1, **kw), (2, 2, 2, 1),
              bad_input_shape=(2, 2, 1)),
    LayerCase("reshape_upsampling1d", lambda **kw: layers.UpSampling1D(3, **kw), (3, 2),
              bad_input_shape=(3,)),
    LayerCase("reshape_upsampling2d", lambda **kw: layers.UpSampling2D((2, 3), **kw), (2, 3, 2),
              bad_input_shape=(2, 3)),
    LayerCase("reshape_upsampling2d_bilinear_channels_first",
              lambda **kw: layers.UpSampling2D(2, data_format="channels_first",
                                               interpolation="bilinear", **kw), (2, 3, 3)),
    LayerCase("reshape_upsampling3d", lambda **kw: layers.UpSampling3D((1, 2, 2), **kw),
              (2, 2, 2, 1), bad_input_shape=(2, 2, 1)),
]
