"""Keras 3's auto config: a custom layer or model that does not override ``get_config``
takes its config from its constructor's plain arguments. Compared with Keras: the configs,
``.keras`` files and ``clone_model`` keeping those arguments (same predictions), and the
same refusal (NotImplementedError) for arguments that cannot make a config."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg

X = np.arange(6, dtype="float32").reshape(3, 2)


def _classes(lib):
    class Scale(lib.layers.Layer):
        def __init__(self, factor=1.0, sizes=(1, 2), mode=None, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

    class Shifted(lib.Model):
        def __init__(self, hidden=3, shift=0.5, **kwargs):
            super().__init__(**kwargs)
            self.dense = lib.layers.Dense(hidden)
            self.shift = shift

        def call(self, x):
            return self.dense(x) + self.shift

    class Holding(lib.layers.Layer):
        def __init__(self, table, **kwargs):
            super().__init__(**kwargs)
            self.table = table

        def call(self, x):
            return x

    class Variadic(lib.layers.Layer):
        def __init__(self, *sizes, **kwargs):
            super().__init__(**kwargs)

        def call(self, x):
            return x

    class Bare(lib.layers.Layer):
        def __init__(self, factor=2.0):
            super().__init__()
            self.factor = factor

    return Scale, Shifted, Holding, Variadic, Bare


def _plain_dtype(config):
    """A config with Keras's serialized dtype policy as its name (kgraph's form)."""
    dtype = config.get("dtype")
    if isinstance(dtype, dict):
        config = {**config, "dtype": dtype["config"]["name"]}
    return config


def test_configs_of_layers_and_models_without_get_config_equal_kerass():
    for make in (lambda scale, shifted, bare: scale(factor=10.0, mode="x", name="s"),
                 lambda scale, shifted, bare: scale(10, sizes=[3, 4], dtype="float16", name="t"),
                 lambda scale, shifted, bare: shifted(name="m"),
                 lambda scale, shifted, bare: bare(3.0)):
        configs = []
        for lib in (keras, kg):
            scale, shifted, _, _, bare = _classes(lib)
            configs.append(_plain_dtype(make(scale, shifted, bare).get_config()))
        assert configs[1] == configs[0]
    assert "name" not in configs[1]  # Bare's __init__ takes no name


@pytest.mark.parametrize("index, args", [(2, (np.zeros(2),)), (3, (1, 2))],
                         ids=["array_argument", "variadic_arguments"])
def test_arguments_that_cannot_make_a_config_are_refused_as_keras(index, args, tmp_path):
    messages = []
    for lib in (keras, kg):
        cls = _classes(lib)[index]
        with pytest.raises(NotImplementedError) as raised:
            cls(*args).get_config()
        messages.append(str(raised.value).split()[:12])  # "Object <name> was created by ..."
        x = lib.Input((2,))
        model = lib.Model(x, cls(*args)(x))
        with pytest.raises(NotImplementedError):
            model.save(str(tmp_path / f"{lib.__name__}.keras"))
    assert messages[1] == messages[0]


def test_files_and_clones_keep_the_arguments_as_keras(tmp_path):
    outputs = {}
    for lib in (keras, kg):
        scale = _classes(lib)[0]
        x = lib.Input((2,))
        model = lib.Model(x, scale(factor=10.0)(x))
        path = str(tmp_path / f"{lib.__name__}.keras")
        model.save(path)
        loaded = lib.saving.load_model(path, custom_objects={"Scale": scale})
        cloned = lib.models.clone_model(model)
        outputs[lib] = [m.predict(X, verbose=0) for m in (model, loaded, cloned)]
        assert loaded.layers[1].factor == cloned.layers[1].factor == 10.0
    for ours, theirs in zip(outputs[kg], outputs[keras]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    ours_in_keras = keras.saving.load_model(str(tmp_path / "kgraph.keras"),
                                            custom_objects={"Scale": _classes(keras)[0]})
    np.testing.assert_allclose(ours_in_keras.predict(X, verbose=0), outputs[keras][0])


def test_a_subclassed_model_without_get_config_reloads_with_its_arguments(tmp_path):
    """kgraph's reloaded model computes what Keras's model constructed alike computes (Keras's
    own ``Model.__new__`` records the defaults, not the arguments, so its file is not the
    oracle for arguments other than the defaults)."""
    theirs = _classes(keras)[1](hidden=4, shift=2.0)
    expected = theirs.predict(X, verbose=0)
    shifted = _classes(kg)[1]
    ours = shifted(hidden=4, shift=2.0)
    ours(X)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    assert ours.get_config() == {"name": ours.name, "hidden": 4, "shift": 2.0,
                                 "trainable": True,
                                 "dtype": keras.dtype_policies.serialize(
                                     keras.dtype_policies.DTypePolicy("float32"))}
    ours.save(str(tmp_path / "m.keras"))
    loaded = kg.saving.load_model(str(tmp_path / "m.keras"), custom_objects={"Shifted": shifted})
    assert loaded.shift == 2.0
    np.testing.assert_allclose(loaded.predict(X, verbose=0), expected, rtol=1e-6)
