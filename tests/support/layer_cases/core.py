"""Conformance cases: the core layers."""

import jax

from kgraph import layers
from tests.support.conformance import LayerCase


def cube(x):
    return x ** 3


NOT_NAMED = "the activation is a Python function, which a config can only name if registered"


CASES = [
    LayerCase("dense_relu", lambda **kw: layers.Dense(4, activation="relu", **kw), (3,),
              bad_input_shape=()),
    LayerCase("dense_callable", lambda **kw: layers.Dense(4, activation=jax.nn.softplus, **kw),
              (3,), skip={"config_round_trip": NOT_NAMED}),
    LayerCase("dense_custom_callable", lambda **kw: layers.Dense(2, activation=cube, **kw), (3,),
              skip={"config_round_trip": NOT_NAMED}),
    LayerCase("dense_no_bias", lambda **kw: layers.Dense(4, use_bias=False, **kw), (3,)),
    LayerCase("dense_rank3", lambda **kw: layers.Dense(2, **kw), (2, 3)),
    LayerCase("activation_name", lambda **kw: layers.Activation("tanh", **kw), (3,)),
    LayerCase("activation_callable", lambda **kw: layers.Activation(cube, **kw), (3,),
              skip={"config_round_trip": NOT_NAMED}),
    LayerCase("dropout", lambda **kw: layers.Dropout(0.5, **kw), (6,), random=True),
    LayerCase("batch_norm", lambda **kw: layers.BatchNormalization(momentum=0.9, **kw), (3,),
              training_changes_output=True, bad_input_shape=(3, 2), rtol=1e-4, atol=1e-4),
    LayerCase("batch_norm_axis1", lambda **kw: layers.BatchNormalization(axis=1, **kw), (2, 3),
              training_changes_output=True, rtol=1e-4, atol=1e-4),
    LayerCase("add", lambda **kw: layers.Add(**kw), [(3,), (3,)]),
    LayerCase("add_three", lambda **kw: layers.Add(**kw), [(3,), (3,), (3,)]),
    LayerCase("concatenate", lambda **kw: layers.Concatenate(**kw), [(2,), (3,)]),
    LayerCase("concatenate_axis1", lambda **kw: layers.Concatenate(axis=1, **kw),
              [(2, 3), (1, 3)]),
    LayerCase("flatten", lambda **kw: layers.Flatten(**kw), (2, 3)),
    LayerCase("reshape_minus_one", lambda **kw: layers.Reshape((-1, 2), **kw), (6,)),
    LayerCase("reshape", lambda **kw: layers.Reshape((3, 2), **kw), (2, 3)),
]
