"""LossScaleOptimizer: Keras's dynamic scale (skip and halve on inf/NaN, double after
``dynamic_growth_steps`` finite steps), Keras's weights, and float16 training that keeps
gradients Keras's loss scaling keeps."""

import jax.numpy as jnp
import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(0)
_W = [_rng.normal(size=(3, 2)).astype("float32"), _rng.normal(size=(2,)).astype("float32")]


def _grads(step):
    grads = [_rng.normal(size=w.shape).astype("float32") * 100 for w in _W]
    if step in (2, 5):
        grads[1][0] = np.inf if step == 2 else np.nan
    return grads


def test_scale_skips_and_weights_follow_keras_step_by_step():
    """Keras's stateless API (its stateful one fails under JAX in Keras 3.15)."""
    theirs = keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(0.1), initial_scale=64.0,
                                                 dynamic_growth_steps=2)
    ours = kg.optimizers.LossScaleOptimizer(kg.optimizers.Adam(0.1), initial_scale=64.0,
                                            dynamic_growth_steps=2)
    theirs.build([keras.Variable(w) for w in _W])
    ours.build([jnp.asarray(w) for w in _W])
    their_state = [v.value for v in theirs.variables]
    our_state = [v.value for v in ours.variables]
    scale_at = [id(v) for v in theirs.variables].index(id(theirs.dynamic_scale))
    counter_at = [id(v) for v in theirs.variables].index(id(theirs.step_counter))
    our_paths = [v.path for v in ours.variables]
    our_scale_at = our_paths.index("loss_scale_optimizer/dynamic_scale")
    our_counter_at = our_paths.index("loss_scale_optimizer/step_counter")
    their_params, our_params = list(_W), list(_W)
    for step in range(8):
        grads = _grads(step)
        their_params, their_state = theirs.stateless_apply(their_state, grads, their_params)
        our_params, our_state = ours.stateless_apply(our_state, grads, our_params)
        assert float(our_state[our_scale_at]) == float(their_state[scale_at]), step
        assert int(our_state[our_counter_at]) == int(their_state[counter_at]), step
        for a, b in zip(our_params, their_params):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
    assert float(our_state[our_scale_at]) != 64.0  # it halved and doubled on the way


def test_config_is_kerass_and_keras_configs_load():
    theirs = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.5), initial_scale=4.0,
                                                 dynamic_growth_steps=10)
    ours = kg.optimizers.deserialize(keras.optimizers.serialize(theirs))
    assert isinstance(ours, kg.mixed_precision.LossScaleOptimizer)
    assert ours.get_config().keys() == theirs.get_config().keys()
    assert float(ours.inner_optimizer.get_config()["learning_rate"]) == pytest.approx(0.5)
    again = kg.optimizers.deserialize(kg.optimizers.serialize(ours))
    assert again.get_config() == ours.get_config()
    with pytest.raises(ValueError, match="does not support `clipnorm`"):
        kg.optimizers.LossScaleOptimizer(kg.optimizers.SGD(), clipnorm=1.0)


def _float16_model(lib):
    x = lib.Input((3,))
    h = lib.layers.Dense(4, activation="tanh")(x)
    return lib.Model(x, lib.layers.Dense(1, dtype="float32")(h))


@pytest.fixture
def mixed_float16():
    keras.mixed_precision.set_global_policy("mixed_float16")
    kg.mixed_precision.set_global_policy("mixed_float16")
    yield
    keras.mixed_precision.set_global_policy("float32")
    kg.mixed_precision.set_global_policy("float32")


def test_mixed_float16_fit_scales_the_loss_as_keras(mixed_float16):
    """Targets 1e-5 apart give float16 gradients that underflow unscaled: with the
    scale, both Keras and kgraph train the first layer the same way."""
    x = _rng.normal(size=(16, 3)).astype("float32")
    y = (1e-5 * _rng.normal(size=(16, 1))).astype("float32")
    ours, theirs = _float16_model(kg), _float16_model(keras)
    ours.set_weights([np.asarray(w) * 1e-3 for w in theirs.get_weights()])
    theirs.set_weights(ours.get_weights())
    start = ours.get_weights()
    for model, lib in ((ours, kg), (theirs, keras)):
        model.compile(lib.optimizers.SGD(1.0), "mse")
        model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert isinstance(ours.optimizer, kg.optimizers.LossScaleOptimizer)
    assert float(ours.optimizer.dynamic_scale) == float(theirs.optimizer.dynamic_scale)
    assert not np.array_equal(ours.get_weights()[0], start[0])  # its gradients survived
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=2e-3, atol=1e-6)
    unscaled = _float16_model(kg)
    unscaled.set_weights(start)
    unscaled.compile(kg.optimizers.SGD(1.0), "mse", auto_scale_loss=False)
    unscaled.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert np.array_equal(unscaled.get_weights()[0], start[0])  # underflowed to zero
