"""Keras's optimizer classes on optax: the same weights as Keras after several steps,
configs, Keras's stateful and stateless APIs, and use in compile/fit and the Trainer."""


import jax
import jax.numpy as jnp
import keras
import numpy as np
import optax
import pytest

import kgraph as kg
from kgraph import optimizers

_rng = np.random.default_rng(0)
_W = [_rng.normal(size=(3, 4)).astype("float32"), _rng.normal(size=(4,)).astype("float32")]
_G = [[_rng.normal(size=w.shape).astype("float32") for w in _W] for _ in range(5)]

CASES = [
    ("SGD", {}), ("SGD", {"momentum": 0.9}), ("SGD", {"momentum": 0.8, "nesterov": True}),
    ("Adam", {}), ("Adam", {"learning_rate": 0.01, "beta_1": 0.8, "weight_decay": 0.1}),
    ("AdamW", {}), ("AdamW", {"learning_rate": 0.01, "weight_decay": 0.05}),
    ("RMSprop", {}), ("RMSprop", {"momentum": 0.5, "centered": True}),
    ("Adagrad", {"learning_rate": 0.1}), ("Adadelta", {"learning_rate": 1.0}),
    ("Adamax", {"learning_rate": 0.01}), ("Nadam", {"learning_rate": 0.01}),
    ("Lion", {"learning_rate": 0.01}), ("Adafactor", {"learning_rate": 0.01}),
    ("Adafactor", {"learning_rate": 0.5, "relative_step": False}),
    ("Adam", {"clipnorm": 0.5}), ("SGD", {"clipvalue": 0.1}),
    ("RMSprop", {"global_clipnorm": 1.0}),
    ("SGD", {"learning_rate": keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)}),
    # Keras's momentum carries each step's rate: a changing rate tells the forms apart
    ("SGD", {"momentum": 0.9,
             "learning_rate": keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)}),
    ("SGD", {"momentum": 0.9, "nesterov": True,
             "learning_rate": keras.optimizers.schedules.PiecewiseConstantDecay([2], [0.1, 0.01])}),
    ("Ftrl", {"learning_rate": 0.1}),
    ("Ftrl", {"learning_rate": 0.1, "learning_rate_power": -0.3, "l1_regularization_strength":
              0.01, "l2_regularization_strength": 0.02, "l2_shrinkage_regularization_strength":
              0.01, "beta": 0.5, "initial_accumulator_value": 0.2, "weight_decay": 0.1}),
    ("Lamb", {"learning_rate": 0.01}),
    ("Adafactor", {"learning_rate": 0.01, "weight_decay": 0.1}),
    ("Lamb", {"learning_rate": 0.01, "weight_decay": 0.1, "beta_1": 0.8}),
    ("Muon", {}),  # the (3, 4) kernel takes Muon's step, the (4,) bias AdamW's
    ("Muon", {"learning_rate": 0.01, "nesterov": False, "rms_rate": None,
              "adam_lr_ratio": 0.5, "weight_decay": 0.1, "adam_weight_decay": 0.2}),
    ("ScheduleFreeAdamW", {}),
    ("ScheduleFreeAdamW", {"learning_rate": 0.01, "warmup_steps": 3, "weight_decay": 0.1}),
]


def _ours_kwargs(kwargs):
    rate = kwargs.get("learning_rate")
    if isinstance(rate, keras.optimizers.schedules.LearningRateSchedule):
        ours = optimizers.schedules.deserialize(keras.optimizers.schedules.serialize(rate))
        return {**kwargs, "learning_rate": ours}
    return kwargs


@pytest.mark.parametrize("name, kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_weights_match_keras_after_five_steps(name, kwargs):
    theirs = getattr(keras.optimizers, name)(**kwargs)
    variables = [keras.Variable(w) for w in _W]
    for grads in _G:
        theirs.apply(grads, variables)
    ours = getattr(optimizers, name)(**_ours_kwargs(kwargs))
    params = [jnp.asarray(w) for w in _W]
    state = ours.init(params)
    step = jax.jit(lambda g, s, p: ours.update(g, s, p))
    for grads in _G:
        updates, state = step([jnp.asarray(g) for g in grads], state, params)
        params = optax.apply_updates(params, updates)
    for a, b in zip(params, variables):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b.value), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta",
                                  "Adamax", "Nadam", "Lion", "Adafactor", "Ftrl", "Lamb", "Muon",
                                  "ScheduleFreeAdamW"])
def test_config_matches_keras_and_round_trips(name):
    ours, theirs = getattr(optimizers, name)(), getattr(keras.optimizers, name)()
    config = ours.get_config()
    assert set(config) == set(theirs.get_config())
    for key, value in theirs.get_config().items():
        if key == "name":  # Keras numbers its names (adam_3); the class default is compared
            continue
        if isinstance(value, float):
            assert config[key] == pytest.approx(value, rel=1e-6), key
        else:
            assert config[key] == value, key
    again = optimizers.deserialize(optimizers.serialize(ours))
    assert type(again) is type(ours) and again.get_config() == config
    assert type(optimizers.get(name.lower())) is type(ours)


@pytest.mark.parametrize("kwargs", [{}, {"exclude_layers": ["head"]},
                                    {"exclude_embeddings": False, "learning_rate": 0.01}])
def test_muon_chooses_its_step_by_weight_path_as_keras(kwargs):
    """Embeddings and ``exclude_layers`` paths take AdamW's step: through Keras's list API
    (kgraph Variables keep their paths) and through a params tree keyed by layer name."""
    shapes = {"embedding/embeddings": (6, 3), "dense/kernel": (3, 4), "head/kernel": (4, 2)}
    values = {p: _rng.normal(size=s).astype("float32") for p, s in shapes.items()}
    grads = [{p: _rng.normal(size=s).astype("float32") for p, s in shapes.items()}
             for _ in range(3)]
    theirs, ours = keras.optimizers.Muon(**kwargs), optimizers.Muon(**kwargs)
    keras_vars = []
    for path, value in values.items():
        with keras.name_scope(path.split("/")[0]):
            keras_vars.append(keras.Variable(value, name=path.split("/")[1]))
    assert [v.path for v in keras_vars] == list(shapes)
    our_vars = [kg.Variable(values[p], name=p) for p in shapes]
    for g in grads:
        theirs.apply([g[p] for p in shapes], keras_vars)
        ours.apply([g[p] for p in shapes], our_vars)
    params = {p.split("/")[0]: {p.split("/")[1]: jnp.asarray(v)} for p, v in values.items()}
    state = ours.init(params)
    for g in grads:
        tree = {p.split("/")[0]: {p.split("/")[1]: jnp.asarray(v)} for p, v in g.items()}
        updates, state = ours.update(tree, state, params)
        params = optax.apply_updates(params, updates)
    for path, theirs_var, our_var in zip(shapes, keras_vars, our_vars):
        layer, weight = path.split("/")
        np.testing.assert_allclose(np.asarray(our_var.value), np.asarray(theirs_var.value),
                                   rtol=1e-5, atol=1e-6, err_msg=path)
        np.testing.assert_allclose(np.asarray(params[layer][weight]),
                                   np.asarray(theirs_var.value), rtol=1e-5, atol=1e-6)


def test_stateless_apply_matches_kerass():
    ours, theirs = optimizers.Adam(0.01), keras.optimizers.Adam(0.01)
    keras_vars = [keras.Variable(w) for w in _W]
    theirs.build(keras_vars)
    ours.build([jnp.asarray(w) for w in _W])
    their_state = [v.value for v in theirs.variables]
    our_state = [v.value for v in ours.variables]
    our_params, their_params = list(_W), [v.value for v in keras_vars]
    apply = jax.jit(ours.stateless_apply)
    for grads in _G:
        our_params, our_state = apply(our_state, grads, our_params)
        their_params, their_state = theirs.stateless_apply(their_state, grads, their_params)
    for a, b in zip(our_params, their_params):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-6)


def test_stateful_apply_updates_kgraph_variables_and_learning_rate_is_settable():
    dense = kg.layers.Dense(2)
    dense(np.ones((1, 3), np.float32))
    opt = optimizers.SGD(0.5)
    before = dense.get_weights()
    grads = [np.ones_like(w) for w in before]
    opt.apply_gradients(zip(grads, dense.trainable_variables))
    np.testing.assert_allclose(dense.get_weights()[1], before[1] - 0.5)
    assert int(opt.iterations) == 1
    opt.learning_rate = 0.1
    opt.apply(grads, dense.trainable_variables)
    np.testing.assert_allclose(dense.get_weights()[1], before[1] - 0.6, rtol=1e-6)
    assert float(opt.learning_rate) == pytest.approx(0.1)


def test_optimizer_objects_train_in_compile_fit_and_callbacks_change_their_rate():
    x = kg.Input(shape=(3,))
    model = kg.Model(x, kg.layers.Dense(1)(x))
    opt = kg.optimizers.RMSprop(learning_rate=0.1)
    model.compile(optimizer=opt, loss="mse")
    data = np.ones((8, 3), np.float32), np.zeros((8, 1), np.float32)
    history = model.fit(*data, epochs=3, verbose=0, callbacks=[
        kg.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0, min_delta=10)])
    assert history.history["learning_rate"][0] == pytest.approx(0.1)
    assert float(model.optimizer.learning_rate) == pytest.approx(0.025)  # halved twice


def test_unsupported_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue`"):
        optimizers.SGD(clipnorm=1.0, clipvalue=1.0)
    with pytest.raises(ValueError, match="ema_momentum"):
        optimizers.Adam(use_ema=True, ema_momentum=2.0)
    with pytest.raises(TypeError, match="unexpected keyword"):
        optimizers.Adam(beta1=0.9)
    with pytest.raises(ValueError, match="Adam must be built"):  # Keras's words
        optimizers.Adam().stateless_apply([], [], [])


@pytest.mark.parametrize("kwargs", [{"use_ema": True},
                                    {"use_ema": True, "ema_momentum": 0.5,
                                     "ema_overwrite_frequency": 2}])
def test_use_ema_matches_keras(kwargs):
    theirs = keras.optimizers.SGD(0.1, **kwargs)
    variables = [keras.Variable(w) for w in _W]
    for grads in _G:
        theirs.apply(grads, variables)
    ours = optimizers.SGD(0.1, **kwargs)
    mine = [kg.Variable(w, name=f"w{i}") for i, w in enumerate(_W)]
    for grads in _G:
        ours.apply(grads, mine)
    for a, b in zip(mine, variables):
        np.testing.assert_allclose(a.numpy(), np.asarray(b.value), rtol=1e-6, atol=1e-6)
    theirs.finalize_variable_values(variables)
    ours.finalize_variable_values(mine)
    for a, b in zip(mine, variables):
        np.testing.assert_allclose(a.numpy(), np.asarray(b.value), rtol=1e-6, atol=1e-6)


def test_fit_ends_with_the_moving_average_of_the_weights():
    x = kg.Input(shape=(3,))
    model = kg.Model(x, kg.layers.Dense(1)(x))
    model.compile(optimizer=kg.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.9),
                  loss="mse")
    model.fit(np.ones((8, 3), np.float32), np.ones((8, 1), np.float32), epochs=3, verbose=0)
    setup = model._training_setup
    ema = model.optimizer.ema_weights(setup.opt_state)
    (dense,) = ema.values()
    np.testing.assert_allclose(model.get_weights()[0], np.asarray(dense["kernel"]), rtol=1e-6)


def test_swap_ema_weights_validates_with_the_moving_average():
    x = kg.Input(shape=(3,))
    model = kg.Model(x, kg.layers.Dense(1)(x))
    model.compile(optimizer=kg.optimizers.SGD(0.2, use_ema=True, ema_momentum=0.5),
                  loss="mse")
    data = (np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32),
            np.ones((16, 1), np.float32))
    seen = []
    probe = kg.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: seen.append(model.get_weights()[0].copy()))
    history = model.fit(*data, epochs=2, batch_size=4, verbose=0, validation_data=data,
                        callbacks=[kg.callbacks.SwapEMAWeights(), probe])
    ema = model.optimizer.ema_weights(model._training_setup.opt_state)
    # the last validation ran on the moving average, which is also where fit ends
    assert history.history["val_loss"][-1] == pytest.approx(
        model.evaluate(*data, verbose=0), rel=1e-5)
    np.testing.assert_allclose(model.get_weights()[0],
                               np.asarray(list(ema.values())[0]["kernel"]), rtol=1e-6)
    assert len(seen) == 2


def test_learning_rate_set_before_training_and_read_after_as_keras():
    data = (np.ones((8, 3), "float32"), np.zeros((8, 1), "float32"))
    rates = []
    for lib in (keras, kg):
        x = lib.Input((3,))
        model = lib.Model(x, lib.layers.Dense(1, kernel_initializer="ones")(x))
        optimizer = lib.optimizers.SGD(0.01)
        model.compile(optimizer, "mse")
        optimizer.learning_rate = 0.5  # before any fit: the fit trains at 0.5
        model.fit(*data, batch_size=4, epochs=1, verbose=0)
        rates.append((float(optimizer.learning_rate), np.asarray(model.get_weights()[0])))
        schedule = lib.optimizers.Adam(lib.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5))
        model.compile(schedule, "mse")
        model.fit(*data, batch_size=2, epochs=1, verbose=0)
        rates.append((float(schedule.learning_rate), None))
        assert float(optimizer.learning_rate) == 0.5  # compiled away: its own setting
    assert rates[0][0] == rates[2][0] == 0.5
    np.testing.assert_allclose(rates[2][1], rates[0][1], rtol=1e-6)
    assert rates[3][0] == pytest.approx(rates[1][0]) == pytest.approx(0.025)


def test_ftrl_refuses_bad_arguments_when_made():
    with pytest.raises(ValueError, match="l1_regularization_strength"):
        optimizers.Ftrl(l1_regularization_strength=-1.0)
