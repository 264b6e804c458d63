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


def _gathered(labels, scores, axis):
    """``-log p[label]`` by gathering (indexing's meaning: negative labels from the end)."""
    log_prob = jax.nn.log_softmax(scores, axis=axis)
    labels = np.where(labels < 0, labels + scores.shape[axis], labels)
    return -np.squeeze(np.take_along_axis(np.asarray(log_prob), np.expand_dims(labels, axis),
                                          axis), axis)


def test_sparse_crossentropy_selects_as_a_gather_would_and_its_gradient_scatters_nothing():
    rng = np.random.default_rng(1)
    for case in range(20):  # random ranks, class axes, class counts and labels from the end
        shape = tuple(int(n) for n in rng.integers(1, 6, size=rng.integers(1, 4)))
        axis = int(rng.integers(0, len(shape)))
        classes = shape[axis]
        scores = (rng.normal(size=shape) * 4).astype(np.float32)
        labels = rng.integers(-classes, classes, size=shape[:axis] + shape[axis + 1:])
        ours = ops.sparse_categorical_crossentropy(labels, scores, from_logits=True, axis=axis)
        _same(ours, _gathered(labels, scores, axis))

        def total(scores, loss):
            return loss(labels, scores).sum()
        gradient = jax.grad(total)(scores, lambda y, s: ops.sparse_categorical_crossentropy(
            y, s, from_logits=True, axis=axis))
        by_gather = jax.grad(total)(scores, lambda y, s: -jax.numpy.squeeze(
            jax.numpy.take_along_axis(jax.nn.log_softmax(s, axis=axis), jax.numpy.expand_dims(
                jax.numpy.where(y < 0, y + classes, y), axis), axis=axis), axis))
        _same(gradient, by_gather)
    jaxpr = str(jax.make_jaxpr(jax.grad(lambda s: ops.sparse_categorical_crossentropy(
        LABELS, s, from_logits=True).sum()))(LOGITS))
    assert "scatter" not in jaxpr and "gather" not in jaxpr


def test_a_label_outside_the_classes_gives_nan():
    value = ops.sparse_categorical_crossentropy(np.array([0, 7, -8, -7]), LOGITS[:4],
                                                from_logits=True)
    assert np.isnan(np.asarray(value)).tolist() == [False, True, True, False]
