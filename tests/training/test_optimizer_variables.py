"""A compiled model's optimizer state in ``.keras`` and ``.weights.h5`` files, as Keras 3's
optimizer variables: a file Keras wrote resumes in kgraph with Keras's moments, and one
kgraph wrote resumes in Keras (the oracle) with kgraph's; kgraph's own files resume bitwise."""

import warnings

import h5py
import jax
import keras
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph.saving.errors import LoadError
from kgraph.optimizers import keras_variables

_rng = np.random.default_rng(0)
X = _rng.normal(size=(32, 3)).astype("float32")
Y = _rng.normal(size=(32, 2)).astype("float32")
FIT = dict(batch_size=8, verbose=0, shuffle=False)

CASES = [
    ("Adam", {}), ("Adam", {"amsgrad": True}), ("AdamW", {"weight_decay": 0.1}),
    ("SGD", {}), ("SGD", {"momentum": 0.9}), ("SGD", {"momentum": 0.9, "nesterov": True}),
    ("RMSprop", {}), ("RMSprop", {"momentum": 0.5, "centered": True}),
    ("Adagrad", {}), ("Adadelta", {"learning_rate": 1.0}), ("Adamax", {}), ("Nadam", {}),
    ("Lion", {}), ("Adafactor", {}), ("Adam", {"clipnorm": 0.1}),
    ("Ftrl", {"learning_rate": 0.1, "l1_regularization_strength": 0.01, "weight_decay": 0.1}),
    ("Lamb", {"learning_rate": 0.01, "weight_decay": 0.1}),
    ("Adam", {"use_ema": True}),
    ("ScheduleFreeAdamW", {"learning_rate": 0.01, "warmup_steps": 2, "weight_decay": 0.1}),
    ("SGD", {"momentum": 0.9, "learning_rate": {"class_name": "ExponentialDecay", "config": {
        "initial_learning_rate": 0.1, "decay_steps": 3, "decay_rate": 0.5}}}),
]


def _keras_kwargs(kwargs):
    rate = kwargs.get("learning_rate")
    if isinstance(rate, dict):
        return {**kwargs, "learning_rate": keras.optimizers.schedules.deserialize(rate)}
    return kwargs


def _model(lib):
    x = lib.Input((3,))
    h = lib.layers.Dense(4, activation="tanh", name="a")(x)
    return lib.Model(x, lib.layers.Dense(2, name="b")(h))


def _trained():
    """The small model, compiled with Adam and fitted for one epoch (4 steps)."""
    model = _model(kg)
    model.compile(kg.optimizers.Adam(0.01), "mse")
    model.fit(X, Y, epochs=1, **FIT)
    return model


def _optimizer_warnings(record):
    return [str(w.message) for w in record if "optimizer" in str(w.message).lower()]


def _max_difference(ours, theirs):
    return max(float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
               for a, b in zip(ours.get_weights(), theirs.get_weights()))


@pytest.mark.parametrize("name, kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_training_resumes_across_kgraph_and_keras(name, kwargs, tmp_path):
    theirs = _model(keras)
    theirs.compile(getattr(keras.optimizers, name)(**_keras_kwargs(kwargs)), "mse")
    theirs.fit(X, Y, epochs=2, **FIT)
    theirs.save(tmp_path / "keras.keras")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        ours = kg.load_model(tmp_path / "keras.keras")
    assert _optimizer_warnings(record) == []
    # the state loaded is Keras's, variable for variable
    assert int(ours.optimizer.iterations) == int(theirs.optimizer.iterations) == 8
    _, values = keras_variables.model_variables(ours)
    assert len(values) == len(theirs.optimizer.variables)
    for ours_value, variable in zip(values, theirs.optimizer.variables):
        np.testing.assert_array_equal(ours_value, np.asarray(variable.value))
    if kwargs.get("use_ema"):
        return  # Keras 3.15 cannot fit again after saving with use_ema (a buffer donated twice)

    ours.fit(X, Y, epochs=2, **FIT)
    theirs.fit(X, Y, epochs=2, **FIT)
    assert _max_difference(ours, theirs) < 1e-6

    ours.save(tmp_path / "kgraph.keras")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        again = keras.saving.load_model(tmp_path / "kgraph.keras")
    assert _optimizer_warnings(record) == []  # Keras finds every variable it expects
    assert int(again.optimizer.iterations) == 16
    again.fit(X, Y, epochs=1, **FIT)
    ours.fit(X, Y, epochs=1, **FIT)
    assert _max_difference(ours, again) < 1e-6


def _layers_model(lib):
    """Sub-layers, recurrent cells, frozen and non-trainable weights, a shared layer and a
    nested model, branches in an unusual order: Keras's weight order is what is tested."""
    x = lib.Input((6, 3))
    shared = lib.layers.Dense(3, name="shared")
    inner_in = lib.Input((6, 3))
    inner = lib.Model(inner_in, lib.layers.Dense(3, name="inner_dense")(inner_in), name="inner")
    frozen = lib.layers.Dense(3, name="frozen")
    frozen.trainable = False
    a = shared(lib.layers.Dense(3, name="zz")(x))
    b = shared(inner(x))
    h = lib.layers.Add()([a, frozen(b)])
    h = lib.layers.MultiHeadAttention(2, 4, name="mha")(h, h)
    h = lib.layers.BatchNormalization(name="bn")(h)
    h = lib.layers.Bidirectional(lib.layers.LSTM(3), name="bi")(h)
    return lib.Model(x, lib.layers.Dense(2, name="out")(h))


def test_keras_weight_order_through_sublayers_and_nested_models(tmp_path):
    xs = _rng.normal(size=(16, 6, 3)).astype("float32")
    ys = _rng.normal(size=(16, 2)).astype("float32")
    theirs = _layers_model(keras)
    theirs.compile(keras.optimizers.Adam(0.01), "mse")
    theirs.fit(xs, ys, epochs=1, **FIT)
    theirs.save(tmp_path / "keras.keras")
    ours = kg.load_model(tmp_path / "keras.keras")
    assert [layer.name for layer in ours.layers] == [layer.name for layer in theirs.layers]
    # Each weight's moments are the ones Keras keeps for that weight, found by its value
    # (every weight differs after a step), whatever the order the file lists them in.
    params = compiler.variables(ours)[0]
    moments = ours._training_setup.opt_state.inner_state[0][0][1]  # Adam's (count, m, v, ..)
    paths = [path for path, _ in jax.tree_util.tree_flatten_with_path(params)[0]]
    for variable, momentum in zip(theirs.trainable_variables, theirs.optimizer._momentums,
                                  strict=True):
        [path] = [p for p in paths if np.array_equal(_at(params, p), np.asarray(variable))]
        np.testing.assert_array_equal(_at(moments, path), np.asarray(momentum))
    _, values = keras_variables.model_variables(ours)
    for ours_value, variable in zip(values, theirs.optimizer.variables, strict=True):
        np.testing.assert_array_equal(ours_value, np.asarray(variable.value))
    ours.fit(xs, ys, epochs=1, **FIT)  # Adam magnifies round-off on tiny gradients: 1e-2
    theirs.fit(xs, ys, epochs=1, **FIT)
    assert _max_difference(ours, theirs) < 1e-2


def _at(tree, path):
    for key in path:
        tree = tree[key.key]
    return np.asarray(tree)


def test_a_saved_compiled_model_resumes_bitwise(tmp_path):
    def run(save_between):
        kg.utils.set_random_seed(0)  # both runs start from the same weights
        model = _model(kg)
        model.compile(kg.optimizers.Adam(0.01), "mse")
        model.fit(X, Y, epochs=2, **FIT)
        if save_between:
            model.save(tmp_path / "m.keras")
            model = kg.load_model(tmp_path / "m.keras")
        model.fit(X, Y, epochs=2, **FIT)
        return model

    for a, b in zip(run(True).get_weights(), run(False).get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_stacked_blocks_state_goes_to_files_per_layer_and_back(tmp_path):
    def build():
        x = kg.Input((4,))
        h = x
        for i in range(4):  # identical blocks: one scan, their weights stacked
            h = kg.layers.Dense(4, activation="tanh", name=f"block_{i}")(h)
        model = kg.Model(x, kg.layers.Dense(2, name="head")(h))
        model.compile(kg.optimizers.Adam(0.01), "mse")  # Adam by class: blocks stacked
        return model

    xs = _rng.normal(size=(32, 4)).astype("float32")
    model = build()
    model.fit(xs, Y, epochs=1, **FIT)
    assert model._training_setup.trainer.stack_blocks
    model.save_weights(tmp_path / "m.weights.h5")
    with h5py.File(tmp_path / "m.weights.h5") as file:  # one set of moments per weight
        assert len(file["optimizer/vars"]) == 2 + 2 * len(model.trainable_weights)
    resumed = build()
    resumed.load_weights(tmp_path / "m.weights.h5")
    model.fit(xs, Y, epochs=1, **FIT)
    resumed.fit(xs, Y, epochs=1, **FIT)
    for a, b in zip(resumed.get_weights(), model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_load_weights_restores_the_state_only_of_a_matching_optimizer(tmp_path):
    model = _trained()
    model.save_weights(tmp_path / "adam.weights.h5")

    uncompiled = _model(kg)
    uncompiled.load_weights(tmp_path / "adam.weights.h5")  # weights only, quietly
    for a, b in zip(uncompiled.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)

    other = _model(kg)
    other.compile(kg.optimizers.SGD(0.1, momentum=0.9), "mse")
    with pytest.warns(UserWarning, match=r"optimizer has 10 variables, this model's 6 .* "
                                         r"fresh one"):
        other.load_weights(tmp_path / "adam.weights.h5")
    assert other._training_setup.opt_state is None


def test_gradient_accumulation_state_goes_both_ways_with_keras(tmp_path):
    """Keras's iterations count batches and its accumulators hold sums; optax's
    MultiSteps keeps means: a file written mid-accumulation resumes exactly."""
    theirs = _model(keras)
    theirs.compile(keras.optimizers.Adam(0.01, gradient_accumulation_steps=3), "mse")
    theirs.fit(X, Y, epochs=1, **FIT)  # 4 batches: one update, one batch accumulated
    theirs.save(tmp_path / "k.keras")
    ours = kg.load_model(tmp_path / "k.keras")
    assert int(ours.optimizer.iterations) == int(theirs.optimizer.iterations) == 1
    for model in (theirs, ours):
        model.fit(X, Y, epochs=2, **FIT)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    ours.save(tmp_path / "o.keras")
    back = keras.saving.load_model(tmp_path / "o.keras")
    for a, b in zip(back.optimizer.variables, theirs.optimizer.variables):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-6)


def test_optimizer_state_without_a_keras_layout_is_not_lost_silently(tmp_path):
    model = _model(kg)
    model.compile(kg.optimizers.Muon(0.01), "mse")
    model.fit(X, Y, epochs=1, **FIT)
    with pytest.warns(UserWarning, match="optimizer's state is not saved .*Muon"):
        model.save(tmp_path / "m.keras")
    assert int(kg.load_model(tmp_path / "m.keras").optimizer.iterations) == 0
    theirs = _model(keras)
    theirs.compile(keras.optimizers.Muon(0.01), "mse")
    theirs.fit(X, Y, epochs=1, **FIT)
    theirs.save(tmp_path / "k.keras")
    with pytest.warns(UserWarning, match=r"holds the optimizer's state \(\d+ variables\), "
                                         "which this model's optimizer cannot take .*Muon"):
        kg.load_model(tmp_path / "k.keras")


def test_moving_average_with_gradient_accumulation_goes_both_ways_with_keras(tmp_path):
    """Keras averages at every batch, also those that only accumulate: its averages,
    accumulators and moments load here, and kgraph's load in Keras."""
    kwargs = dict(learning_rate=0.01, gradient_accumulation_steps=3, use_ema=True)
    theirs = _model(keras)
    theirs.compile(keras.optimizers.Adam(**kwargs), "mse")
    theirs.fit(X, Y, epochs=2, **FIT)  # 8 batches: two updates, two batches accumulated
    theirs.save(tmp_path / "k.keras")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        ours = kg.load_model(tmp_path / "k.keras")
    assert _optimizer_warnings(record) == []
    _, values = keras_variables.model_variables(ours)
    for ours_value, variable in zip(values, theirs.optimizer.variables, strict=True):
        np.testing.assert_array_equal(ours_value, np.asarray(variable.value))
    ours.save(tmp_path / "o.keras")
    back = keras.saving.load_model(tmp_path / "o.keras")
    for a, b in zip(back.optimizer.variables, theirs.optimizer.variables, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_an_optimizer_group_numbered_oddly_is_refused(tmp_path):
    model = _trained()
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    with h5py.File(path, "a") as file:
        file.move("optimizer/vars/3", "optimizer/vars/30")
    with pytest.raises(LoadError, match="optimizer's variables are not numbered 0..n-1"):
        model.load_weights(path)


def test_model_checkpoint_files_carry_the_running_optimizer_state(tmp_path):
    def build():
        model = _model(kg)
        model.compile(kg.optimizers.Adam(0.01), "mse")
        return model

    model = build()
    pattern = str(tmp_path / "ck_{epoch}.keras")
    model.fit(X, Y, epochs=3, callbacks=[kg.callbacks.ModelCheckpoint(pattern)], **FIT)
    resumed = kg.load_model(tmp_path / "ck_2.keras")  # saved during fit, after epoch 2
    assert int(resumed.optimizer.iterations) == 8
    resumed.fit(X, Y, epochs=1, **FIT)
    for a, b in zip(resumed.get_weights(), model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_layer_unfrozen_after_training_saves_with_a_warning_not_a_crash(tmp_path):
    x = kg.Input((3,))
    frozen = kg.layers.Dense(4, name="a")
    frozen.trainable = False
    model = kg.Model(x, kg.layers.Dense(2, name="b")(frozen(x)))
    model.compile(kg.optimizers.Adam(0.01), "mse")
    model.fit(X, Y, epochs=1, **FIT)
    frozen.trainable = True
    with pytest.warns(UserWarning, match="made for other trainable weights"):
        model.save(tmp_path / "m.keras")
    loaded = kg.load_model(tmp_path / "m.keras")
    for a, b in zip(loaded.get_weights(), model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_iterations_and_learning_rate_read_the_state_fit_continues(tmp_path):
    model = _trained()
    model.save_weights(tmp_path / "m.weights.h5")
    model.fit(X, Y, epochs=2, **FIT)
    assert int(model.optimizer.iterations) == 12
    model.load_weights(tmp_path / "m.weights.h5")
    assert int(model.optimizer.iterations) == 4
    model.optimizer.learning_rate = 0.5  # between fits: the next fit uses it, files keep it
    assert float(model.optimizer.learning_rate) == 0.5
    model.save_weights(tmp_path / "again.weights.h5")
    with h5py.File(tmp_path / "again.weights.h5") as file:
        assert float(file["optimizer/vars/1"][()]) == 0.5
    model.fit(X, Y, epochs=1, **FIT)
    assert int(model.optimizer.iterations) == 8
    assert float(model.optimizer.learning_rate) == 0.5


def test_a_compiled_file_loads_without_making_initial_weight_values(tmp_path, monkeypatch):
    model = _trained()
    model.save(tmp_path / "m.keras")
    from kgraph.base import initial_values

    def refuse(*args, **kwargs):
        raise AssertionError("initial values were drawn while loading")

    monkeypatch.setattr(initial_values, "draw", refuse, raising=False)
    loaded = kg.load_model(tmp_path / "m.keras")
    assert int(loaded.optimizer.iterations) == 4


def test_kerass_loss_scaled_files_load_with_their_larger_optimizer_groups(tmp_path):
    """Keras's mixed_float16 wraps the optimizer in a LossScaleOptimizer, which writes the
    inner optimizer's variables twice: within the loader's bounds still."""
    xs = _rng.normal(size=(16, 512)).astype("float32")
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        x = keras.Input((512,))
        theirs = keras.Model(x, keras.layers.Dense(2)(keras.layers.Dense(512)(x)))
        theirs.compile(keras.optimizers.Adam(amsgrad=True, use_ema=True), "mse")
        theirs.fit(xs, Y[:16], epochs=1, batch_size=8, verbose=0)
        theirs.save(tmp_path / "m.keras")
    finally:
        keras.mixed_precision.set_global_policy("float32")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kgraph compiles without Keras's LossScaleOptimizer
        ours = kg.load_model(tmp_path / "m.keras")
    for a, b in zip(ours.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_array_equal(a, np.asarray(b))
