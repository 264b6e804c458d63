"""keras.distribution on 8 simulated CPU devices, run by
tests/keras_compat/test_keras_distribution.py in a subprocess (the device count is fixed
when JAX starts). The same Keras code runs under Keras and under kgraph: on one device,
data parallel and model parallel. Prints one JSON object of measurements."""

from __future__ import annotations

import json
import os
import sys

os.environ["JAX_NUM_CPU_DEVICES"] = "8"
os.environ["KERAS_BACKEND"] = "jax"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _build(K):
    inputs = K.Input(shape=(16,))
    hidden = K.layers.Dense(32, activation="relu", name="up")(inputs)
    hidden = K.layers.Dense(32, activation="relu", name="mid")(hidden)
    model = K.Model(inputs, K.layers.Dense(8, name="down")(hidden))
    model.compile(optimizer=K.optimizers.SGD(0.05), loss="mse")
    return model


def _distribution(K, kind):
    devices = K.distribution.list_devices()
    if kind == "one device":
        return None
    if kind == "data parallel":
        return K.distribution.DataParallel(devices=devices)
    mesh = K.distribution.DeviceMesh((2, 4), ["batch", "model"], devices)
    layouts = K.distribution.LayoutMap(mesh)
    layouts["up/kernel"] = (None, "model")
    layouts["up/bias"] = ("model",)
    layouts["mid.*kernel"] = ("model", None)
    return K.distribution.ModelParallel(layout_map=layouts, batch_dim_name="batch")


def main():
    import keras
    import numpy as np

    import kgraph as kg

    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 16)).astype("float32")
    y = rng.normal(size=(64, 8)).astype("float32")
    keras.distribution.set_distribution(None)
    initial = [np.asarray(w) for w in _build(keras).get_weights()]
    out = {"devices": len(kg.distribution.list_devices())}
    for kind in ("one device", "data parallel", "model parallel"):
        for name, K in (("keras", keras), ("kgraph", kg)):
            K.distribution.set_distribution(_distribution(K, kind))
            model = _build(K)
            model.set_weights(initial)
            history = model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
            result = {"loss": history.history["loss"],
                      "weights": [np.asarray(w).tolist() for w in model.get_weights()]}
            if K is kg:
                kernel = model.get_layer("up").weights[0].value
                result["up_kernel_spec"] = str(getattr(kernel.sharding, "spec", None))
                result["up_kernel_devices"] = len(kernel.sharding.device_set)
            out[f"{name} {kind}"] = result
            K.distribution.set_distribution(None)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
