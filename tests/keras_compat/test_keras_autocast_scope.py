"""``keras.src.backend.AutocastScope`` against Keras's: which weights it casts when read
(autocasting float weights; not the normalizations' weights, nor integer ones), nested
scopes, and its refusal of a non-float dtype."""

import keras
import numpy as np
import pytest
from keras.src.backend import AutocastScope as KerasAutocastScope

import kgraph as kg
from kgraph.src.backend import AutocastScope

LAYERS = [("Dense", (2, 3), dict(units=4)), ("BatchNormalization", (2, 3), {}),
          ("LayerNormalization", (2, 3), {}), ("GroupNormalization", (2, 4), dict(groups=2)),
          ("Embedding", (2, 3), dict(input_dim=5, output_dim=2))]


def _read(layer, scope):
    with scope("float16"):
        return [(w.name, str(np.asarray(w.value).dtype)) for w in layer.weights]


@pytest.mark.parametrize("name, shape, kwargs", LAYERS)
def test_weights_read_in_the_scope_have_kerass_dtypes(name, shape, kwargs):
    theirs, ours = getattr(keras.layers, name)(**kwargs), getattr(kg.layers, name)(**kwargs)
    theirs.build(shape)
    ours.build(shape)
    assert _read(ours, AutocastScope) == _read(theirs, KerasAutocastScope)


def test_scopes_nest_and_restore():
    weight = kg.Variable(np.ones(2, np.float32))
    counter = kg.Variable(np.ones(2, np.int32))
    with AutocastScope("bfloat16"):
        with AutocastScope("float16"):
            assert weight.value.dtype == "float16" and counter.value.dtype == "int32"
        assert weight.value.dtype == "bfloat16"
    assert weight.value.dtype == "float32"


def test_a_large_value_assigned_in_the_scope_is_kept():
    layer = kg.layers.LayerNormalization()
    layer.build((1, 3))
    with AutocastScope("float16"):
        layer.gamma.assign(np.full(3, 70000.0, np.float32))
        np.testing.assert_array_equal(layer.gamma.value, np.full(3, 70000.0))


def test_a_non_float_dtype_is_refused():
    with pytest.raises(ValueError, match="floating-point target dtype"):
        AutocastScope("int32")
