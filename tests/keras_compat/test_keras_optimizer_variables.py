"""A compiled model's ``optimizer.variables``, ``optimizer.iterations`` and
``optimizer.learning_rate`` against Keras's after the same fit from the same weights:
Keras's variables (names, order, shapes, dtypes, values), and assigning through them changes
the training that follows as it does in Keras."""

import re

import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(0)
X = _rng.normal(size=(32, 3)).astype("float32")
Y = _rng.normal(size=(32, 2)).astype("float32")
FIT = dict(batch_size=8, verbose=0, shuffle=False)


def _pair(name, **kwargs):
    """The same small model compiled with optimizer class ``name`` in Keras and kgraph,
    with Keras's initial weights in both."""
    models = []
    for lib in (keras, kg):
        x = lib.Input((3,))
        h = lib.layers.Dense(4, activation="tanh", name="a")(x)
        model = lib.Model(x, lib.layers.Dense(2, name="b")(h))
        model.compile(getattr(lib.optimizers, name)(**_kwargs(kwargs, lib)), "mse")
        models.append(model)
    theirs, ours = models
    ours.set_weights(theirs.get_weights())
    return theirs, ours


def _kwargs(kwargs, lib):
    rate = kwargs.get("learning_rate")
    if isinstance(rate, keras.optimizers.schedules.LearningRateSchedule):
        config = keras.optimizers.schedules.serialize(rate)
        return {**kwargs, "learning_rate": lib.optimizers.schedules.deserialize(config)}
    return kwargs


def _unscoped(path):
    """A variable path without the optimizer's scope, which Keras numbers per process
    (``adam_3/...``), as are the names of unscoped variables (Nadam's ``variable_2``)."""
    return ("/", path.split("/", 1)[1]) if "/" in path else ("", re.sub(r"_\d+$", "", path))


def _assert_same_variables(ours, theirs):
    assert [_unscoped(v.path) for v in ours] == [_unscoped(v.path) for v in theirs]
    assert [_unscoped(v.name) for v in ours] == [_unscoped(v.name) for v in theirs]
    assert [(tuple(v.shape), str(v.dtype)) for v in ours] == [
        (tuple(v.shape), str(v.dtype)) for v in theirs]
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a.numpy(), np.asarray(b.value), rtol=1e-5, atol=1e-6,
                                   err_msg=b.path)


def _assert_same_weights(ours, theirs):
    for a, b in zip(ours.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


CASES = [
    ("Adam", {"learning_rate": 0.01}), ("Adam", {"learning_rate": 0.01, "amsgrad": True}),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.9}),
    ("RMSprop", {"learning_rate": 0.01, "momentum": 0.5, "centered": True}),
    ("Nadam", {"learning_rate": 0.01}), ("Adam", {"learning_rate": 0.01, "use_ema": True}),
    ("Adafactor", {"learning_rate": 0.01}), ("Ftrl", {"learning_rate": 0.1}),
    ("Adam", {"learning_rate": 0.01, "gradient_accumulation_steps": 3}),
    ("SGD", {"momentum": 0.9, "learning_rate": keras.optimizers.schedules.ExponentialDecay(
        0.1, 3, 0.5)}),
]


@pytest.mark.parametrize("name, kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_optimizer_variables_after_fit_are_kerass(name, kwargs):
    theirs, ours = _pair(name, **kwargs)
    # before any fit: Keras's optimizer is not built, its variables the step and the rate
    _assert_same_variables(ours.optimizer.variables, theirs.optimizer.variables)
    for model in (theirs, ours):
        model.fit(X, Y, epochs=2, **FIT)
    _assert_same_variables(ours.optimizer.variables, theirs.optimizer.variables)


def test_assigned_optimizer_variables_are_what_training_continues_from():
    theirs, ours = _pair("Adam", learning_rate=0.01)
    for model in (theirs, ours):
        model.fit(X, Y, epochs=1, **FIT)
    held = ours.optimizer.variables  # views: they follow the state, never drift from it
    for model in (theirs, ours):
        for variable in model.optimizer.variables[2:]:
            variable.assign(np.asarray(variable.value) * 0.5 + 0.001)
    _assert_same_variables(ours.optimizer.variables, theirs.optimizer.variables)
    for model in (theirs, ours):
        model.fit(X, Y, epochs=1, **FIT)
    _assert_same_weights(ours, theirs)
    _assert_same_variables(held, theirs.optimizer.variables)


def test_optimizer_variables_assigned_during_fit_change_the_next_steps():
    theirs, ours = _pair("SGD", learning_rate=0.1, momentum=0.9)

    def halve_momenta(model):
        def on_epoch_begin(epoch, logs=None):
            for variable in model.optimizer.variables[2:]:
                variable.assign(np.asarray(variable.value) * 0.5)
        return on_epoch_begin

    for lib, model in ((keras, theirs), (kg, ours)):
        model.fit(X, Y, epochs=3, callbacks=[lib.callbacks.LambdaCallback(
            on_epoch_begin=halve_momenta(model))], **FIT)
    _assert_same_weights(ours, theirs)
    _assert_same_variables(ours.optimizer.variables, theirs.optimizer.variables)


def test_iterations_is_a_variable_of_the_state_training_continues_from():
    theirs, ours = _pair("Adam", learning_rate=0.01)
    for model in (theirs, ours):
        model.fit(X, Y, epochs=1, **FIT)
    for model in (theirs, ours):
        iterations = model.optimizer.iterations
        assert int(iterations.numpy()) == int(iterations.value) == 4
        assert iterations.path.endswith("/iteration") and iterations.name == "iteration"
        iterations.assign(0)  # Adam's bias correction starts again
        assert int(model.optimizer.variables[0].numpy()) == 0
    for model in (theirs, ours):
        model.fit(X, Y, epochs=1, **FIT)
    assert int(ours.optimizer.iterations.numpy()) == int(theirs.optimizer.iterations.numpy())
    _assert_same_weights(ours, theirs)


def test_iterations_under_gradient_accumulation_count_updates_as_kerass():
    theirs, ours = _pair("SGD", learning_rate=0.1, gradient_accumulation_steps=3)
    for model in (theirs, ours):
        model.fit(X, Y, epochs=2, **FIT)  # 8 batches: 2 updates
    assert int(np.asarray(ours.optimizer.iterations)) == int(
        np.asarray(theirs.optimizer.iterations)) == 2
    assert int(ours.optimizer.variables[0].numpy()) == 8


def test_learning_rate_is_a_variable_whose_assign_changes_the_next_steps():
    theirs, ours = _pair("Adam", learning_rate=0.01)
    for model in (theirs, ours):
        model.fit(X, Y, epochs=1, **FIT)
        model.optimizer.learning_rate.assign(0.05)
        assert model.optimizer.learning_rate.numpy() == np.float32(0.05)
        assert model.optimizer.variables[1].numpy() == np.float32(0.05)
        model.fit(X, Y, epochs=1, **FIT)
    _assert_same_weights(ours, theirs)
    assert ours.optimizer.get_config()["learning_rate"] == pytest.approx(
        theirs.optimizer.get_config()["learning_rate"])

    def slower(model):
        def on_epoch_begin(epoch, logs=None):
            model.optimizer.learning_rate.assign(0.01 / (epoch + 1))
        return on_epoch_begin

    for lib, model in ((keras, theirs), (kg, ours)):
        model.fit(X, Y, epochs=3, callbacks=[lib.callbacks.LambdaCallback(
            on_epoch_begin=slower(model))], **FIT)
        assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(0.01 / 3)
    _assert_same_weights(ours, theirs)


def test_a_learning_rate_assigned_before_compile_and_fit_is_the_one_trained_with():
    theirs, ours = _pair("SGD", learning_rate=0.1)
    for model in (theirs, ours):
        model.optimizer.learning_rate.assign(0.02)
        model.fit(X, Y, epochs=1, **FIT)
        assert model.optimizer.learning_rate.numpy() == np.float32(0.02)
    _assert_same_weights(ours, theirs)


def test_a_schedules_learning_rate_is_its_value_at_the_current_step():
    """Keras evaluates it at ``_iterations``: every batch, also under gradient
    accumulation, where ``iterations`` counts updates."""
    schedule = {"class_name": "ExponentialDecay", "config": {
        "initial_learning_rate": 0.1, "decay_steps": 3, "decay_rate": 0.5}}
    rates = {}
    for lib in (keras, kg):
        for every in (None, 3):
            optimizer = lib.optimizers.SGD(lib.optimizers.schedules.deserialize(schedule),
                                           gradient_accumulation_steps=every)
            x = lib.Input((3,))
            model = lib.Model(x, lib.layers.Dense(2)(x))
            model.compile(optimizer, "mse")
            before = float(np.asarray(optimizer.learning_rate))
            model.fit(X, Y, epochs=2, **FIT)
            rates[lib, every] = (before, float(np.asarray(optimizer.learning_rate)))
    for every in (None, 3):
        np.testing.assert_allclose(rates[kg, every], rates[keras, every], rtol=1e-6)


@pytest.mark.parametrize("every", [None, 2, 3])
def test_apply_overwrites_weights_with_their_gradient_as_keras(every):
    """The list API's overwrite_with_gradient (float8 scales): under accumulation, the
    largest gradient since the last update, written at update steps only, as Keras."""
    rng = np.random.default_rng(every or 0)
    grads = [(rng.normal(size=2).astype("float32"), np.float32(rng.uniform(0, 5)))
             for _ in range(7)]
    histories = []
    for lib in (kg, keras):
        weight = lib.Variable(np.ones(2, "float32"))
        scale = lib.Variable(np.float32(1.0))
        scale.overwrite_with_gradient = True
        optimizer = lib.optimizers.SGD(0.1, gradient_accumulation_steps=every)
        history = []
        for g, s in grads:
            optimizer.apply([g, s], [weight, scale])
            history.append((np.asarray(weight.value).tolist(), float(np.asarray(scale.value))))
        histories.append(history)
    np.testing.assert_allclose(np.asarray([h[1] for h in histories[0]]),
                               np.asarray([h[1] for h in histories[1]]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray([h[0] for h in histories[0]]),
                               np.asarray([h[0] for h in histories[1]]), rtol=1e-5)
