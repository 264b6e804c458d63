"""A generator whose batches change their per-sample shape (sequences bucketed by length),
under ``fit`` (also with ``steps_per_execution``), ``evaluate`` and ``predict``, run the same
way under Keras and kgraph: each shape runs a program of its own, as Keras compiles one for
each input shape; the histories, weights and predictions are Keras's."""

import keras
import numpy as np
import pytest

import kgraph as kg

LENGTHS = [3, 3, 5, 5, 4, 3]


def _batches(with_targets=True):
    rng = np.random.default_rng(0)
    for length in LENGTHS:
        x = rng.normal(size=(2, length, 2)).astype("float32")
        yield (x, x.sum(axis=(1, 2))[:, None]) if with_targets else (x,)


def _model(lib):
    inputs = lib.Input((None, 2))
    hidden = lib.layers.Dense(4, activation="tanh")(inputs)
    return lib.Model(inputs, lib.layers.Dense(1)(lib.layers.GlobalAveragePooling1D()(hidden)))


@pytest.mark.parametrize("steps_per_execution", [1, 2])
def test_batches_of_changing_lengths_train_as_kerass(steps_per_execution):
    theirs, ours = _model(keras), _model(kg)
    ours.set_weights(theirs.get_weights())
    results = []
    for model, lib in ((theirs, keras), (ours, kg)):
        model.compile(lib.optimizers.SGD(0.05), "mse", steps_per_execution=steps_per_execution)
        history = model.fit(_batches(), epochs=1, verbose=0).history
        results.append((history["loss"], model.evaluate(_batches(), verbose=0),
                        model.predict(_batches(False), verbose=0)))
    (k_loss, k_eval, k_pred), (loss, evaluated, predicted) = results
    np.testing.assert_allclose(loss, k_loss, rtol=1e-5)
    np.testing.assert_allclose(evaluated, k_eval, rtol=1e-5)
    np.testing.assert_allclose(predicted, k_pred, rtol=1e-5, atol=1e-6)
    for a, b in zip(ours.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_batch_of_another_structure_is_still_refused():
    model = _model(kg)
    model.compile("sgd", "mse")

    def batches():
        yield np.ones((2, 3, 2), "float32"), np.ones((2, 1), "float32")
        yield np.ones((2, 3, 2), "int32"), np.ones((2, 1), "float32")

    with pytest.raises(ValueError, match="does not match the first batch"):
        model.fit(batches(), epochs=1, verbose=0)
