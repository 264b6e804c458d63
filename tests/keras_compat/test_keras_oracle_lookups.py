"""Lookup and hashing layers against Keras 3 (JAX backend, its TensorFlow-backed lookups):
the encodings' values and dtypes with a mask token (which has no index outside "int" mode),
tf-idf weights given as integers, IntegerLookup under ``jit``, Hashing of floats, and
TextVectorization's ASCII-only lowercasing and JAX outputs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kgraph as kg

keras = pytest.importorskip("keras")
pytest.importorskip("tensorflow")  # Keras's lookups run on TensorFlow


def _same(kg_out, keras_out):
    kg_out, keras_out = np.asarray(kg_out), np.asarray(keras_out)
    assert kg_out.dtype == keras_out.dtype
    np.testing.assert_array_equal(kg_out, keras_out)


@pytest.mark.parametrize("mode", ["int", "one_hot", "multi_hot", "count"])
def test_string_lookup_with_a_mask_token_encodes_as_keras(mode):
    kwargs = dict(vocabulary=["a", "b", "c"], mask_token="", output_mode=mode)
    data = np.array([["a", "", "z"], ["c", "c", ""]])
    theirs, ours = keras.layers.StringLookup(**kwargs), kg.layers.StringLookup(**kwargs)
    assert ours.get_vocabulary() == [str(v) for v in theirs.get_vocabulary()]
    assert ours.vocabulary_size() == theirs.vocabulary_size()
    _same(ours(data), theirs(data))


def test_tf_idf_weights_given_as_integers_pad_as_keras():
    kwargs = dict(vocabulary=["a", "b"], output_mode="tf_idf", idf_weights=[1, 2])
    data = np.array(["a", "c", "b"])
    theirs, ours = keras.layers.StringLookup(**kwargs), kg.layers.StringLookup(**kwargs)
    np.testing.assert_allclose(ours(data), theirs(data), rtol=1e-6)


@pytest.mark.parametrize("mode", ["int", "multi_hot", "count"])
def test_integer_lookup_under_jit_with_a_mask_token_as_keras(mode):
    kwargs = dict(vocabulary=[12, 1138, 42], mask_token=0, output_mode=mode)
    data = np.array([[12, 0, 7], [42, 42, 0]])
    theirs, ours = keras.layers.IntegerLookup(**kwargs), kg.layers.IntegerLookup(**kwargs)
    expected = np.asarray(theirs(data))
    _same(ours(data), expected)
    np.testing.assert_array_equal(jax.jit(ours)(jnp.asarray(data)), expected)


def test_integer_lookup_invert_as_keras():
    kwargs = dict(vocabulary=[10, 20, 30], invert=True, mask_token=0)
    data = np.array([0, 1, 2, 3, 4, 9])
    theirs, ours = keras.layers.IntegerLookup(**kwargs), kg.layers.IntegerLookup(**kwargs)
    _same(ours(data), theirs(data))


def test_hashing_floats_as_keras():
    data = np.array([[1.0, 2.7, -3.2], [1000.5, 0.0, 7.9]], np.float32)
    for kwargs in ({"num_bins": 7}, {"num_bins": 5, "salt": 13}, {"num_bins": 4, "mask_value": 0}):
        theirs, ours = keras.layers.Hashing(**kwargs), kg.layers.Hashing(**kwargs)
        np.testing.assert_array_equal(ours(data), theirs(data))


@pytest.mark.parametrize("mode", ["int", "multi_hot", "count"])
def test_text_vectorization_lowercases_ascii_only_and_returns_jax_arrays(mode):
    texts = ["ÉCOLE École Hello", "hello ÉCOLE, world!"]
    theirs = keras.layers.TextVectorization(output_mode=mode)
    ours = kg.layers.TextVectorization(output_mode=mode)
    theirs.adapt(texts)
    ours.adapt(texts)
    assert ours.get_vocabulary() == [str(v) for v in theirs.get_vocabulary()]
    out = ours(texts)
    assert isinstance(out, jax.Array)
    _same(out, theirs(texts))
