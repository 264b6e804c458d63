"""Conformance cases: activation layers."""

from kgraph import layers
from tests.support.conformance import LayerCase

CASES = [
    LayerCase("act_relu", lambda **kw: layers.ReLU(**kw), (4,)),
    LayerCase("act_relu_args",
              lambda **kw: layers.ReLU(max_value=2.0, negative_slope=0.1, threshold=0.5, **kw),
              (2, 3)),
    LayerCase("act_relu6", lambda **kw: layers.ReLU(max_value=6.0, **kw), (4,)),
    LayerCase("act_leaky_relu", lambda **kw: layers.LeakyReLU(**kw), (4,)),
    LayerCase("act_prelu", lambda **kw: layers.PReLU(alpha_initializer="random_uniform", **kw),
              (4,), bad_input_shape=(4, 1)),
    LayerCase("act_prelu_shared",
              lambda **kw: layers.PReLU(alpha_initializer=0.25, shared_axes=[1, 2],
                                        alpha_regularizer="l2", alpha_constraint="non_neg",
                                        **kw),
              (2, 3, 4), bad_input_shape=(2, 3)),
    LayerCase("act_elu", lambda **kw: layers.ELU(alpha=0.5, **kw), (4,)),
    LayerCase("act_softmax", lambda **kw: layers.Softmax(**kw), (5,)),
    LayerCase("act_softmax_axes", lambda **kw: layers.Softmax(axis=[1, 2], **kw), (2, 3)),
]
