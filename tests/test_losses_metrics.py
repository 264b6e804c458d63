"""Losses and metrics by Keras name, checked against direct NumPy formulas."""

import jax.numpy as jnp
import numpy as np
import pytest

from runtime import losses, metrics

RNG = np.random.default_rng(0)
LOGITS = RNG.normal(size=(5, 4)).astype(np.float32)
LABELS = np.array([0, 3, 1, 1, 2], np.int32)


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_mse_is_mean_over_last_axis():
    y, p = RNG.normal(size=(5, 3)), RNG.normal(size=(5, 3)).astype(np.float32)
    np.testing.assert_allclose(losses.get("mse")(y, jnp.asarray(p)), ((p - y) ** 2).mean(-1),
                               rtol=1e-5)


def test_sparse_categorical_crossentropy_logits_and_probabilities():
    expected = -np.log(_softmax(LOGITS)[np.arange(5), LABELS])
    from_logits = losses.SparseCategoricalCrossentropy(from_logits=True)(LABELS, LOGITS)
    from_probs = losses.get("sparse_categorical_crossentropy")(LABELS, _softmax(LOGITS))
    np.testing.assert_allclose(from_logits, expected, rtol=1e-5)
    np.testing.assert_allclose(from_probs, expected, rtol=1e-5)


def test_categorical_crossentropy_matches_sparse_on_one_hot():
    one_hot = np.eye(4, dtype=np.float32)[LABELS]
    expected = -np.log(_softmax(LOGITS)[np.arange(5), LABELS])
    np.testing.assert_allclose(losses.CategoricalCrossentropy(from_logits=True)(one_hot, LOGITS),
                               expected, rtol=1e-5)
    np.testing.assert_allclose(losses.get("categorical_crossentropy")(one_hot, _softmax(LOGITS)),
                               expected, rtol=1e-5)


def test_binary_crossentropy_logits_and_probabilities():
    z = RNG.normal(size=(6, 1)).astype(np.float32)
    y = np.array([[0], [1], [1], [0], [1], [0]], np.float32)
    p = 1 / (1 + np.exp(-z))
    expected = (-(y * np.log(p) + (1 - y) * np.log(1 - p))).mean(-1)
    np.testing.assert_allclose(losses.BinaryCrossentropy(from_logits=True)(y, z), expected,
                               rtol=1e-5)
    np.testing.assert_allclose(losses.get("binary_crossentropy")(y, p), expected, rtol=1e-5)


def test_accuracy_resolves_against_the_loss():
    assert isinstance(metrics.get("accuracy", losses.get("mse")), metrics.SparseCategoricalAccuracy)
    assert isinstance(metrics.get("accuracy", losses.get("categorical_crossentropy")),
                      metrics.CategoricalAccuracy)
    binary = metrics.get("accuracy", losses.BinaryCrossentropy(from_logits=True))
    assert isinstance(binary, metrics.BinaryAccuracy) and binary.threshold == 0.0
    hits = metrics.get("accuracy")(LABELS, LOGITS)
    np.testing.assert_array_equal(hits, (LOGITS.argmax(-1) == LABELS).astype(np.float32))


def test_unknown_names_raise():
    with pytest.raises(ValueError, match="Unknown loss 'foo'"):
        losses.get("foo")
    with pytest.raises(ValueError, match="Unknown metric 'foo'"):
        metrics.get("foo")
