"""``keras.distribution`` objects on 8 simulated CPU devices, run by
tests/keras_compat/test_keras_distribution_objects.py in a subprocess (the device count is
fixed when JAX starts): what each distribution shows of itself (``distribution_surface``)
and a model built, compiled and trained inside ``with dist.scope():``, under Keras and
under kgraph. Prints one JSON object."""

from __future__ import annotations

import json
import os
import sys

os.environ["JAX_NUM_CPU_DEVICES"] = "8"
os.environ["KERAS_BACKEND"] = "jax"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _trained_in_scope(K, kind, initial, x, y):
    devices = K.distribution.list_devices()
    if kind == "data parallel":
        dist = K.distribution.DataParallel(devices=devices)
    else:
        layouts = K.distribution.LayoutMap(
            K.distribution.DeviceMesh((2, 4), ["batch", "model"], devices))
        layouts["up/kernel"] = (None, "model")
        layouts["up/bias"] = ("model",)
        dist = K.distribution.ModelParallel(layout_map=layouts)
    with dist.scope():
        inputs = K.Input(shape=(16,))
        hidden = K.layers.Dense(32, activation="relu", name="up")(inputs)
        model = K.Model(inputs, K.layers.Dense(8, name="down")(hidden))
        model.set_weights(initial)
        model.compile(optimizer=K.optimizers.SGD(0.05), loss="mse")
        history = model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    return {"loss": history.history["loss"], "after": K.distribution.distribution() is None,
            "weights": [__import__("numpy").asarray(w).tolist() for w in model.get_weights()]}


def main():
    import keras
    import numpy as np

    import kgraph as kg
    from tests.support.distribution_surface import surface

    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 16)).astype("float32")
    y = rng.normal(size=(64, 8)).astype("float32")
    inputs = keras.Input(shape=(16,))
    reference = keras.Model(inputs, keras.layers.Dense(8)(keras.layers.Dense(32)(inputs)))
    initial = [np.asarray(w) for w in reference.get_weights()]
    out = {"devices": len(kg.distribution.list_devices())}
    for name, K in (("keras", keras), ("kgraph", kg)):
        out[f"{name} surface"] = surface(K)
        for kind in ("data parallel", "model parallel"):
            out[f"{name} {kind}"] = _trained_in_scope(K, kind, initial, x, y)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
