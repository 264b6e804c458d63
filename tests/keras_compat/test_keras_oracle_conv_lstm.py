"""ConvLSTM1D/2D/3D: Keras's outputs and states with Keras's weights, configs, training."""


import jax
import keras
import numpy as np
import pytest

import kgraph as kg

CASES = [
    ("ConvLSTM1D", (4, 9, 3), dict(filters=3, kernel_size=3)),
    ("ConvLSTM2D", (3, 6, 6, 2), dict(filters=2, kernel_size=3, padding="same",
                                      return_sequences=True)),
    ("ConvLSTM2D", (3, 7, 7, 2), dict(filters=2, kernel_size=(3, 2), strides=2,
                                      return_state=True, go_backwards=True)),
    ("ConvLSTM2D", (3, 2, 6, 6), dict(filters=2, kernel_size=3, data_format="channels_first",
                                      activation="relu", unit_forget_bias=False)),
    ("ConvLSTM3D", (2, 4, 4, 4, 1), dict(filters=2, kernel_size=2, dilation_rate=2,
                                         padding="same")),
]


@pytest.mark.parametrize("name, shape, kwargs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_conv_lstm_matches_keras(name, shape, kwargs):
    ours = getattr(kg.layers, name)(**kwargs)
    theirs = getattr(keras.layers, name)(**kwargs)
    x = np.random.default_rng(0).normal(size=(2, *shape)).astype("float32")
    theirs(x)
    ours(x)
    assert [w.shape for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    ours.set_weights([np.asarray(w) for w in theirs.weights])
    got, want = ours(x), theirs(x)
    got, want = (got, want) if kwargs.get("return_state") else ([got], [want])
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)
    config = theirs.get_config()
    rebuilt = getattr(kg.layers, name).from_config(config)
    assert rebuilt.get_config()["filters"] == config["filters"]
    assert tuple(rebuilt.get_config()["kernel_size"]) == tuple(config["kernel_size"])


def test_conv_lstm_initial_values_differ_between_layers_and_unit_forget_bias():
    x = kg.Input(shape=(3, 5, 5, 1))
    a = kg.layers.ConvLSTM2D(2, 3, name="a")
    b = kg.layers.ConvLSTM2D(2, 3, name="b")
    kg.Model(x, [a(x), b(x)])
    assert not np.allclose(a.get_weights()[0], b.get_weights()[0])
    np.testing.assert_array_equal(a.get_weights()[2], [0, 0, 1, 1, 0, 0, 0, 0])


def test_conv_lstm_trains_with_dropout_in_fit_and_is_keyed():
    x = kg.Input(shape=(3, 5, 5, 1))
    y = kg.layers.GlobalAveragePooling2D()(kg.layers.ConvLSTM2D(
        2, 3, dropout=0.3, recurrent_dropout=0.3, padding="same")(x))
    model = kg.Model(x, y)
    import compiler

    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    data = np.ones((2, 3, 5, 5, 1), np.float32)
    run = lambda key: program.apply(params, state, data, training=True, key=key)[0]  # noqa
    np.testing.assert_array_equal(run(jax.random.PRNGKey(1)), run(jax.random.PRNGKey(1)))
    assert not np.allclose(run(jax.random.PRNGKey(1)), run(jax.random.PRNGKey(2)))
    model.compile(optimizer="adam", loss="mse")
    history = model.fit(data, np.ones((2, 2), np.float32), epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()


def test_conv_lstm_rejects_unknown_spatial_size():
    with pytest.raises(ValueError, match="static input shapes"):
        kg.layers.ConvLSTM2D(2, 3)(kg.Input(shape=(3, None, 5, 1)))
