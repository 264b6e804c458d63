"""Global pooling after a Keras mask (``Embedding(mask_zero=True)``, ``Masking``) against
Keras 3: ``GlobalMaxPooling1D/2D/3D`` and ``GlobalAveragePooling2D/3D`` ignore the mask (max
or mean over every position) with Keras's warning that it is dropped;
``GlobalAveragePooling1D`` averages the unmasked steps (NaN where none is). Compared in eager
calls, functional models (predict) and fit, weights copied from Keras."""

import warnings

import keras
import numpy as np
import pytest

import kgraph as kg

TOKENS = np.array([[3, 1, 0, 0, 0], [2, 4, 4, 0, 0], [1, 2, 3, 4, 1]], np.int32)
DROPPED = "does not support masking and will therefore destroy the mask information"


def _embedded_pooling(lib, pool):
    tokens = lib.Input(shape=(5,), dtype="int32")
    embedded = lib.layers.Embedding(6, 4, mask_zero=True)(tokens)
    pooled = getattr(lib.layers, pool)()(embedded)
    return lib.Model(tokens, lib.layers.Dense(2)(pooled))


def _pair(pool):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _embedded_pooling(keras, pool)
        ours = _embedded_pooling(kg, pool)
    ours.set_weights(theirs.get_weights())
    return ours, theirs


def _warning_messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [str(w.message) for w in caught if DROPPED in str(w.message)]


@pytest.mark.parametrize("pool", ["GlobalMaxPooling1D", "GlobalAveragePooling1D"])
def test_pooling_after_embedding_mask_predicts_as_keras(pool):
    ours, theirs = _pair(pool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = theirs.predict(TOKENS, verbose=0)
        got = ours.predict(TOKENS, verbose=0)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(ours(TOKENS)), np.asarray(theirs(TOKENS)),
                                   rtol=1e-5, atol=1e-6)


def test_global_max_pooling1d_eager_ignores_the_mask_and_warns_as_keras():
    embed_k = keras.layers.Embedding(6, 4, mask_zero=True)
    embed_g = kg.layers.Embedding(6, 4, mask_zero=True)
    embed_k.build((None, 5))
    embed_g.build((None, 5))
    embed_g.set_weights(embed_k.get_weights())
    expected, keras_warned = _warning_messages(
        lambda: np.asarray(keras.layers.GlobalMaxPooling1D(name="gmp")(embed_k(TOKENS))))
    got, our_warned = _warning_messages(
        lambda: np.asarray(kg.layers.GlobalMaxPooling1D(name="gmp")(embed_g(TOKENS))))
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert keras_warned and our_warned and our_warned[0] == keras_warned[0]
    # with Masking: the masked steps (all zeros) count in the max, as Keras
    x = np.random.default_rng(0).normal(size=(2, 5, 3)).astype("float32") - 3.0
    x[:, 3:] = 0.0
    expected, _ = _warning_messages(
        lambda: np.asarray(keras.layers.GlobalMaxPooling1D()(keras.layers.Masking()(x))))
    got, _ = _warning_messages(
        lambda: np.asarray(kg.layers.GlobalMaxPooling1D()(kg.layers.Masking()(x))))
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got, np.zeros((2, 3)))


def test_global_max_pooling1d_fits_as_keras():
    ours, theirs = _pair("GlobalMaxPooling1D")
    y = np.random.default_rng(1).normal(size=(3, 2)).astype("float32")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model in (ours, theirs):
            model.compile(optimizer="sgd", loss="mse")
        history_k = theirs.fit(TOKENS, y, batch_size=3, epochs=3, verbose=0, shuffle=False)
        history_g = ours.fit(TOKENS, y, batch_size=3, epochs=3, verbose=0, shuffle=False)
    np.testing.assert_allclose(history_g.history["loss"], history_k.history["loss"], rtol=1e-5)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_global_average_pooling1d_of_an_all_masked_sequence_is_nan_as_keras():
    tokens = np.array([[3, 1, 0, 0, 0], [0, 0, 0, 0, 0]], np.int32)
    ours, theirs = _pair("GlobalAveragePooling1D")
    expected = theirs.predict(tokens, verbose=0)
    got = ours.predict(tokens, verbose=0)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)  # NaN where Keras's is
    assert np.isnan(got[1]).all() and not np.isnan(got[0]).any()
    mask = np.array([[True, False, True], [False, False, False]])
    x = np.random.default_rng(2).normal(size=(2, 3, 4)).astype("float32")
    np.testing.assert_allclose(np.asarray(kg.layers.GlobalAveragePooling1D()(x, mask=mask)),
                               np.asarray(keras.layers.GlobalAveragePooling1D()(x, mask=mask)),
                               rtol=1e-6)


@pytest.mark.parametrize("pool,shape", [
    ("GlobalMaxPooling2D", (3, 4, 5)), ("GlobalMaxPooling3D", (2, 3, 2, 5)),
    ("GlobalAveragePooling2D", (3, 4, 5)), ("GlobalAveragePooling3D", (2, 3, 2, 5))])
def test_2d_3d_global_pooling_after_masking_pool_every_position_as_keras(pool, shape):
    x = np.random.default_rng(3).normal(size=(2, *shape)).astype("float32")
    x[0, 1] = 0.0  # masked positions (every feature equal to Masking's value)

    def model(lib):
        inputs = lib.Input(shape=shape)
        return lib.Model(inputs, getattr(lib.layers, pool)(name="pool")(
            lib.layers.Masking()(inputs)))

    (theirs, keras_warned) = _warning_messages(lambda: model(keras))
    (ours, our_warned) = _warning_messages(lambda: model(kg))
    assert keras_warned and our_warned and our_warned[0] == keras_warned[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(ours.predict(x, verbose=0), theirs.predict(x, verbose=0),
                                   rtol=1e-5, atol=1e-6)
