"""Conformance cases: merge layers (Add/Concatenate are in core.py)."""

from kgraph import layers
from tests.support.conformance import LayerCase

CASES = [
    LayerCase("merge_subtract", lambda **kw: layers.Subtract(**kw), [(3,), (3,)]),
    LayerCase("merge_subtract_broadcast", lambda **kw: layers.Subtract(**kw), [(2, 3), (1, 3)]),
    LayerCase("merge_multiply", lambda **kw: layers.Multiply(**kw), [(3,), (3,), (3,)]),
    LayerCase("merge_average", lambda **kw: layers.Average(**kw), [(2, 3), (2, 3)]),
    LayerCase("merge_average_int", lambda **kw: layers.Average(**kw), [(3,), (3,)],
              input_dtype="int32"),
    LayerCase("merge_maximum", lambda **kw: layers.Maximum(**kw), [(4,), (4,)]),
    LayerCase("merge_minimum", lambda **kw: layers.Minimum(**kw), [(4,), (4,), (4,)]),
    LayerCase("merge_add_rank_mismatch", lambda **kw: layers.Add(**kw), [(2, 3), (3,)]),
    LayerCase("merge_concatenate_axis_minus2", lambda **kw: layers.Concatenate(axis=-2, **kw),
              [(2, 3), (4, 3)]),
    LayerCase("merge_dot_rank2", lambda **kw: layers.Dot(axes=1, **kw), [(4,), (4,)],
              bad_input_shape=[(), ()]),
    LayerCase("merge_dot_normalize", lambda **kw: layers.Dot(axes=-1, normalize=True, **kw),
              [(2, 4), (3, 4)]),
    LayerCase("merge_dot_axes_pair", lambda **kw: layers.Dot(axes=(1, 2), **kw),
              [(3, 5), (2, 3)]),
    LayerCase("merge_dot_mixed_rank", lambda **kw: layers.Dot(axes=(1, 1), **kw),
              [(3,), (3, 2)]),
]
