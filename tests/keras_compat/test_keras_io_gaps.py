"""Small gaps met running keras.io examples, with Keras 3 as the oracle: a functional model
adjusts an input's rank to its ``Input``'s (MNIST's ``(n, 28, 28)`` into
``Input((28, 28, 1))``) in calls, predict, fit and evaluate; ``Model.from_config`` rebuilds
a functional config."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg

_data = np.random.default_rng(0)
IMAGES = _data.normal(size=(16, 6, 6)).astype(np.float32)  # one axis short of Input((6, 6, 1))
IMAGE_Y = _data.normal(size=(16, 3)).astype(np.float32)
ROWS = _data.normal(size=(16, 5, 1)).astype(np.float32)  # one axis more than Input((5,))
ROW_Y = _data.normal(size=(16, 2)).astype(np.float32)


def _image_model(lib):
    x = lib.Input((6, 6, 1), name="image")
    h = lib.layers.Conv2D(2, 3, activation="relu", name="conv")(x)
    return lib.Model(x, lib.layers.Dense(3, name="out")(lib.layers.Flatten(name="flat")(h)),
                     name="images")


def _row_model(lib):
    x = lib.Input((5,), name="row")
    return lib.Model(x, lib.layers.Dense(2, name="out")(x), name="rows")


def _pair(make):
    """Keras's model (from a fixed seed) and kgraph's with Keras's weights."""
    keras.utils.set_random_seed(3)
    theirs, ours = make(keras), make(kg)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    return theirs, ours


def _run_all(model, x, y):
    """Call, predict, one epoch of fit, evaluate: the numbers of each, and the weights."""
    called = np.asarray(model(x))
    predicted = model.predict(x, batch_size=8, verbose=0)
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0,
                        validation_data=(x, y)).history
    evaluated = model.evaluate(x, y, batch_size=8, verbose=0)
    return called, predicted, history, evaluated, [np.asarray(w) for w in model.get_weights()]


@pytest.mark.parametrize("make, x, y", [(_image_model, IMAGES, IMAGE_Y),
                                        (_row_model, ROWS, ROW_Y)], ids=["expand", "squeeze"])
def test_input_rank_adjusted_as_keras(make, x, y):
    theirs, ours = _pair(make)
    expected, got = _run_all(theirs, x, y), _run_all(ours, x, y)
    for name, a, b in zip(("call", "predict"), expected[:2], got[:2]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6, err_msg=name)
    assert sorted(got[2]) == sorted(expected[2]) == ["loss", "val_loss"]
    for key in expected[2]:
        np.testing.assert_allclose(got[2][key], expected[2][key], rtol=1e-5, err_msg=key)
    np.testing.assert_allclose(got[3], expected[3], rtol=1e-5)
    for a, b in zip(expected[4], got[4]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def _flat_model(lib):
    x = lib.Input((6, 6, 1), name="image")
    return lib.Model(x, lib.layers.Dense(3, name="out")(lib.layers.Flatten(name="flat")(x)),
                     name="flat_images")


def test_nested_call_adjusts_rank_as_keras():
    """A model called on a tensor one axis short, inside another model: the same shapes
    and numbers as Keras (whose symbolic pass leaves the rank as it is, which a model
    starting with Flatten does not notice; its run adjusts it)."""
    theirs, ours = _pair(_flat_model)
    results = []
    for lib, inner in ((keras, theirs), (kg, ours)):
        x = lib.Input((6, 6))
        outer = lib.Model(x, inner(x))
        results.append((tuple(outer.output.shape), np.asarray(outer(IMAGES))))
    assert results[1][0] == results[0][0] == (None, 3)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-5, atol=1e-6)


def test_other_ranks_are_refused_as_keras():
    for lib in (keras, kg):
        model = _row_model(lib)
        for bad in (np.zeros((4, 5, 2), "float32"), np.zeros((4, 5, 1, 1), "float32")):
            with pytest.raises(ValueError):
                model(bad)
    with pytest.raises(ValueError, match=r"name 'row' .* of model 'rows'\. Expected shape "
                                         r"\(None, 5\), but input has incompatible shape "
                                         r"\(4, 5, 2\)"):  # Keras's words, the array summed up
        _row_model(kg)(np.zeros((4, 5, 2), "float32"))


def test_model_from_config_rebuilds_functional_as_keras():
    theirs, ours = _pair(_image_model)
    rebuilt = {lib: lib.Model.from_config(model.get_config(), custom_objects={})
               for lib, model in ((keras, theirs), (kg, ours))}
    assert isinstance(rebuilt[kg], kg.Functional)
    assert rebuilt[kg].name == rebuilt[keras].name == "images"
    names = [[layer.name for layer in rebuilt[lib].layers] for lib in (keras, kg)]
    assert names[1] == names[0] == ["image", "conv", "flat", "out"]
    weights = [np.asarray(w) for w in theirs.get_weights()]
    outputs = []
    for model in rebuilt.values():
        model.set_weights(weights)
        outputs.append(np.asarray(model(IMAGES[..., None])))
    np.testing.assert_allclose(outputs[1], outputs[0], rtol=1e-5, atol=1e-6)


def test_model_subclass_from_config_as_keras():
    """A subclass without its own ``__init__`` revives a functional config as a functional
    model of its class; one with its own ``__init__`` gets ``cls(**config)``."""
    def classes(lib):
        class Plain(lib.Model):
            pass

        class Sized(lib.Model):
            def __init__(self, units=2, **kwargs):
                super().__init__(**kwargs)
                self.units = units

            def call(self, x):
                return x

            def get_config(self):
                return {**super().get_config(), "units": self.units}
        return Plain, Sized

    for lib in (keras, kg):
        plain, sized = classes(lib)
        revived = plain.from_config(_row_model(lib).get_config())
        assert isinstance(revived, plain) and isinstance(revived, lib.Model)
        assert [layer.name for layer in revived.layers] == ["row", "out"]
        assert sized.from_config(sized(units=4).get_config()).units == 4


def _regularized(lib):
    class Penalty(lib.layers.Layer):
        def call(self, x):
            self.add_loss(1e-2 * lib.ops.sum(lib.ops.square(x)))
            return x

    inputs = lib.Input((3,))
    return lib.Model(inputs, Penalty()(lib.layers.Dense(3, kernel_initializer="ones")(inputs)))


@pytest.mark.parametrize("rows", [16, 18])  # 18: a partial last batch, run unpadded
@pytest.mark.parametrize("with_targets", [False, True])
def test_compile_without_a_loss_trains_on_the_added_losses_as_keras(with_targets, rows):
    """``compile(optimizer=...)`` without a loss: ``fit`` (and ``evaluate``) minimise the
    losses the layers add, with or without ``y`` (the VAE pattern). The added loss is one
    value for the whole batch, so a partial batch runs unpadded."""
    features = np.random.default_rng(0).normal(size=(rows, 3)).astype("float32")
    targets = features if with_targets else None
    runs = []
    for lib in (keras, kg):
        model = _regularized(lib)
        model.compile(optimizer=lib.optimizers.SGD(0.1))
        history = model.fit(features, targets, batch_size=4, epochs=2, shuffle=False,
                            verbose=0).history
        runs.append((history["loss"], model.get_weights(),
                     model.evaluate(features, targets, batch_size=4, verbose=0)))
    (theirs_loss, theirs_weights, theirs_eval), (ours_loss, ours_weights, ours_eval) = runs
    np.testing.assert_allclose(ours_loss, theirs_loss, rtol=1e-6)
    np.testing.assert_allclose(ours_eval, theirs_eval, rtol=1e-6)
    for ours, theirs in zip(ours_weights, theirs_weights, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)


def _adds_its_own_loss(lib):
    class Autoencoder(lib.Model):
        """A subclassed model adding a loss in its own call (the VAE pattern)."""

        def __init__(self):
            super().__init__(name="autoencoder")
            self.encode = lib.layers.Dense(2, name="encode")
            self.decode = lib.layers.Dense(3, name="decode")

        def call(self, x):
            code = self.encode(x)
            self.add_loss(0.1 * lib.ops.mean(lib.ops.square(code)))
            return self.decode(code)

    return Autoencoder()


def test_subclassed_model_adding_a_loss_in_call_trains_as_keras():
    """``self.add_loss`` in a subclassed model's ``call``: the model builds (its call is
    traced on symbolic inputs, where the loss is left to the runs), an eager call lists
    the loss in ``losses``, and ``fit`` / ``evaluate`` add it as Keras does."""
    features = np.random.default_rng(1).normal(size=(20, 3)).astype("float32")
    runs = []
    for lib in (keras, kg):
        keras.utils.set_random_seed(6)
        model = _adds_its_own_loss(lib)
        model(features[:4])  # builds it
        if lib is kg:
            model.set_weights(weights)
        weights = [np.asarray(w) for w in model.get_weights()]
        model(features[:4])
        runs.append([float(np.asarray(loss)) for loss in model.losses])
        model.compile(optimizer=lib.optimizers.SGD(0.1), loss="mse")
        history = model.fit(features, features, batch_size=8, epochs=2, shuffle=False,
                            verbose=0).history
        runs[-1] += [history["loss"], model.evaluate(features, features, batch_size=8,
                                                     verbose=0)]
        runs[-1].append([np.asarray(w) for w in model.get_weights()])
    theirs, ours = runs
    assert len(ours) == len(theirs)
    for a, b in zip(theirs[:-1], ours[:-1]):
        np.testing.assert_allclose(b, a, rtol=1e-5)
    for a, b in zip(theirs[-1], ours[-1], strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
