"""``keras.name_scope``: the paths of variables made inside, as Keras's."""

import keras
import pytest

import kgraph as kg


def _paths(lib):
    paths = []
    with lib.name_scope("outer"):
        paths.append(lib.Variable(1.0, name="a").path)
        with lib.name_scope("inner"):
            paths.append(lib.Variable(1.0, name="b").path)
        with lib.name_scope("other", override_parent="root/base"):
            paths.append(lib.Variable(1.0, name="c").path)
        caller = object()
        with lib.name_scope("again", caller=caller):
            with lib.name_scope("again", caller=caller):  # the same caller: not re-entered
                paths.append(lib.Variable(1.0, name="d").path)
    paths.append(lib.Variable(1.0, name="e").path)
    return paths


def test_variable_paths_are_kerass():
    assert _paths(kg) == _paths(keras)
    with pytest.raises(ValueError, match="cannot contain character"):
        kg.name_scope("a/b")


def _layer_paths(lib, folder):
    """Weight and optimizer-variable paths of models built the ways Keras scopes them."""
    import numpy as np

    class Inner(lib.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.made_early = self.add_weight(shape=(1,), name="early")
            self.leaf = lib.layers.Dense(1, name="leaf")

        def build(self, shape):
            self.w = self.add_weight(shape=(1,), name="w")
            self.v = lib.Variable(np.zeros(1, "float32"), name="v")

        def call(self, x):
            return self.leaf(x) + self.w + self.v

    class Outer(lib.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.inner = Inner(name="inner")

        def call(self, x):
            return self.inner(x)

    class Sub(lib.Model):
        def __init__(self):
            super().__init__(name="sub")
            self.dense = lib.layers.Dense(2, name="dense")

        def build(self, shape):
            self.dense.build(shape)

        def call(self, x):
            return self.dense(x)

    paths = {}
    outer = Outer(name="outer")
    outer(np.ones((2, 3), "float32"))
    paths["nested"] = sorted({v.path for v in outer.weights})  # (Keras lists "w" twice)
    sub = Sub()
    sub.build((None, 3))
    sub.dense.enable_lora(2)  # after build, outside any scope: still under the model's
    paths["lora"] = [v.path for v in sub.weights]
    seq = lib.Sequential([lib.Input((3,)), lib.layers.Dense(2, name="d1"),
                          lib.layers.Dense(1, name="d2")], name="seq")
    seq.compile(lib.optimizers.Adam(name="adam"), "mse")
    seq.fit(np.ones((4, 3)), np.ones((4, 1)), verbose=0)
    paths["sequential"] = [v.path for v in seq.weights]
    paths["sequential_optimizer"] = [v.path for v in seq.optimizer.variables]
    seq.save(f"{folder}/seq.keras")
    loaded = lib.models.load_model(f"{folder}/seq.keras")
    paths["loaded"] = [v.path for v in loaded.weights]  # rebuilt outside the model's scope
    loaded.fit(np.ones((4, 3)), np.ones((4, 1)), verbose=0)
    paths["loaded_optimizer"] = [v.path for v in loaded.optimizer.variables]
    x = lib.Input((3,))
    nest = lib.Model(x, lib.Sequential([lib.layers.Dense(2, name="n")], name="s")(
        lib.layers.Dense(3, name="h")(x)), name="top")
    paths["functional"] = [v.path for v in nest.weights]
    return paths


def test_layer_weight_paths_are_kerass(tmp_path):
    (tmp_path / "keras").mkdir()
    (tmp_path / "kgraph").mkdir()
    assert _layer_paths(kg, tmp_path / "kgraph") == _layer_paths(keras, tmp_path / "keras")
    with pytest.raises(ValueError, match="cannot contain character `/`"):
        kg.layers.Dense(2, name="a/b")
