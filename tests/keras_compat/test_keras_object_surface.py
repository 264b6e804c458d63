"""The public methods and attributes of kgraph's models and layers are Keras 3's: every
public name of a Keras instance exists on kgraph's comparable instance, except those
listed here with the reason (the list stays exact both ways). Keras is the oracle for
what they do: ``train_on_batch`` / ``test_on_batch`` / ``predict_on_batch`` interleaved
with ``fit`` and ``evaluate``, the metric results, compile's settings and config, build
configs and a layer's ``stateless_call``."""

from __future__ import annotations

import inspect
import warnings

import keras
import numpy as np
import pytest

import kgraph as kg

_TRAINER = "kgraph's jitted steps are made by runtime.Trainer on first use, not by the model"
_QUANTIZED = "quantized layers are kgraph.layers.quantized's (Model.quantize), not a call mode"
_MODEL = {
    "compute_loss_and_updates": "Keras's JAX trainer internal; kgraph's step is runtime's",
    "compute_metrics": "stateful metric updates: kgraph's metric states live in the train "
                       "state (stateless_compute_loss, train_step's metrics variables)",
    "get_quantization_layer_structure": "GPTQ/AWQ quantization is not offered",
    "jax_state_sync": "kgraph keeps one copy of the state (nothing to sync)",
    "make_train_function": _TRAINER, "make_test_function": _TRAINER,
    "make_predict_function": _TRAINER, "train_function": _TRAINER,
    "test_function": _TRAINER, "predict_function": _TRAINER,
}
_LAYER = {
    "quantized_call": _QUANTIZED,
    "symbolic_call": "symbolic calls go through Layer.__call__ (a Node per call)",
}
MISSING = {
    "model": {**_MODEL, **_LAYER},
    "sequential": {**_MODEL, **_LAYER},
    "dense": {"symbolic_call": _LAYER["symbolic_call"],  # quantized_call: Dense has it
              "variable_serialization_spec": "Keras's quantized-weight file layout"},
    "lstm": {**_LAYER, "inner_loop": "Keras's backend RNN loop"},
    "mha": dict(_LAYER),
}

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 3)).astype(np.float32)
Y = _rng.integers(0, 2, size=(8,)).astype(np.int32)
SW = _rng.uniform(0.2, 1.0, size=(8,)).astype(np.float32)


def _instances(lib) -> dict:
    x = lib.Input((3,))
    model = lib.Model(x, lib.layers.Dense(2)(x))
    model.compile(optimizer="sgd", loss="mse")
    sequential = lib.Sequential([lib.Input((3,)), lib.layers.Dense(2)])
    sequential.compile(optimizer="sgd", loss="mse")
    dense, lstm, mha = lib.layers.Dense(2), lib.layers.LSTM(2), lib.layers.MultiHeadAttention(2, 4)
    dense.build((None, 3))
    lstm.build((None, 4, 3))
    mha.build((None, 4, 3), (None, 4, 3))
    return dict(model=model, sequential=sequential, dense=dense, lstm=lstm, mha=mha)


@pytest.fixture(scope="module")
def instances():
    return {lib: _instances(lib) for lib in (keras, kg)}


def _public(obj) -> set:
    return {name for name in dir(obj) if not name.startswith("_")}


@pytest.mark.parametrize("kind", sorted(MISSING))
def test_surface_census(instances, kind):
    theirs, ours = instances[keras][kind], instances[kg][kind]
    missing = {name for name in _public(theirs) - _public(ours) if not hasattr(ours, name)}
    assert missing == set(MISSING[kind])


def _classifier(lib):
    x = lib.Input((3,))
    model = lib.Model(x, lib.layers.Dense(2, activation="softmax", name="probs")(x))
    model.compile(optimizer=lib.optimizers.Adam(0.05), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"], weighted_metrics=["accuracy"])
    return model


def _session(model) -> list:
    """Single-batch calls interleaved with evaluate and fit, and what each returns."""
    out = [model.train_on_batch(X, Y), model.train_on_batch(X, Y, return_dict=True),
           model.train_on_batch(X, Y, sample_weight=SW),
           model.train_on_batch(X, Y, class_weight={0: 1.0, 1: 3.0}, return_dict=True),
           model.evaluate(X, Y, verbose=0, return_dict=True), model.get_metrics_result()]
    model.fit(X, Y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    out += [model.get_metrics_result(), model.train_on_batch(X[:5], Y[:5]),
            model.test_on_batch(X, Y, sample_weight=SW),
            model.test_on_batch(X, Y, return_dict=True), model.get_metrics_result(),
            model.predict_on_batch(X)]
    model.reset_metrics()
    out += [model.get_metrics_result(), model.get_weights(), _optimizer_state(model)]
    return out


def _optimizer_state(model) -> dict:
    """The optimizer's variables (step, learning rate, moments) by name."""
    if isinstance(model, keras.Model):
        return {v.path.split("/")[-1]: np.asarray(v) for v in model.optimizer.variables}
    (variables,) = model.get_state_tree("numpy_array")["optimizer_variables"].values()
    return dict(variables)


def _as_numbers(value):
    if isinstance(value, dict):
        return {k: _as_numbers(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_numbers(v) for v in value]
    return np.asarray(value, np.float64)


def _assert_close(ours, theirs, where=""):
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs) or sorted(ours) == sorted(theirs), where
        for key in theirs:
            _assert_close(ours[key], theirs[key], f"{where}/{key}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _assert_close(a, b, f"{where}[{i}]")
    else:
        np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=1e-6, err_msg=where)


@pytest.fixture(scope="module")
def sessions():
    keras.utils.set_random_seed(3)
    theirs = _classifier(keras)
    ours = _classifier(kg)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _as_numbers(_session(ours)), _as_numbers(_session(theirs))


def test_on_batch_session_matches_keras(sessions):
    """Losses and metrics (list and dict forms, sample and class weights), evaluate, fit,
    the metric results, predictions, weights and the optimizer's state: Keras's."""
    ours, theirs = sessions
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        _assert_close(a, b, f"call {i}")


def test_train_on_batch_is_one_step_of_fit():
    """train_on_batch on a batch and fit on it (one batch, one epoch) leave the same
    weights and optimizer state: one step of the same program from the same state."""
    models = []
    for _ in range(2):
        x = kg.Input((3,))
        model = kg.Model(x, kg.layers.Dense(2, kernel_initializer="ones")(x))
        model.compile(optimizer="adam", loss="mse")
        models.append(model)
    targets = np.ones((8, 2), np.float32)
    for _ in range(2):
        models[0].train_on_batch(X, targets)
        models[1].fit(X, targets, batch_size=8, epochs=1, verbose=0, shuffle=False)
    _assert_close(_as_numbers(models[0].get_weights()), _as_numbers(models[1].get_weights()))
    _assert_close(*[_as_numbers(list(_optimizer_state(m).values())) for m in models])


def test_on_batch_with_own_compute_loss_matches_keras():
    """A model whose class computes its own loss: its own steps, Keras's numbers."""
    results = {}
    targets = np.ones((8, 2), np.float32)
    for lib in (kg, keras):
        class Doubled(lib.Model):
            def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                             training=True):
                return lib.ops.mean((y - y_pred) ** 2) * 2.0

        x = lib.Input((3,))
        model = Doubled(x, lib.layers.Dense(2, kernel_initializer="ones")(x))
        model.compile(optimizer=lib.optimizers.SGD(0.1))
        out = [model.train_on_batch(X, targets), model.train_on_batch(X, targets, return_dict=True),
               model.test_on_batch(X, targets), model.get_metrics_result(),
               model.evaluate(X, targets, verbose=0), model.get_metrics_result(),
               model.predict_on_batch(X), model.get_weights()]
        model.reset_metrics()
        results[lib] = _as_numbers([*out, model.get_metrics_result()])
    _assert_close(results[kg], results[keras])


def test_on_batch_errors():
    x = kg.Input((3,))
    model = kg.Model(x, kg.layers.Dense(2)(x))
    with pytest.raises(RuntimeError, match="compile"):
        model.train_on_batch(X, Y)
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match="cannot be specified at the same time"):
        model.train_on_batch(X, Y, sample_weight=SW, class_weight={0: 1.0, 1: 2.0})


def _compiled_pair(**options):
    made = {}
    for lib in (keras, kg):
        x = lib.Input((3,))
        model = lib.Model(x, lib.layers.Dense(2, name="out")(x))
        made[lib] = model
        model.compile(optimizer=lib.optimizers.SGD(0.1), loss="mse", metrics=["mae"],
                          **options)
    return made


def test_compile_settings_and_config_match_keras():
    for options in ({}, {"steps_per_execution": 3, "run_eagerly": True, "jit_compile": False}):
        made = _compiled_pair(**options)
        theirs, ours = made[keras], made[kg]
        for name in ("compiled", "loss", "run_eagerly", "jit_compile", "steps_per_execution",
                     "output_names"):
            assert getattr(ours, name) == getattr(theirs, name), name
        config, expected = ours.get_compile_config(), theirs.get_compile_config()
        assert sorted(config) == sorted(expected)
        for key in ("loss", "loss_weights", "run_eagerly", "steps_per_execution",
                    "jit_compile", "metrics", "weighted_metrics"):
            assert config[key] == expected[key], key
        assert config["optimizer"]["class_name"] == expected["optimizer"]["class_name"]
        x = kg.Input((3,))
        fresh = kg.Model(x, kg.layers.Dense(2)(x))
        assert not fresh.compiled and fresh.get_compile_config() == {}
        fresh.compile_from_config(config)
        assert fresh.compiled and fresh.get_compile_config() == config


def test_build_config_matches_keras(instances):
    for kind in ("model", "sequential", "dense", "lstm", "mha"):
        ours, theirs = instances[kg][kind], instances[keras][kind]
        assert ours.get_build_config() == theirs.get_build_config(), kind
    for lib in (kg, keras):
        layer = lib.layers.MultiHeadAttention(2, 4)
        layer.build_from_config(instances[lib]["mha"].get_build_config())
        assert layer.built
        assert [tuple(w.shape) for w in layer.weights] == [
            tuple(w.shape) for w in instances[lib]["mha"].weights]


def test_layer_attributes_match_keras(instances):
    for kind in ("model", "dense", "lstm", "mha"):
        ours, theirs = instances[kg][kind], instances[keras][kind]
        assert (ours.input_dtype, ours.supports_jit) == (theirs.input_dtype, theirs.supports_jit)
        if kind != "model":
            assert ours.metrics == [] and theirs.metrics == []
    for lib in (kg, keras):
        dense = instances[lib]["dense"]
        assert dense.path == dense.name and dense.weights[0].path == f"{dense.path}/kernel"
    assert instances[kg]["lstm"].call_signature_parameters == \
        instances[keras]["lstm"].call_signature_parameters
    assert kg.layers.Dense(2).path is None and keras.layers.Dense(2).path is None
    assert (list(inspect.signature(kg.layers.Layer.add_variable).parameters)
            == list(inspect.signature(keras.layers.Layer.add_variable).parameters))
    with pytest.raises(NotImplementedError, match="compile"):
        instances[kg]["dense"].add_metric(1.0)


def test_layer_metrics_and_add_variable_match_keras():
    counts = {}
    for lib in (kg, keras):
        class Tracked(lib.layers.Layer):
            def __init__(self):
                super().__init__()
                self.tracker = lib.metrics.Mean(name="tracked")

            def build(self, input_shape):
                self.scale = self.add_variable((input_shape[-1],), "ones", name="scale")

            def call(self, inputs):
                return inputs * self.scale

        layer = Tracked()
        layer.build((None, 3))
        counts[lib] = ([m.name for m in layer.metrics], len(layer.metrics_variables),
                       [(w.name, tuple(w.shape)) for w in layer.weights])
    assert counts[kg] == counts[keras]


def test_layer_stateless_call_matches_keras():
    data = _rng.normal(size=(6, 3)).astype(np.float32)
    results = {}
    for lib in (kg, keras):
        dense, norm = lib.layers.Dense(2), lib.layers.BatchNormalization()
        dense.build((None, 3))
        norm.build((None, 3))
        kernel = np.arange(6, dtype=np.float32).reshape(3, 2) / 10
        out, non_trainable = dense.stateless_call([kernel, np.ones(2, np.float32)], [], data)
        gamma_beta = [np.full(3, 2.0, np.float32), np.full(3, 0.5, np.float32)]
        stats = [np.zeros(3, np.float32), np.ones(3, np.float32)]
        normed, new_stats = norm.stateless_call(gamma_beta, stats, data, training=True)
        results[lib] = _as_numbers([out, non_trainable, normed, new_stats,
                                    np.asarray(dense.kernel)])
        assert not np.allclose(results[lib][-1], kernel)  # the layer's own weight untouched
    _assert_close(results[kg][:4], results[keras][:4])


def test_a_layers_weights_are_listed_as_kerass_made_trainable_first():
    """Keras lists the weights made trainable first, then the others, each in making order
    (freezing one later does not move it): ``get_weights`` / ``set_weights`` and files
    follow that order."""
    for lib in (kg, keras):
        class Counter(lib.layers.Layer):
            def build(self, input_shape):
                self.count = self.add_weight((), "zeros", trainable=False, name="count")
                self.w = self.add_weight((input_shape[-1], 2), "ones", name="w")
                self.b = self.add_weight((2,), "zeros", name="b")

            def call(self, x):
                return x @ self.w + self.b

        layer = Counter(name="counter")
        layer(np.ones((1, 3), "float32"))
        layer.w.trainable = False
        names = [w.name for w in layer.weights]
        assert names == ["w", "b", "count"], lib
        store = {}
        layer.save_own_variables(store)
        assert [store[str(i)].shape for i in range(3)] == [(3, 2), (2,), ()]
