"""``ops.rearrange`` against Keras's on arrays, and as graph nodes (a reshape, a transpose,
a reshape) on KerasTensors with an unknown batch size."""

import keras
import numpy as np
import pytest

import kgraph as kg

_IMAGES = np.random.default_rng(0).normal(size=(4, 6, 8, 3)).astype("float32")
_PATTERNS = [
    ("b h w c -> b c h w", {}), ("b h w c -> (b h) w c", {}), ("b h w c -> h (b w) c", {}),
    ("b h w c -> b (c h w)", {}), ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 2}),
    ("b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 4}), ("b h w c -> b h w c", {}),
    ("b h w c->c b h w", {}),
]


@pytest.mark.parametrize("pattern,lengths", _PATTERNS, ids=[p for p, _ in _PATTERNS])
def test_rearrange_equals_keras(pattern, lengths):
    ours = kg.ops.rearrange(_IMAGES, pattern, **lengths)
    theirs = keras.ops.rearrange(_IMAGES, pattern, **lengths)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


@pytest.mark.parametrize("pattern,lengths", _PATTERNS[:6], ids=[p for p, _ in _PATTERNS[:6]])
def test_rearrange_in_a_graph_with_an_unknown_batch(pattern, lengths):
    x = kg.Input(shape=_IMAGES.shape[1:])
    y = kg.ops.rearrange(x, pattern, **lengths)
    if pattern.startswith("b h w c -> b"):
        expected = np.asarray(keras.ops.rearrange(_IMAGES, pattern, **lengths))
        assert y.shape == (None, *expected.shape[1:])
    np.testing.assert_array_equal(np.asarray(kg.Model(x, y)(_IMAGES)),
                                  np.asarray(keras.ops.rearrange(_IMAGES, pattern, **lengths)))


def test_bad_patterns_say_what_is_wrong():
    with pytest.raises(ValueError, match="one '->'"):
        kg.ops.rearrange(_IMAGES, "b h w c")
    with pytest.raises(ValueError, match="names 3 axes"):
        kg.ops.rearrange(_IMAGES, "b h w -> b w h")
    with pytest.raises(ValueError, match="same axes"):
        kg.ops.rearrange(_IMAGES, "b h w c -> b h w")
    with pytest.raises(ValueError, match="at most one may be inferred"):
        kg.ops.rearrange(_IMAGES, "b (h1 h) w c -> b h1 h w c")
