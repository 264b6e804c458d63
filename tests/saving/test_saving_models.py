"""Whole models in Keras 3's files: graph-depth numbering, nested and shared layers, ops,
masks, Sequential, trained statistics; weights files both ways; atomic writes."""

import os

import h5py
import jax
import keras
import numpy as np
import pytest

import kgraph as kg
from kgraph import layers
from kgraph.saving import archive, keras_layout


def _randomize(model, seed=0):
    rng = np.random.default_rng(seed)
    for variable in model.weights:
        if np.issubdtype(variable.dtype, np.floating):
            variable.assign(rng.uniform(0.5, 1.5, variable.shape).astype(variable.dtype))


def _leaves(outputs):
    return [np.asarray(o, np.float64) for o in jax.tree_util.tree_leaves(outputs)]


def _normalized_error(got, want):
    return max(float(np.max(np.abs(g - w))) / max(float(np.max(np.abs(w))), 1.0)
               for g, w in zip(_leaves(got), _leaves(want)))


def _datasets(path):
    """``{dataset path: shape}`` and ``{vars group: name attribute}`` of a weights file."""
    import io
    import zipfile

    source = io.BytesIO(zipfile.ZipFile(path).read(archive.WEIGHTS)) \
        if path.endswith(".keras") else path
    shapes, names = {}, {}
    with h5py.File(source, "r") as file:
        def visit(name, obj):
            if name.startswith("optimizer"):
                return  # Keras writes a compiled model's optimizer state; kgraph does not
            if isinstance(obj, h5py.Dataset):
                shapes[name] = obj.shape
            elif name.endswith("vars") and len(obj):
                names[name] = obj.attrs["name"]
        file.visititems(visit)
    return shapes, names


def _both_ways(model, inputs, tmp_path):
    """kgraph -> kgraph bitwise, kgraph -> Keras, Keras -> kgraph; the same weights file."""
    reference = model(inputs)
    ours = str(tmp_path / "kgraph.keras")
    model.save(ours)
    back = kg.load_model(ours)
    for a, b in zip(_leaves(back(inputs)), _leaves(reference)):
        np.testing.assert_array_equal(a, b)
    keras_model = keras.saving.load_model(ours)
    assert _normalized_error(keras_model(inputs), reference) <= 1e-5
    theirs = str(tmp_path / "keras.keras")
    keras_model.save(theirs)
    assert _datasets(ours) == _datasets(theirs)
    imported = kg.load_model(theirs)
    assert _normalized_error(imported(inputs), reference) <= 1e-5
    return back, keras_model, imported


def test_same_shape_layers_are_numbered_by_graph_depth_as_keras_rebuilds_them(tmp_path):
    x = kg.Input(shape=(4,), name="x")
    late, early, side = (layers.Dense(4, name=n) for n in ("late", "early", "side"))
    y = layers.Add()([late(early(x)), side(x)])  # made: late, early, side; depth: early first
    model = kg.Model(x, y)
    _randomize(model)
    order = [layer.name for layer in keras_layout.depth_ordered_layers(model)]
    assert order == ["x", "early", "late", "side", "add"]
    shapes, names = _datasets_after_save(model, tmp_path)
    assert names == {"layers/dense/vars": "early", "layers/dense_1/vars": "late",
                     "layers/dense_2/vars": "side"}
    _both_ways(model, np.random.default_rng(1).normal(size=(3, 4)).astype("float32"), tmp_path)


def _datasets_after_save(model, tmp_path):
    path = str(tmp_path / "layout.keras")
    model.save(path)
    return _datasets(path)


def _nested(share_across_levels):
    inner_in = kg.Input(shape=(6,), name="inner_in")
    shared = layers.Dense(6, activation="tanh", name="shared")
    inner = kg.Model(inner_in, layers.Dense(3, name="inner_out")(shared(inner_in)),
                     name="encoder")
    a, b = kg.Input(shape=(6,), name="a"), kg.Input(shape=(6,), name="b")
    twice = layers.Dense(6, name="twice")  # one layer called on both inputs
    ea = inner(twice(a))
    eb = inner(shared(b) if share_across_levels else twice(b))
    merged = layers.Concatenate()([ea, eb])
    model = kg.Model({"a": a, "b": b}, {"sum": layers.Dense(2, name="head")(merged),
                                        "raw": ea}, name="outer")
    _randomize(model)
    rng = np.random.default_rng(2)
    inputs = {"a": rng.normal(size=(2, 6)).astype("float32"),
              "b": rng.normal(size=(2, 6)).astype("float32")}
    return model, inputs


def test_nested_models_shared_layers_and_dict_outputs(tmp_path):
    model, inputs = _nested(share_across_levels=False)
    shapes, _ = _datasets_after_save(model, tmp_path)
    assert "layers/functional/layers/dense/vars/0" in shapes  # nested models recurse
    _both_ways(model, inputs, tmp_path)


def test_a_layer_shared_across_nesting_levels_round_trips_in_kgraph(tmp_path):
    # Keras 3.15 cannot rebuild this graph from its own file ("not connected to inputs").
    model, inputs = _nested(share_across_levels=True)
    model.save(str(tmp_path / "m.keras"))
    back = kg.load_model(str(tmp_path / "m.keras"))
    for a, b in zip(_leaves(back(inputs)), _leaves(model(inputs))):
        np.testing.assert_array_equal(a, b)


def test_masks_ops_recurrent_and_attention(tmp_path):
    x = kg.Input(shape=(5,), name="x")
    t = kg.Input(shape=(4,), dtype="int32", name="tok")
    h = layers.BatchNormalization()(layers.Dense(4, name="d1")(x))
    y = layers.Dense(2)(h) * 2 + 1
    e = layers.Embedding(10, 3, mask_zero=True)(t)
    mask = kg.ops.logical_or(kg.ops.not_equal(t, 0), kg.ops.equal(t, 3))
    recurrent = layers.GRU(3)(layers.LSTM(3, return_sequences=True)(e, mask=mask))
    attention = layers.MultiHeadAttention(2, 4)(e, e)
    z = layers.Concatenate()([y, recurrent, kg.ops.cast(attention[:, 0, :], "float32")])
    model = kg.Model([x, t], z)
    _randomize(model)
    rng = np.random.default_rng(3)
    tokens = rng.integers(0, 10, (3, 4)).astype("int32")
    tokens[:, -1] = 0  # padding the masks must hide
    _both_ways(model, [rng.normal(size=(3, 5)).astype("float32"), tokens], tmp_path)


def test_sequential_trained_with_fit_keeps_its_statistics(tmp_path):
    model = kg.Sequential([kg.Input(shape=(3,)), layers.Dense(8, activation="relu"),
                           layers.BatchNormalization(), layers.Dropout(0.5), layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(4)
    data = rng.normal(size=(64, 3)).astype("float32")
    model.fit(data, data.sum(1, keepdims=True), epochs=2, batch_size=16, verbose=0)
    moving_mean = model.layers[1].moving_mean
    assert float(np.abs(np.asarray(moving_mean)).sum()) > 0  # trained statistics
    back, _, imported = _both_ways(model, data[:5], tmp_path)
    np.testing.assert_array_equal(back.layers[1].moving_mean, moving_mean)
    assert _datasets(str(tmp_path / "kgraph.keras"))[0]["layers/batch_normalization/vars/2"] \
        == (8,)  # Sequential: no input layer group, Keras's numbering


def test_weights_files_both_ways_and_refusal_of_another_model(tmp_path):
    x = kg.Input(shape=(3,))
    model = kg.Model(x, layers.Dense(2)(layers.Dense(4, activation="relu")(x)))
    _randomize(model, 5)
    path = str(tmp_path / "model.weights.h5")
    model.save_weights(path)
    model.save(str(tmp_path / "model.keras"))
    keras_model = keras.saving.load_model(str(tmp_path / "model.keras"))
    keras_model.load_weights(path)
    for a, b in zip(keras_model.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)
    for variable in keras_model.weights:
        variable.assign(np.asarray(variable) * 2)
    keras_path = str(tmp_path / "keras.weights.h5")
    keras_model.save_weights(keras_path)
    model.load_weights(keras_path)
    for a, b in zip(model.get_weights(), keras_model.get_weights()):
        np.testing.assert_array_equal(a, b)
    model.load_weights(str(tmp_path / "model.keras"))  # the weights of a .keras file
    other = kg.Model(x, layers.Dense(2)(layers.Dense(5)(x)))
    with pytest.raises(kg.saving.LoadError, match=r"layers/dense/vars/0.*float32 of shape "
                                                  r"\(3, 4\).*expects float32 of shape \(3, 5\)"):
        other.load_weights(path)
    with pytest.raises(ValueError, match=r"The filename must end in `\.weights\.h5`\. "
                                         r"Received: filepath=.*model\.h5$"):
        model.save_weights(str(tmp_path / "model.h5"))


def test_safetensors_pytrees_round_trip_with_bfloat16_and_prng_keys(tmp_path):
    import compiler

    params = {"dense": {"kernel": jax.numpy.arange(6.0, dtype="bfloat16").reshape(2, 3)},
              "encoder": {"dense": {"bias": jax.numpy.ones(3)}}}
    state = {"noise": {"seed": jax.random.key(7)}, "bn": {"count": jax.numpy.int32(3)}}
    path = str(tmp_path / "w.safetensors")
    compiler.save_safetensors(path, params, state)
    new_params, new_state = compiler.load_safetensors(path)
    assert jax.tree_util.tree_structure(new_params) == jax.tree_util.tree_structure(params)
    assert new_params["dense"]["kernel"].dtype == jax.numpy.bfloat16
    np.testing.assert_array_equal(np.asarray(new_params["dense"]["kernel"], np.float32),
                                  np.arange(6.0).reshape(2, 3))
    assert jax.numpy.array_equal(jax.random.key_data(new_state["noise"]["seed"]),
                                 jax.random.key_data(state["noise"]["seed"]))
    assert int(new_state["bn"]["count"]) == 3

    x = kg.Input(shape=(3,))
    model = kg.Model(x, layers.BatchNormalization()(layers.Dense(2)(x)))
    _randomize(model, 6)
    model.save_weights(str(tmp_path / "m.safetensors"))
    clone = kg.models.clone_model(model)
    clone.load_weights(str(tmp_path / "m.safetensors"))
    for a, b in zip(clone.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)
    loaded_params, loaded_state = compiler.load_safetensors(str(tmp_path / "m.safetensors"))
    assert set(loaded_state[model.layers[2].name]) == {"moving_mean", "moving_variance"}
    smaller = kg.Model(x, layers.Dense(2)(x))  # the file holds weights it does not have
    with pytest.raises(kg.saving.LoadError, match="entries that are not weights of the model"):
        smaller.load_weights(str(tmp_path / "m.safetensors"))


def test_an_interrupted_save_leaves_the_previous_file_whole(tmp_path, monkeypatch):
    x = kg.Input(shape=(3,))
    model = kg.Model(x, layers.Dense(2)(x))
    path = tmp_path / "model.keras"
    model.save(str(path))
    before = path.read_bytes()

    def fail(*args, **kwargs):
        raise KeyboardInterrupt  # the user pressing Ctrl-C mid-write

    monkeypatch.setattr("zipfile.ZipFile.writestr", fail)
    _randomize(model, 7)
    with pytest.raises(KeyboardInterrupt):
        model.save(str(path))
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["model.keras"]  # no temporary file left


def test_training_configuration_travels_both_ways(tmp_path):
    x = kg.Input(shape=(3,))
    model = kg.Model(x, layers.Dense(2, activation="softmax")(x))
    model.compile(optimizer=kg.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy", kg.metrics.AUC(num_thresholds=50)])
    model.save(str(tmp_path / "m.keras"))
    back = kg.load_model(str(tmp_path / "m.keras"))
    assert isinstance(back.optimizer, kg.optimizers.Adam)
    # learning_rate is a Variable, as Keras's (compared elementwise): read as a float
    assert float(back.optimizer.learning_rate) == pytest.approx(0.01)
    assert back.metrics_names == model.metrics_names
    assert kg.load_model(str(tmp_path / "m.keras"), compile=False).optimizer is None
    keras_model = keras.saving.load_model(str(tmp_path / "m.keras"))
    assert float(keras_model.optimizer.learning_rate) == pytest.approx(0.01)

    theirs = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    theirs.compile(optimizer=keras.optimizers.RMSprop(0.02), loss=keras.losses.MeanSquaredError(),
                   metrics=["mae", keras.metrics.RootMeanSquaredError()])
    theirs.save(str(tmp_path / "k.keras"))
    imported = kg.load_model(str(tmp_path / "k.keras"))
    assert isinstance(imported.optimizer, kg.optimizers.RMSprop)
    assert float(imported.optimizer.learning_rate) == pytest.approx(0.02)
    history = imported.fit(np.ones((8, 3), "float32"), np.ones((8, 2), "float32"), verbose=0)
    assert {"loss", "mae", "root_mean_squared_error"} <= set(history.history)


def test_a_model_compiled_with_optax_saves_without_training_configuration(tmp_path):
    import optax

    x = kg.Input(shape=(3,))
    model = kg.Model(x, layers.Dense(2)(x))
    model.compile(optimizer=optax.sgd(0.1), loss="mse")
    with pytest.warns(UserWarning, match="optax transformation.*no training configuration"):
        model.save(str(tmp_path / "m.keras"))
    assert kg.load_model(str(tmp_path / "m.keras")).optimizer is None


_SAVER = r"""
import sys
import numpy as np
import kgraph as kg

x = kg.Input(shape=(64,))
model = kg.Model(x, kg.layers.Dense(256)(kg.layers.Dense(256)(x)))
print("ready", flush=True)
step = 0
while True:
    for weight in model.weights:
        weight.assign(np.full(weight.shape, step, weight.dtype))
    model.save(sys.argv[1])
    step += 1
"""


def test_a_process_killed_while_saving_leaves_a_whole_file(tmp_path):
    import subprocess
    import sys
    import time

    path = tmp_path / "model.keras"
    x = kg.Input(shape=(64,))
    first = kg.Model(x, layers.Dense(256)(layers.Dense(256)(x)))
    for weight in first.weights:
        weight.assign(np.full(weight.shape, -1, weight.dtype))
    first.save(str(path))  # the good file a killed save must not spoil
    for delay in (0.05, 0.3, 0.6):
        child = subprocess.Popen([sys.executable, "-c", _SAVER, str(path)],
                                 stdout=subprocess.PIPE,
                                 cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
        assert child.stdout.readline().strip() == b"ready"
        time.sleep(delay)
        child.kill()  # SIGKILL: no cleanup runs
        child.wait()
        child.stdout.close()
        model = kg.load_model(str(path))  # the last complete save, never a torn one
        steps = {float(np.asarray(w).flat[0]) for w in model.get_weights()}
        assert len(steps) == 1  # every weight from the same save


@kg.saving.register_layer(package="tests")
class _Subclassed(kg.Model):
    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.hidden = layers.Dense(8, activation="relu")
        self.head = layers.Dense(units)

    def call(self, x):
        return self.head(self.hidden(x))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_a_subclassed_model_saves_its_weights_under_its_attributes(tmp_path):
    model = _Subclassed()
    inputs = np.random.default_rng(8).normal(size=(2, 4)).astype("float32")
    reference = np.asarray(model(inputs))
    model.save(str(tmp_path / "sub.keras"))
    shapes, _ = _datasets(str(tmp_path / "sub.keras"))
    assert shapes == {"hidden/vars/0": (4, 8), "hidden/vars/1": (8,),
                      "head/vars/0": (8, 3), "head/vars/1": (3,)}  # as Keras walks attributes
    back = kg.load_model(str(tmp_path / "sub.keras"))  # built from its traced input shape
    assert isinstance(back, _Subclassed)
    np.testing.assert_array_equal(np.asarray(back(inputs)), reference)


@pytest.mark.parametrize("adapted", [True, False])
def test_normalization_statistics_from_a_keras_file(adapted, tmp_path):
    # EfficientNet's first layers: Rescaling, then a Normalization adapted (or, with
    # weights=None, never adapted: its zero-count statistics are still the file's)
    x = keras.Input((4,))
    norm = keras.layers.Normalization()
    if adapted:
        norm.adapt(np.random.default_rng(9).normal(3.0, 2.0, (50, 4)).astype("float32"))
    theirs = keras.Model(x, norm(keras.layers.Rescaling(0.5)(x)))
    theirs.save(str(tmp_path / "norm.keras"))
    inputs = np.random.default_rng(10).normal(size=(3, 4)).astype("float32")
    ours = kg.load_model(str(tmp_path / "norm.keras"))
    np.testing.assert_allclose(ours(inputs), theirs(inputs), rtol=1e-5, atol=1e-6)


def test_a_keras_model_never_compiled_loads_quietly_and_uncompiled(tmp_path):
    inputs = keras.Input(shape=(3,))
    path = str(tmp_path / "plain.keras")
    keras.Model(inputs, keras.layers.Dense(2)(inputs)).save(path)  # compile_config: {}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = kg.load_model(path)
    with pytest.raises(RuntimeError, match="must call model.compile"):
        model.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)


def test_kgraphs_own_compile_options_are_said_not_to_be_stored(tmp_path):
    x = kg.Input((2,))
    model = kg.Model(x, kg.layers.Dense(1)(x))
    model.compile("sgd", "mse", precision="mixed_bfloat16", scan_blocks=False, seed=3)
    with pytest.warns(UserWarning, match="precision='mixed_bfloat16', scan_blocks=False, "
                                         "seed=3 are not stored"):
        model.save(tmp_path / "m.keras")
