"""``fit`` given ``class_weight`` and sample weights at once, against Keras 3: Keras refuses
(``ValueError``) for arrays with ``sample_weight=`` (with ``validation_split`` too), and for a
``PyDataset``, a ``tf.data.Dataset`` or a generator whose batches are ``(x, y,
sample_weight)``; kgraph raises the same exception type, with a message naming both, and
trains nothing."""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip("keras")
tf = pytest.importorskip("tensorflow")

import kgraph as kg

RNG = np.random.default_rng(0)
X = RNG.normal(size=(12, 3)).astype("float32")
Y = RNG.integers(0, 3, size=(12,))
SW = RNG.uniform(0.5, 2.0, size=(12,)).astype("float32")
CLASS_WEIGHT = {0: 1.0, 1: 2.0, 2: 0.5}


def classifier(lib):
    x = lib.Input((3,))
    model = lib.Model(x, lib.layers.Dense(3, name="dense")(x))
    model.compile(optimizer="sgd", loss=lib.losses.SparseCategoricalCrossentropy(True))
    return model


def weighted_batches(lib):
    class Weighted(lib.utils.PyDataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            rows = slice(i * 4, (i + 1) * 4)
            return X[rows], Y[rows], SW[rows]

    return Weighted()


def generator(lib):
    return ((X[i:i + 4], Y[i:i + 4], SW[i:i + 4]) for i in range(0, 12, 4))


def tf_dataset(lib):
    return tf.data.Dataset.from_tensor_slices((X, Y, SW)).batch(4)


FORMS = {
    "arrays": lambda lib: dict(x=X, y=Y, sample_weight=SW, batch_size=4),
    "arrays_validation_split": lambda lib: dict(x=X, y=Y, sample_weight=SW, batch_size=4,
                                                validation_split=0.25),
    "py_dataset": lambda lib: dict(x=weighted_batches(lib)),
    "generator": lambda lib: dict(x=generator(lib), steps_per_epoch=3),
    "tf_dataset": lambda lib: dict(x=tf_dataset(lib)),
}


def refusal(lib, form, weights=None):
    """The exception ``fit`` raises, and whether the weights are still ``weights``."""
    model = classifier(lib)
    if weights is not None:
        model.set_weights(weights)
    before = [np.array(w) for w in model.get_weights()]
    with pytest.raises(Exception) as caught:
        model.fit(**FORMS[form](lib), class_weight=CLASS_WEIGHT, epochs=1, verbose=0)
    untouched = all(np.array_equal(a, np.asarray(b)) for a, b in zip(before,
                                                                      model.get_weights()))
    return caught.value, untouched, before


@pytest.mark.parametrize("form", sorted(FORMS))
def test_class_weight_with_sample_weights_is_refused_as_keras(form):
    theirs, theirs_untouched, start = refusal(keras, form)
    mine, mine_untouched, _ = refusal(kg, form, start)
    assert type(mine) is type(theirs) is ValueError
    assert theirs_untouched and mine_untouched
    message = str(mine)
    assert "class_weight" in message and "sample weights" in message, message
