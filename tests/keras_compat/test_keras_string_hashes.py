"""Keras's salted string hashes (SipHash-2-4, TensorFlow's ``to_hash_bucket_strong``) and the
lookups' ``oov_method`` / ``salt``. Keras's own layers need TensorFlow for strings, so the
oracle here is Keras's documented outputs (its docstring examples) and SipHash's reference
vectors."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import kgraph as kg
from kgraph.layers.string_hashes import salt_key, siphash64

pytest.importorskip("farmhash", reason="pyfarmhash is installed by the test extra")


def test_siphash_matches_the_reference_vectors():
    key = (0x0706050403020100, 0x0F0E0D0C0B0A0908)  # the key bytes 00..0f
    assert siphash64(key, b"") == 0x726FDB47DD0E0E31
    assert siphash64(key, bytes(range(8))) == 0x93F5F5799A932462
    assert siphash64(key, bytes(range(15))) == 0xA129CA6149BE45E5


@pytest.mark.parametrize("salt, buckets", [([133, 137], [1, 2, 1, 0, 2]),
                                           (133, [0, 0, 2, 1, 0])])
def test_salted_hashing_gives_kerass_documented_buckets(salt, buckets):
    layer = kg.layers.Hashing(num_bins=3, salt=salt)
    out = np.asarray(layer([["A"], ["B"], ["C"], ["D"], ["E"]]))
    assert out.ravel().tolist() == buckets
    assert layer.get_config()["salt"] == (salt if isinstance(salt, list) else [salt, salt])
    with pytest.raises(ValueError, match="tuple of size 2 integers, or a single integer"):
        kg.layers.Hashing(num_bins=3, salt="pepper")


def test_integer_lookup_farmhash_oov_gives_kerass_documented_slots():
    vocab, oov = [10, 20, 30], np.array([100, 300, 700, 1100, 1700, 2000])
    floormod = kg.layers.IntegerLookup(vocabulary=vocab, num_oov_indices=4)
    farmhash = kg.layers.IntegerLookup(vocabulary=vocab, num_oov_indices=4,
                                       oov_method="farmhash")
    assert np.asarray(floormod(oov)).tolist() == [0, 0, 0, 0, 0, 0]
    assert np.asarray(farmhash(oov)).tolist() == [3, 3, 2, 2, 0, 1]
    # inside a jitted program the slots come from the host hash too
    assert np.asarray(jax.jit(farmhash)(oov)).tolist() == [3, 3, 2, 2, 0, 1]
    assert farmhash.get_config()["oov_method"] == "farmhash"
    again = kg.layers.IntegerLookup.from_config(farmhash.get_config())
    assert np.asarray(again(oov)).tolist() == [3, 3, 2, 2, 0, 1]
    with pytest.raises(ValueError, match="`salt` can only be used when `oov_method='farmhash'`"):
        kg.layers.IntegerLookup(vocabulary=vocab, num_oov_indices=2, salt=3)
    with pytest.raises(ValueError, match="`oov_method` must be 'floormod' or 'farmhash'"):
        kg.layers.IntegerLookup(num_oov_indices=2, oov_method="modulo")


def test_string_lookup_salt_hashes_oov_tokens_with_siphash():
    vocab = ["a", "b", "c", "d"]
    data = np.array([["a", "c", "d"], ["m", "z", "b"]])
    plain = kg.layers.StringLookup(vocabulary=vocab, num_oov_indices=2)
    assert np.asarray(plain(data)).tolist() == [[2, 4, 5], [0, 1, 3]]  # Keras's example
    salted = kg.layers.StringLookup(vocabulary=vocab, num_oov_indices=2, salt=[7, 9])
    expected = [siphash64([7, 9], token.encode()) % 2 for token in ("m", "z")]
    assert np.asarray(salted(data))[1, :2].tolist() == expected
    assert salted.get_config()["salt"] == [7, 9] and salt_key(7, "x") == [7, 7]
    again = kg.layers.StringLookup.from_config(salted.get_config())
    np.testing.assert_array_equal(np.asarray(again(data)), np.asarray(salted(data)))
