"""Where a subclassed model's layers sit in its weights file, compared with Keras: Keras
walks the model's attributes alphabetically and its ``layers`` list among them, so a layer
whose attribute sorts after ``layers`` (``out``, ``proj``, a nested model's ``tail``) is
stored as ``layers/<class>_<n>``. Files written by each library (``.weights.h5`` and
``.keras``) load into the other with equal predictions, and hold the same paths."""

from __future__ import annotations

import io

import h5py
import keras
import numpy as np

import kgraph as kg
from kgraph.saving import h5_weights, keras_layout

X = np.random.default_rng(0).normal(size=(4, 3)).astype("float32")


def _classes(lib):
    class Tail(lib.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.norm = lib.layers.LayerNormalization()
            self.z = lib.layers.Dense(2)

        def call(self, x):
            return self.z(self.norm(x))

    class Net(lib.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.body = lib.layers.Dense(4)
            self.blocks = [lib.layers.Dense(4), lib.layers.Dense(4)]
            self.out = lib.layers.Dense(3)
            self.proj = lib.layers.Dense(3)
            self.tail = Tail()

        def call(self, x):
            for block in self.blocks:
                x = block(x)
            return self.tail(self.proj(self.out(self.body(x))))

    return {"Net": Net, "Tail": Tail}


def _pair():
    """Keras's model (random weights) and kgraph's with Keras's weights."""
    theirs, ours = _classes(keras)["Net"](), _classes(kg)["Net"]()
    theirs(X), ours(X)
    rng = np.random.default_rng(1)
    for w in theirs.weights:
        w.assign(rng.normal(size=w.shape).astype("float32"))
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    return theirs, ours


def _datasets(source):
    found = []
    with h5py.File(source, "r") as file:
        file.visititems(lambda name, obj: found.append(name)
                        if isinstance(obj, h5py.Dataset) else None)
    return sorted(found)


def test_weights_files_hold_kerass_paths_and_load_both_ways(tmp_path):
    theirs, ours = _pair()
    expected = theirs.predict(X, verbose=0)
    theirs.save_weights(str(tmp_path / "keras.weights.h5"))
    ours.save_weights(str(tmp_path / "kgraph.weights.h5"))
    assert _datasets(tmp_path / "kgraph.weights.h5") == _datasets(tmp_path / "keras.weights.h5")
    assert "layers/dense_4/vars/0" in _datasets(tmp_path / "keras.weights.h5")  # proj
    fresh_ours, fresh_theirs = _classes(kg)["Net"](), _classes(keras)["Net"]()
    fresh_ours(X), fresh_theirs(X)
    fresh_ours.load_weights(str(tmp_path / "keras.weights.h5"))
    fresh_theirs.load_weights(str(tmp_path / "kgraph.weights.h5"))
    np.testing.assert_allclose(fresh_ours.predict(X, verbose=0), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fresh_theirs.predict(X, verbose=0), expected, rtol=1e-5,
                               atol=1e-6)


def test_keras_files_of_subclassed_models_load_both_ways(tmp_path):
    theirs, ours = _pair()
    expected = theirs.predict(X, verbose=0)
    theirs.save(str(tmp_path / "keras.keras"))
    ours.save(str(tmp_path / "kgraph.keras"))
    for path in ("keras.keras", "kgraph.keras"):
        for lib in (keras, kg):
            loaded = lib.saving.load_model(str(tmp_path / path), custom_objects=_classes(lib))
            np.testing.assert_allclose(loaded.predict(X, verbose=0), expected, rtol=1e-5,
                                       atol=1e-6, err_msg=f"{path} loaded by {lib.__name__}")


def test_files_of_kgraphs_earlier_layout_still_load_as_in_keras(tmp_path):
    """Files kgraph wrote before (each layer under its attribute): Keras reads them (it
    retries a layer missing from ``layers`` at its attribute), and so does kgraph."""
    theirs, ours = _pair()
    expected = theirs.predict(X, verbose=0)
    groups = []
    for group in keras_layout.weight_groups(ours, models_list_layers=False):
        store: dict = {}
        group.layer.save_own_variables(store)
        groups.append((group.path, group.name, [store[str(i)] for i in range(len(store))]))
    buffer = io.BytesIO()
    h5_weights.write(buffer, groups)
    path = tmp_path / "earlier.weights.h5"
    path.write_bytes(buffer.getvalue())
    assert "out/vars/0" in _datasets(path)
    for lib in (keras, kg):
        model = _classes(lib)["Net"]()
        model(X)
        model.load_weights(str(path))
        np.testing.assert_allclose(model.predict(X, verbose=0), expected, rtol=1e-5, atol=1e-6,
                                   err_msg=lib.__name__)
