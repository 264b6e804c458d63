"""Losses and metrics by Keras name, checked against direct NumPy formulas.

``loss.call`` gives per-sample values; calling a loss or metric gives the batch mean.
"""

import jax.numpy as jnp
import numpy as np
import pytest

from kgraph.losses import losses
from kgraph.metrics import metrics
from tests.support.helpers import fixed_normal, read_only

LOGITS = fixed_normal(0, 5, 4)
LABELS = read_only(np.array([0, 3, 1, 1, 2], np.int32))


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_mse_is_mean_over_last_axis(rng):
    y, p = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)).astype(np.float32)
    expected = ((p - y) ** 2).mean(-1)
    np.testing.assert_allclose(losses.as_loss("mse").call(y, jnp.asarray(p)), expected, rtol=1e-5)
    np.testing.assert_allclose(losses.as_loss("mse")(y, p), expected.mean(), rtol=1e-5)


def test_sparse_categorical_crossentropy_logits_and_probabilities():
    expected = -np.log(_softmax(LOGITS)[np.arange(5), LABELS])
    from_logits = losses.SparseCategoricalCrossentropy(from_logits=True).call(LABELS, LOGITS)
    from_probs = losses.as_loss("sparse_categorical_crossentropy").call(LABELS, _softmax(LOGITS))
    np.testing.assert_allclose(from_logits, expected, rtol=1e-5)
    np.testing.assert_allclose(from_probs, expected, rtol=1e-5)


def test_categorical_crossentropy_matches_sparse_on_one_hot():
    one_hot = np.eye(4, dtype=np.float32)[LABELS]
    expected = -np.log(_softmax(LOGITS)[np.arange(5), LABELS])
    np.testing.assert_allclose(
        losses.CategoricalCrossentropy(from_logits=True).call(one_hot, LOGITS), expected,
        rtol=1e-5)
    np.testing.assert_allclose(losses.as_loss("categorical_crossentropy")(one_hot, _softmax(LOGITS)),
                               expected.mean(), rtol=1e-5)


def test_binary_crossentropy_logits_and_probabilities(rng):
    z = rng.normal(size=(6, 1)).astype(np.float32)
    y = np.array([[0], [1], [1], [0], [1], [0]], np.float32)
    p = 1 / (1 + np.exp(-z))
    expected = (-(y * np.log(p) + (1 - y) * np.log(1 - p))).mean(-1)
    np.testing.assert_allclose(losses.BinaryCrossentropy(from_logits=True).call(y, z), expected,
                               rtol=1e-5)
    np.testing.assert_allclose(losses.as_loss("binary_crossentropy")(y, p), expected.mean(),
                               rtol=1e-5)


def test_accuracy_resolves_against_the_loss():
    assert isinstance(metrics.get("accuracy", losses.as_loss("sparse_categorical_crossentropy")),
                      metrics.SparseCategoricalAccuracy)
    assert isinstance(metrics.get("accuracy", losses.as_loss("categorical_crossentropy")),
                      metrics.CategoricalAccuracy)
    binary = metrics.get("accuracy", losses.BinaryCrossentropy(from_logits=True))
    assert isinstance(binary, metrics.BinaryAccuracy) and binary.threshold == 0.0
    # Without an informative loss, Keras's shape rule: (batch,) labels -> sparse accuracy.
    accuracy = metrics.get("accuracy", losses.as_loss("mse"))
    np.testing.assert_allclose(accuracy(LABELS, LOGITS), (LOGITS.argmax(-1) == LABELS).mean())


def test_unknown_names_raise():
    with pytest.raises(ValueError, match="Unknown loss 'foo'"):
        losses.as_loss("foo")
    with pytest.raises(ValueError, match="Unknown metric 'foo'"):
        metrics.get("foo")
