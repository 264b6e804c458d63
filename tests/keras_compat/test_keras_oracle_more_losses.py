"""Keras 3's focal/generalized categorical crossentropy, Dice, Tversky, Circle and CTC
losses: the same numbers as Keras (functions and classes), by name, with configs."""


import jax
import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(0)
_probs = _rng.random((4, 5)).astype("float32")
_probs /= _probs.sum(-1, keepdims=True)
_onehot = np.eye(5, dtype="float32")[_rng.integers(0, 5, 4)]
_labels = _rng.integers(0, 5, (4,))
_mask_true = (_rng.random((2, 6, 6, 1)) > 0.5).astype("float32")
_mask_pred = _rng.random((2, 6, 6, 1)).astype("float32")
_emb = _rng.normal(size=(8, 4)).astype("float32")
_emb /= np.linalg.norm(_emb, axis=1, keepdims=True)
_groups = _rng.integers(0, 3, (8,))
_seq = np.array([[1, 2, 2, 0], [3, 1, 0, 0]])
_logits = _rng.normal(size=(2, 7, 5)).astype("float32")

CASES = [
    ("CategoricalFocalCrossentropy", {"label_smoothing": 0.1}, _onehot, _probs),
    ("CategoricalFocalCrossentropy", {"from_logits": True, "gamma": 1.0}, _onehot, _probs),
    ("CategoricalGeneralizedCrossEntropy", {"q": 0.3}, _labels, _probs),
    ("Dice", {}, _mask_true, _mask_pred),
    ("Dice", {"axis": (1, 2, 3)}, _mask_true, _mask_pred),
    ("Tversky", {"alpha": 0.3, "beta": 0.7, "axis": (1, 2)}, _mask_true, _mask_pred),
    ("Circle", {}, _groups, _emb),
    ("Circle", {"gamma": 10.0, "margin": 0.2, "remove_diagonal": False}, _groups, _emb),
    ("CTC", {}, _seq, _logits),
]


@pytest.mark.parametrize("name, kwargs, y_true, y_pred", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_loss_class_matches_keras(name, kwargs, y_true, y_pred):
    ours = getattr(kg.losses, name)(**kwargs)
    theirs = getattr(keras.losses, name)(**kwargs)
    np.testing.assert_allclose(ours(y_true, y_pred), np.asarray(theirs(y_true, y_pred)),
                               rtol=1e-5, atol=1e-6)
    weights = np.linspace(0.5, 1.5, len(y_true)).astype("float32")
    if np.ndim(ours.call_with_mask(y_true, y_pred)[0]) >= 1:  # per-sample values: weigh
        np.testing.assert_allclose(ours(y_true, y_pred, sample_weight=weights),
                                   np.asarray(theirs(y_true, y_pred, sample_weight=weights)),
                                   rtol=1e-5, atol=1e-6)
    again = type(ours).from_config(ours.get_config())
    assert again.get_config() == ours.get_config()


@pytest.mark.parametrize("name, y_true, y_pred", [
    ("categorical_focal_crossentropy", _onehot, _probs), ("dice", _mask_true, _mask_pred),
    ("tversky", _mask_true, _mask_pred), ("circle", _groups, _emb), ("ctc", _seq, _logits)])
def test_loss_function_matches_keras_and_names_resolve(name, y_true, y_pred):
    np.testing.assert_allclose(getattr(kg.losses, name)(y_true, y_pred),
                               np.asarray(getattr(keras.losses, name)(y_true, y_pred)),
                               rtol=1e-5, atol=1e-6)
    ours, theirs = kg.losses.get(name), keras.losses.get(name)  # Keras's: the function
    assert ours is getattr(kg.losses, name) and theirs.__name__ == ours.__name__


def test_ctc_trains_under_jit_and_rejects_bad_ranks():
    grad = jax.jit(jax.grad(lambda logits: kg.losses.CTC()(_seq, logits)))(_logits)
    assert grad.shape == _logits.shape and np.isfinite(np.asarray(grad)).all()
    with pytest.raises(ValueError, match="batch_size, max_length, num_classes"):
        kg.losses.ctc(_seq, _logits[0])
    with pytest.raises(ValueError, match="q must be in the interval"):
        kg.losses.CategoricalGeneralizedCrossEntropy(q=1.5)
