"""Conformance cases: regularization layers."""

from kgraph import layers
from tests.support.conformance import LayerCase

CASES = [
    LayerCase("reg_spatial_dropout1d", lambda **kw: layers.SpatialDropout1D(0.5, **kw), (5, 8),
              random=True, bad_input_shape=(8,)),
    LayerCase("reg_spatial_dropout2d", lambda **kw: layers.SpatialDropout2D(0.5, **kw),
              (3, 3, 8), random=True, bad_input_shape=(3, 8)),
    LayerCase("reg_spatial_dropout2d_channels_first",
              lambda **kw: layers.SpatialDropout2D(0.5, data_format="channels_first", seed=3,
                                                   **kw),
              (8, 3, 3), random=True),
    LayerCase("reg_spatial_dropout3d", lambda **kw: layers.SpatialDropout3D(0.5, **kw),
              (2, 2, 2, 8), random=True, bad_input_shape=(2, 2, 8)),
    LayerCase("reg_gaussian_noise", lambda **kw: layers.GaussianNoise(0.5, **kw), (4,),
              random=True),
    LayerCase("reg_gaussian_noise_seed", lambda **kw: layers.GaussianNoise(0.1, seed=7, **kw),
              (2, 3), random=True),
    LayerCase("reg_gaussian_dropout", lambda **kw: layers.GaussianDropout(0.3, **kw), (4,),
              random=True),
    LayerCase("reg_alpha_dropout", lambda **kw: layers.AlphaDropout(0.3, **kw), (6,),
              random=True),
    LayerCase("reg_alpha_dropout_noise_shape",
              lambda **kw: layers.AlphaDropout(0.5, noise_shape=[None, 1, 4], **kw), (3, 4),
              random=True),
    LayerCase("reg_activity_regularization",
              lambda **kw: layers.ActivityRegularization(l1=0.1, l2=0.01, **kw), (3,)),
]
