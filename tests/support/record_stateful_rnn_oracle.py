"""Record Keras 3's ``predict`` / ``evaluate`` / ``fit`` of a model with stateful RNNs.

Keras on JAX keeps a stateful RNN's states out of the variables its compiled steps carry,
so its ``predict``, ``evaluate`` and ``fit`` start every batch from the same states; on
TensorFlow (and PyTorch) the states carry from batch to batch and epoch to epoch, as
Keras documents ``stateful``. These numbers are recorded on TensorFlow (tensorflow-cpu 2.21,
keras 3.15.1)::

    KERAS_BACKEND=tensorflow python tests/support/record_stateful_rnn_oracle.py \\
        tests/keras_compat/stateful_rnn_oracle.json

``build(lib)`` makes the model with ``lib`` (``keras`` or ``kgraph``) and sets the weights
``weights(model)`` gives, so the test builds the same model; the JSON holds what Keras gave.
"""

import json
import sys

import numpy as np

BATCH = 2


def data():
    """``(x, y, x_val, y_val)``: three batches to train on, two to validate on."""
    rng = np.random.RandomState(0)
    x = rng.normal(size=(6, 4, 3)).astype("float32")
    y = rng.normal(size=(6, 1)).astype("float32")
    x_val = rng.normal(size=(4, 4, 3)).astype("float32")
    y_val = rng.normal(size=(4, 1)).astype("float32")
    return x, y, x_val, y_val


def build(lib):
    """Input (batch 2, 4 steps, 3 features) -> stateful LSTM(4) sequences -> stateful
    GRU(3) -> Dense(1), weights drawn from a fixed NumPy seed, compiled with SGD(0.1) and
    mean squared error."""
    inputs = lib.Input(batch_shape=(BATCH, 4, 3))
    h = lib.layers.LSTM(4, stateful=True, return_sequences=True, name="lstm")(inputs)
    h = lib.layers.GRU(3, stateful=True, name="gru")(h)
    model = lib.Model(inputs, lib.layers.Dense(1, name="out")(h))
    rng = np.random.RandomState(1)
    model.set_weights([0.4 * rng.normal(size=w.shape).astype("float32")
                       for w in model.get_weights()])
    model.compile(optimizer=lib.optimizers.SGD(learning_rate=0.1), loss="mse")
    return model


def states(model) -> list:
    """Every stateful layer's states, in layer order."""
    return [np.asarray(v).tolist() for name in ("lstm", "gru")
            for v in model.get_layer(name).states]


def reset(model) -> None:
    for name in ("lstm", "gru"):
        model.get_layer(name).reset_states()


def record(model_builder) -> dict:
    x, y, x_val, y_val = data()
    model = model_builder()
    out = {"predict": model.predict(x, batch_size=BATCH, verbose=0).tolist(),
           "states_after_predict": states(model)}
    out["evaluate"] = float(model.evaluate(x_val, y_val, batch_size=BATCH, verbose=0))
    out["states_after_evaluate"] = states(model)
    reset(model)
    history = model.fit(x, y, batch_size=BATCH, epochs=2, shuffle=False, verbose=0)
    out["fit"] = {"loss": history.history["loss"],
                  "weights": [w.tolist() for w in model.get_weights()],
                  "states": states(model)}
    model = model_builder()
    history = model.fit(x, y, batch_size=BATCH, epochs=2, shuffle=False, verbose=0,
                        validation_data=(x_val, y_val))
    out["fit_with_validation"] = {"loss": history.history["loss"],
                                  "val_loss": history.history["val_loss"],
                                  "weights": [w.tolist() for w in model.get_weights()],
                                  "states": states(model)}
    return out


if __name__ == "__main__":
    import keras

    result = record(lambda: build(keras))
    result["recorded_with"] = {"keras": keras.__version__, "backend": keras.backend.backend()}
    with open(sys.argv[1], "w") as f:
        json.dump(result, f)
