"""The optimizer argument ``loss_scale_factor`` against Keras: the train step multiplies the
loss by it before taking the gradient, and the optimizer divides the gradients by it before
clipping, decay and its rule. Compared: the weights and logged losses after the same fit
from the same weights (a float16 model whose gradients would underflow unscaled; clipping
after the division), ``scale_loss``, and the config."""

import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(3)


def _fit(lib, optimizer, x, y, dtype=None, initializer="glorot_uniform", weights=None):
    inputs = lib.Input((3,))
    model = lib.Model(inputs, lib.layers.Dense(2, dtype=dtype, kernel_initializer=initializer,
                                               name="d")(inputs))
    if weights is not None:
        model.set_weights(weights)
    model.compile(optimizer, "mse", auto_scale_loss=False)
    history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    return model, history.history["loss"]


def test_a_float16_models_gradients_survive_as_in_keras():
    """Without the factor the float16 gradients underflow to zero (the kernel stays 0);
    with it, kgraph trains as Keras does."""
    x = (_rng.normal(size=(16, 3)) * 1e-5).astype("float32")
    y = (_rng.normal(size=(16, 2)) * 1e-3).astype("float32")
    results = []
    for lib in (keras, kg):
        for factor in (None, 4096.0):
            optimizer = lib.optimizers.SGD(1.0, loss_scale_factor=factor)
            results.append(_fit(lib, optimizer, x, y, "mixed_float16", "zeros"))
    (k_plain, _), (k_scaled, k_losses), (g_plain, _), (g_scaled, g_losses) = results
    assert not np.any(k_plain.get_weights()[0]) and not np.any(g_plain.get_weights()[0])
    assert np.any(k_scaled.get_weights()[0])
    for a, b in zip(g_scaled.get_weights(), k_scaled.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=0)
    np.testing.assert_allclose(g_losses, k_losses, rtol=1e-5)


@pytest.mark.parametrize("name, kwargs", [  # the scaled gradients would be clipped
    ("SGD", {"learning_rate": 0.01, "loss_scale_factor": 1024.0, "clipnorm": 5.0}),
    ("SGD", {"learning_rate": 0.01, "momentum": 0.9, "loss_scale_factor": 256.0,
             "global_clipnorm": 10.0, "weight_decay": 0.1}),
    ("Adam", {"learning_rate": 0.01, "loss_scale_factor": 3.0, "clipvalue": 2.0}),
])
def test_gradients_are_unscaled_before_clipping_as_in_keras(name, kwargs):
    x = _rng.normal(size=(16, 3)).astype("float32")
    y = _rng.normal(size=(16, 2)).astype("float32")
    start = [_rng.normal(size=(3, 2)).astype("float32"), np.zeros(2, "float32")]
    theirs, their_losses = _fit(keras, getattr(keras.optimizers, name)(**kwargs), x, y,
                                weights=start)
    ours, our_losses = _fit(kg, getattr(kg.optimizers, name)(**kwargs), x, y, weights=start)
    for a, b in zip(ours.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(our_losses, their_losses, rtol=1e-5)  # the loss unscaled


def test_scale_loss_and_config_as_kerass():
    ours, theirs = kg.optimizers.Adam(loss_scale_factor=8.0), keras.optimizers.Adam(
        loss_scale_factor=8.0)
    assert float(ours.scale_loss(np.float32(1.5))) == float(theirs.scale_loss(1.5)) == 12.0
    assert ours.get_config()["loss_scale_factor"] == theirs.get_config()["loss_scale_factor"]
    again = kg.optimizers.deserialize(kg.optimizers.serialize(ours))
    assert float(again.scale_loss(np.float32(2.0))) == 16.0
