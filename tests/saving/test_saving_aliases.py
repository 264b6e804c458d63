"""A layer reached by two paths of a model (an attribute and a property returning it) is
saved once, at its first path in Keras's order, and loads from a file holding it at the
other, as Keras's loader retries it there."""

import h5py
import keras
import numpy as np

import kgraph as kg


def _models(lib):
    class Normal(lib.Model):
        def __init__(self):
            super().__init__()
            self.dense = lib.layers.Dense(3)

        def call(self, x):
            return self.dense(x)

    class Aliased(lib.Model):
        def __init__(self):
            super().__init__()
            self.a_dense = lib.layers.Dense(3)

        @property
        def dense(self):
            return self.a_dense

        def call(self, x):
            return self.dense(x)

    return Normal, Aliased


def _datasets(path):
    with h5py.File(path) as f:
        found = []
        f.visit(lambda name: found.append(name) if isinstance(f[name], h5py.Dataset) else None)
        return sorted(found)


def test_a_layer_loads_from_another_path_reaching_it(tmp_path):
    normal_cls, aliased_cls = _models(kg)
    normal = normal_cls()
    normal(np.ones((2, 2), "float32"))
    normal.save_weights(tmp_path / "n.weights.h5")
    aliased = aliased_cls()
    aliased(np.ones((2, 2), "float32"))
    aliased.load_weights(tmp_path / "n.weights.h5")
    np.testing.assert_array_equal(aliased.dense.kernel, normal.dense.kernel)


def test_the_saved_paths_are_kerass(tmp_path):
    layouts = []
    for lib in (kg, keras):
        model = _models(lib)[1]()
        model(np.ones((2, 2), "float32"))
        model.save_weights(tmp_path / f"{lib.__name__}.weights.h5")
        layouts.append(_datasets(tmp_path / f"{lib.__name__}.weights.h5"))
    assert layouts[0] == layouts[1]
