"""Conformance cases: normalization layers."""

import warnings

from kgraph import layers
from tests.support.conformance import LayerCase


def _quiet(cls, **kwargs):
    """``cls(**kwargs)`` without its deprecation warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(**kwargs)


CASES = [
    LayerCase("norm_batch_norm_renorm",
              lambda **kw: layers.BatchNormalization(renorm=True, momentum=0.9,
                                                     renorm_clipping={"rmax": 2.0}, **kw),
              (4, 3), training_changes_output=True, bad_input_shape=(3,), rtol=1e-4, atol=1e-4),
    LayerCase("norm_batch_norm_axis_list",
              lambda **kw: layers.BatchNormalization(axis=[1, 3], momentum=0.5, **kw),
              (2, 3, 4), training_changes_output=True, rtol=1e-4, atol=1e-4),
    LayerCase("norm_batch_norm_no_scale_center",
              lambda **kw: layers.BatchNormalization(center=False, scale=False,
                                                     gamma_regularizer="l2", **kw),
              (3,), training_changes_output=True, rtol=1e-4, atol=1e-4),
    LayerCase("norm_layer_norm", lambda **kw: layers.LayerNormalization(**kw), (5,),
              bad_input_shape=(), rtol=1e-4, atol=1e-4),
    LayerCase("norm_layer_norm_axes",
              lambda **kw: layers.LayerNormalization(axis=(1, 2), epsilon=1e-5,
                                                     beta_initializer="random_normal",
                                                     gamma_regularizer="l2",
                                                     beta_constraint="max_norm", **kw),
              (2, 3, 4), bad_input_shape=(3,), rtol=1e-4, atol=1e-4),
    LayerCase("norm_layer_norm_rms_scaling",
              lambda **kw: _quiet(layers.LayerNormalization, rms_scaling=True, **kw), (2, 4),
              rtol=1e-4, atol=1e-4),
    LayerCase("norm_layer_norm_no_center",
              lambda **kw: layers.LayerNormalization(center=False, axis=1, **kw), (4, 2),
              rtol=1e-4, atol=1e-4),
    LayerCase("norm_group_norm", lambda **kw: layers.GroupNormalization(groups=2, **kw), (3, 4),
              bad_input_shape=(4,), rtol=1e-4, atol=1e-4),
    LayerCase("norm_group_norm_instance_axis1",
              lambda **kw: layers.GroupNormalization(groups=-1, axis=1, **kw), (3, 2, 2),
              rtol=1e-4, atol=1e-4),
    LayerCase("norm_unit_norm", lambda **kw: layers.UnitNormalization(**kw), (4,)),
    LayerCase("norm_unit_norm_axes", lambda **kw: layers.UnitNormalization(axis=[1, 2], **kw),
              (2, 3), bad_input_shape=(3,)),
    LayerCase("norm_rms_norm", lambda **kw: layers.RMSNormalization(**kw), (2, 4),
              bad_input_shape=(), rtol=1e-4, atol=1e-4),
    LayerCase("norm_rms_norm_axis1", lambda **kw: layers.RMSNormalization(axis=1, **kw), (3, 2),
              rtol=1e-4, atol=1e-4),
]
