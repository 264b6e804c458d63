"""Losses that cannot leave padding rows out, trained as Keras trains them.

``fit`` and ``evaluate`` pad a partial last batch with weight-0 rows that the losses mask
out. Some losses cannot be masked: a function that reduces the batch itself (keras.io's
siamese contrastive loss), a ``Loss`` subclass overriding ``__call__`` without ``mask``
(Keras 2's style) and ``Dice`` with its default ``axis=None``. Their last batch runs
unpadded, as Keras runs every batch; each case equals Keras 3 (the oracle) in losses,
validation losses, ``evaluate`` and the trained weights, over in-memory data (on the
device, in blocks of steps, or as host batches) and over an iterable of batches.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg
from runtime import data as data_lib

_rng = np.random.default_rng(7)
X = _rng.normal(size=(40, 3)).astype(np.float32)  # batches of 16: the last one has 8 rows
Y = (_rng.random(size=(40, 1)) > 0.5).astype(np.float32)
WEIGHTS = _rng.random(size=(40,)).astype(np.float32)


def _scalar_loss(lib):
    def contrastive(y_true, y_pred):  # already reduced over the batch
        return lib.ops.mean(lib.ops.square(y_true - y_pred))
    return contrastive


def _override_loss(lib):
    class SquaredOutput(lib.losses.Loss):
        def __call__(self, y_true, y_pred, sample_weight=None):
            return lib.ops.mean(lib.ops.square(y_pred - y_true))
    return SquaredOutput()


def _dice_loss(lib):
    return lib.losses.Dice()


LOSSES = {"scalar_fn": _scalar_loss, "overrides_call": _override_loss, "dice": _dice_loss}


def _model(lib):
    x = lib.Input((3,), name="x")
    h = lib.layers.Dense(4, activation="tanh", name="hidden")(x)
    return lib.Model(x, lib.layers.Dense(1, activation="sigmoid", name="out")(h), name="net")


def _batches(lib, weights):
    """A ``PyDataset`` of batches of 16 rows, the last one of 8."""
    class Batches(lib.utils.PyDataset):
        def __len__(self):
            return 3

        def __getitem__(self, index):
            rows = slice(16 * index, 16 * index + 16)
            return (X[rows], Y[rows]) + ((WEIGHTS[rows],) if weights else ())
    return Batches()


def _run(model, lib, loss, source, weights, steps_per_execution):
    model.compile(optimizer="sgd", loss=LOSSES[loss](lib),
                  steps_per_execution=steps_per_execution)
    sample_weight = WEIGHTS if weights else None
    if source == "iterable":
        batches = _batches(lib, weights)
        history = model.fit(batches, epochs=2, shuffle=False, verbose=0,
                            validation_data=batches)
        evaluated = model.evaluate(batches, verbose=0)
    else:
        history = model.fit(X, Y, sample_weight=sample_weight, batch_size=16, epochs=2,
                            shuffle=False, verbose=0, validation_data=(X, Y))
        evaluated = model.evaluate(X, Y, batch_size=16, verbose=0)
    return history.history, evaluated, [np.asarray(w) for w in model.get_weights()]


@pytest.mark.parametrize("source, steps_per_execution", [
    ("device", 1), ("device", 2), ("host", 1), ("iterable", 1)])
@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_unmaskable_loss_trains_as_keras(loss, source, steps_per_execution, monkeypatch):
    if source == "host":  # in-memory data too large for the device: host batches
        monkeypatch.setattr(data_lib, "DEVICE_RESIDENT_BYTES", 0)
    weights = loss == "scalar_fn"  # Keras scales one value by the weights' mean
    keras.utils.set_random_seed(5)
    theirs = _model(keras)
    ours = _model(kg)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    expected = _run(theirs, keras, loss, source, weights, steps_per_execution)
    got = _run(ours, kg, loss, source, weights, steps_per_execution)
    assert sorted(got[0]) == sorted(expected[0]) == ["loss", "val_loss"]
    for key in expected[0]:
        np.testing.assert_allclose(got[0][key], expected[0][key], rtol=1e-5, err_msg=key)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-5)
    for a, b in zip(expected[2], got[2]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("loss, programs", [("binary_crossentropy", 1), ("dice", 2)])
def test_only_unmaskable_losses_compile_an_unpadded_step(loss, programs):
    """A per-sample loss keeps the padded last batch (one compiled training step and one
    evaluation); an unmaskable one compiles one more of each, for the unpadded batch."""
    model = _model(kg)
    model.compile(optimizer="sgd", loss=LOSSES[loss](kg) if loss in LOSSES else loss)
    model.fit(X, Y, batch_size=16, epochs=2, verbose=0, validation_data=(X, Y))
    assert model._trainer.traces["train"] == programs
    assert model._trainer.traces["eval"] == programs
