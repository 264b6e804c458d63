"""``model.load_weights(path, skip_mismatch=True)`` as Keras: a trained body reused under a
new head. The layers the file holds as the model has them are loaded, the others keep their
weights and a warning lists them; the resulting weights equal Keras's after the same call,
for ``.weights.h5`` and ``.keras`` files written by either library."""

from __future__ import annotations

import warnings

import keras
import numpy as np
import pytest

import kgraph as kg

X = np.random.default_rng(0).normal(size=(4, 5)).astype("float32")


def _model(lib, head_units, head_name="head"):
    x = lib.Input((5,), name="x")
    h = lib.layers.Dense(6, activation="relu", name="body")(x)
    h = lib.layers.BatchNormalization(name="norm")(h)
    return lib.Model(x, lib.layers.Dense(head_units, name=head_name)(h))


def _randomized(model, seed):
    rng = np.random.default_rng(seed)
    model.set_weights([rng.uniform(0.5, 1.5, np.shape(w)).astype("float32")
                       for w in model.get_weights()])
    return model


def _weights(model):
    return [np.asarray(w) for w in model.get_weights()]


def _load_with_warnings(model, path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.load_weights(path, skip_mismatch=True)
    return [str(w.message) for w in caught if "could not be loaded" in str(w.message)]


@pytest.mark.parametrize("suffix", [".weights.h5", ".keras"])
@pytest.mark.parametrize("writer", ["keras", "kgraph"])
def test_a_new_head_keeps_its_weights_and_the_body_loads_as_keras(writer, suffix, tmp_path):
    trained = _randomized(_model(keras if writer == "keras" else kg, 3), seed=1)
    path = str(tmp_path / f"trained{suffix}")
    if suffix == ".keras":
        trained.save(path)
    else:
        trained.save_weights(path)
    theirs = _randomized(_model(keras, 2), seed=2)
    ours = _model(kg, 2)
    ours.set_weights(_weights(theirs))
    their_warnings = _load_with_warnings(theirs, path)
    our_warnings = _load_with_warnings(ours, path)
    for a, b in zip(_weights(ours), _weights(theirs)):
        np.testing.assert_array_equal(a, b)
    body = _weights(trained)[:6]  # body's kernel and bias, norm's four
    for a, b in zip(_weights(ours)[:6], body):
        np.testing.assert_array_equal(a, b)
    assert len(their_warnings) == len(our_warnings) == 1
    assert "A total of 1 objects could not be loaded" in their_warnings[0]
    assert "a total of 1 objects could not be loaded" in our_warnings[0]
    assert "head" in our_warnings[0]
    np.testing.assert_allclose(ours.predict(X, verbose=0), theirs.predict(X, verbose=0),
                               rtol=1e-5, atol=1e-6)


def test_a_layer_missing_from_the_file_is_skipped_and_extra_data_ignored_as_keras(tmp_path):
    """A head of another class (another path in the file) and a file whose head the model
    does not have: both skipped with a warning, as Keras."""
    trained = _randomized(_model(kg, 3), seed=1)
    path = str(tmp_path / "trained.weights.h5")
    trained.save_weights(path)
    results = []
    for lib in (keras, kg):
        x = lib.Input((5,), name="x")
        h = lib.layers.Dense(6, activation="relu", name="body")(x)
        h = lib.layers.BatchNormalization(name="norm")(h)
        model = lib.Model(x, lib.layers.LayerNormalization(name="head")(h))
        before = _weights(model)
        assert len(_load_with_warnings(model, path)) == 1
        after = _weights(model)
        np.testing.assert_array_equal(after[-1], before[-1])  # the new head's own weights
        results.append(after[:6])
    for a, b in zip(results[1], results[0]):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError):
        _model(kg, 2).load_weights(path)  # without skip_mismatch the file must match
