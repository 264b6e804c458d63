"""Keras masks on eager arrays, as Keras attaches them: a layer called on arrays outside a
model reads the masks attached to its inputs (``array._keras_mask``) and attaches its
output mask, so eager chains mask as the same model would (the masking guide)."""

import keras
import numpy as np
import pytest

import kgraph as kg

_RAW = [[711, 632, 71], [73, 8, 3215, 55, 927], [83, 91, 1, 645, 1253, 927]]


def _mask(x):
    mask = getattr(x, "_keras_mask", None)
    return None if mask is None else np.asarray(mask).tolist()


@pytest.mark.parametrize("padding", ["pre", "post"])
def test_eager_outputs_carry_keras_masks(padding):
    for K in (keras, kg):
        padded = K.utils.pad_sequences(_RAW, padding=padding)
        embedded = K.layers.Embedding(5000, 16, mask_zero=True)(padded)
        masked = K.layers.Masking()(K.ops.cast(
            K.ops.tile(K.ops.expand_dims(padded, axis=-1), [1, 1, 10]), dtype="float32"))
        dense = K.layers.Dense(3)(embedded)  # a layer that supports masking passes it on
        pooled = K.layers.GlobalAveragePooling1D()(embedded)  # consumes it
        found = (_mask(embedded), _mask(masked), _mask(dense), _mask(pooled))
        if K is keras:
            expected = found
    assert found == expected
    assert found[0] == (np.asarray(kg.utils.pad_sequences(_RAW, padding=padding)) != 0).tolist()


def test_an_eager_chain_masks_as_the_model_does():
    padded = kg.utils.pad_sequences(_RAW, padding="post")
    embedding = kg.layers.Embedding(5000, 8, mask_zero=True)
    lstm = kg.layers.LSTM(4)
    chained = np.asarray(lstm(embedding(padded)))
    tokens = kg.Input(shape=(None,), dtype="int32")
    model = kg.Model(tokens, lstm(embedding(tokens)))
    np.testing.assert_allclose(chained, np.asarray(model(padded)), rtol=1e-6, atol=1e-6)
    unmasked = np.asarray(lstm(np.asarray(embedding(padded))))  # a copy carries no mask
    assert not np.allclose(chained, unmasked)


def test_an_explicit_mask_wins_over_the_attached_one():
    padded = kg.utils.pad_sequences(_RAW, padding="post")
    embedded = kg.layers.Embedding(5000, 8, mask_zero=True)(padded)
    lstm = kg.layers.LSTM(4)
    everything = np.ones(padded.shape, bool)
    np.testing.assert_allclose(np.asarray(lstm(embedded, mask=everything)),
                               np.asarray(lstm(np.asarray(embedded))), rtol=1e-6, atol=1e-6)
