"""Conformance cases: layers with custom gradients."""

from kgraph import layers
from tests.conformance import LayerCase

CASES = [
    LayerCase("clip_gradient", lambda **kw: layers.ClipGradient(0.5, **kw), (4,)),
    LayerCase("stable_norm", lambda **kw: layers.StableNorm(**kw), (2, 3)),
]
