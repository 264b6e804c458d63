"""Conformance cases: layers with custom gradients."""

from kgraph import layers
from tests.support.conformance import LayerCase

CASES = [
    LayerCase("clip_gradient", lambda **kw: layers.ClipGradient(0.5, **kw), (4,),
              skip={"finite_differences": "its gradient is clipped on purpose, so it is not "
                                          "the derivative of its output (the identity)"}),
    LayerCase("stable_norm", lambda **kw: layers.StableNorm(**kw), (2, 3)),
]
