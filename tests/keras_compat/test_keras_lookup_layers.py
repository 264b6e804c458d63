"""Lookup and encoding layers. Keras's versions need TensorFlow (absent here), so the
expected values are those of Keras's documented examples, computed by hand."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kgraph as kg

L = kg.layers


def test_string_lookup_documented_examples():
    data = np.array([["a", "c", "d"], ["d", "z", "b"]])
    layer = L.StringLookup(vocabulary=["a", "b", "c", "d"])
    assert np.asarray(layer(data)).tolist() == [[1, 3, 4], [4, 0, 2]]
    adapted = L.StringLookup()
    adapted.adapt(data)
    assert adapted.get_vocabulary() == ["[UNK]", "d", "z", "c", "b", "a"]
    masked = L.StringLookup(vocabulary=["a", "b"], mask_token="")
    assert np.asarray(masked(np.array(["a", "", "q"]))).tolist() == [2, 0, 1]
    inverse = L.StringLookup(vocabulary=["a", "b", "c", "d"], invert=True)
    assert inverse(np.array([[1, 3, 4], [4, 0, 2]])).tolist() == [["a", "c", "d"],
                                                                 ["d", "[UNK]", "b"]]
    multi = L.StringLookup(vocabulary=["a", "b", "c", "d"], output_mode="multi_hot")
    assert np.asarray(multi(data)).tolist() == [[0, 1, 0, 1, 1], [1, 0, 1, 0, 1]]
    with pytest.raises(TypeError, match="stay on the host"):
        layer(kg.Input(shape=(3,), dtype="int32"))


def test_integer_lookup_documented_examples_in_graph_and_under_jit():
    data = np.array([12, 1138, 42, 42, 1138, 1138])
    layer = L.IntegerLookup()
    layer.adapt(data)
    assert layer.get_vocabulary() == [-1, 1138, 42, 12]
    query = np.array([[12, 1138, 42], [42, 1000, 36]])
    assert np.asarray(layer(query)).tolist() == [[3, 1, 2], [2, 0, 0]]
    assert np.asarray(jax.jit(layer)(jnp.asarray(query))).tolist() == [[3, 1, 2], [2, 0, 0]]
    x = kg.Input(shape=(3,), dtype="int32")
    model = kg.Model(x, L.IntegerLookup(vocabulary=[12, 1138, 42], output_mode="count")(x))
    assert np.asarray(model(query)).tolist() == [[0, 1, 1, 1], [2, 0, 0, 1]]
    rebuilt = kg.models.model_from_json(model.to_json())
    np.testing.assert_array_equal(rebuilt(query), model(query))


def test_category_encoding_discretization_hashing():
    enc = L.CategoryEncoding(num_tokens=4, output_mode="one_hot")
    assert np.asarray(enc(jnp.array([3, 2, 0, 1]))).tolist() == np.eye(4)[[3, 2, 0, 1]].tolist()
    counts = L.CategoryEncoding(num_tokens=4, output_mode="count")
    assert np.asarray(counts(jnp.array([[0, 1], [0, 0], [1, 2], [3, 1]]))).tolist() == [
        [1, 1, 0, 0], [2, 0, 0, 0], [0, 1, 1, 0], [0, 1, 0, 1]]
    disc = L.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
    assert np.asarray(disc(jnp.array([[-1.5, 1.0, 3.4, 0.5], [0.0, 3.0, 1.3, 0.0]]))).tolist() \
        == [[0, 2, 3, 1], [1, 3, 2, 1]]
    adapted = L.Discretization(num_bins=4)
    adapted.adapt(np.arange(100.0))
    assert len(adapted.bin_boundaries) == 3
    # Keras's documented examples (FarmHash buckets)
    hashing = L.Hashing(num_bins=3)
    assert np.asarray(hashing(np.array([["A"], ["B"], ["C"], ["D"], ["E"]]))).tolist() == [
        [1], [0], [1], [1], [2]]
    masked = L.Hashing(num_bins=3, mask_value="")
    assert np.asarray(masked(np.array([["A"], ["B"], [""], ["C"], ["D"]]))).tolist() == [
        [1], [1], [0], [2], [2]]
    ints = np.array([[1], [2], [3]])
    eager = np.asarray(L.Hashing(num_bins=3)(ints))
    x = kg.Input(shape=(1,), dtype="int32")
    model = kg.Model(x, L.Hashing(num_bins=3)(x))
    np.testing.assert_array_equal(jax.jit(model)(jnp.asarray(ints)), eager)


def test_text_vectorization_modes_and_config():
    texts = np.array(["The cat sat.", "the DOG sat", "a cat"])
    layer = L.TextVectorization(max_tokens=5, output_sequence_length=4)
    layer.adapt(texts)
    # counts 2, 2, 2 (ties: token descending, as Keras), then "dog" and "a" cut
    assert layer.get_vocabulary() == ["", "[UNK]", "the", "sat", "cat"]
    assert np.asarray(layer(np.array(["the cat", "dog"]))).tolist() == [[2, 4, 0, 0],
                                                                         [1, 0, 0, 0]]
    bigrams = L.TextVectorization(ngrams=2, output_mode="multi_hot")
    bigrams.adapt(texts)
    assert "the cat" in bigrams.get_vocabulary()
    out = np.asarray(bigrams(np.array(["the cat"])))
    assert out.shape == (1, bigrams.vocabulary_size()) and out[0, 0] == 0
    clone = L.TextVectorization.from_config(layer.get_config())
    np.testing.assert_array_equal(clone(texts), layer(texts))


def test_bytes_are_text_in_their_encoding_and_sparse_outputs_are_refused():
    import numpy as np

    lookup = kg.layers.StringLookup(vocabulary=["ab", "café"])
    assert lookup(np.array([b"ab", "café".encode(), b"zz"])).tolist() == [1, 2, 0]
    latin = kg.layers.StringLookup(vocabulary=["café"], encoding="latin-1")
    assert latin(np.array(["café".encode("latin-1")])).tolist() == [1]
    vectorize = kg.layers.TextVectorization()
    vectorize.adapt(np.array([b"Hello world"]))
    assert vectorize(np.array([b"hello"])).tolist() == vectorize(np.array(["hello"])).tolist()
    for make in (lambda: kg.layers.Hashing(3, output_mode="one_hot", sparse=True),
                 lambda: kg.layers.Discretization(bin_boundaries=[0.0], sparse=True),
                 lambda: kg.layers.TextVectorization(sparse=True),
                 lambda: kg.ops.bincount(np.array([0, 1]), sparse=True)):
        with pytest.raises(ValueError, match="sparse=True is not supported"):
            make()
