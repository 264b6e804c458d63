"""One crossentropy: runtime's losses compute with ``kgraph.ops``'s functions, and both
give Keras's numbers to the bit (Keras's losses also call its ops)."""


import jax
import keras
import numpy as np

from kgraph import ops
from kgraph.losses import functions as loss_functions

_RNG = np.random.default_rng(0)
LOGITS = (_RNG.normal(size=(64, 7)) * 5).astype(np.float32)
LABELS = _RNG.integers(0, 7, size=64)
PROBS = np.asarray(jax.nn.softmax(LOGITS))


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_sparse_crossentropy_is_bit_identical_across_runtime_ops_and_keras():
    for scores, from_logits in ((LOGITS, True), (PROBS, False)):
        ours = loss_functions.sparse_categorical_crossentropy(LABELS, scores, from_logits)
        _same(ours, ops.sparse_categorical_crossentropy(LABELS, scores, from_logits))
        _same(ours, keras.losses.sparse_categorical_crossentropy(LABELS, scores, from_logits))


def test_categorical_and_binary_crossentropy_match_ops_and_keras():
    one_hot = np.eye(7, dtype=np.float32)[LABELS]
    for scores, from_logits in ((LOGITS, True), (PROBS, False)):
        ours = loss_functions.categorical_crossentropy(one_hot, scores, from_logits)
        _same(ours, ops.categorical_crossentropy(one_hot, scores, from_logits))
        _same(ours, keras.losses.categorical_crossentropy(one_hot, scores, from_logits))
    targets = (PROBS > 0.2).astype(np.float32)
    _same(loss_functions.binary_crossentropy(targets, LOGITS, from_logits=True),
          jax.numpy.mean(ops.binary_crossentropy(targets, LOGITS, from_logits=True), -1))


def test_sparse_crossentropy_ignores_a_non_finite_logit_of_another_class():
    logits = np.array([[0.0, -np.inf, 1.0]], np.float32)
    value = loss_functions.sparse_categorical_crossentropy([0], logits, from_logits=True)
    assert np.isfinite(np.asarray(value)).all()
