"""Quantized models ("int8", "int4") as Keras's beyond eager calls: compiled programs
(quantized arrays in ``state``), ``.keras`` and ``.weights.h5`` files both ways, and
training (only float weights train, through Keras's custom gradient)."""

import jax
import keras
import numpy as np
import pytest

import compiler
import kgraph as kg
from tests.keras_compat.test_keras_quantize_model import (IDS, RNG, _assert_same_variables,
                                                          _layers, _pair)


@pytest.mark.parametrize("mode, block_size", [("int4", 4)])
def test_compiled_program_runs_the_quantized_model(mode, block_size):
    theirs, ours = _pair(mode, block_size)
    reference = np.asarray(theirs(IDS))
    program = compiler.compile(ours)
    params, state = compiler.variables(ours)
    assert set(params) == {"dense", "heads", "inner"}  # the biases: trainable
    assert state["dense"]["kernel"].dtype == np.int8
    assert state["embed"]["embeddings"].dtype == np.int8
    assert "kernel" not in params["dense"] and "embed" not in params
    outputs, new_state = program.apply(params, state, IDS)
    np.testing.assert_array_equal(np.asarray(outputs), np.asarray(ours(IDS)))
    np.testing.assert_allclose(np.asarray(outputs), reference, rtol=1e-6, atol=1e-6)
    jitted, _ = jax.jit(program.apply)(params, state, IDS)
    np.testing.assert_allclose(np.asarray(jitted), reference, rtol=1e-6, atol=1e-6)
    fresh_params, fresh_state = program.init(jax.random.PRNGKey(1))
    if mode == "int4":  # group indices are made by their initializer, as Keras's
        np.testing.assert_array_equal(fresh_state["dense"]["g_idx"],
                                      state["dense"]["g_idx"])


@pytest.mark.parametrize("mode, block_size", [("int8", "default"), ("int4", "default")])
def test_files_both_ways(mode, block_size, tmp_path):
    theirs, ours = _pair(mode, block_size)
    reference = np.asarray(theirs(IDS))
    theirs.save(tmp_path / "keras.keras")
    ours.save(tmp_path / "kgraph.keras")
    loaded = kg.load_model(tmp_path / "keras.keras")
    _assert_same_variables(loaded, theirs)
    np.testing.assert_allclose(np.asarray(loaded(IDS)), reference, rtol=1e-6, atol=1e-6)
    outputs, _ = jax.jit(compiler.compile(loaded).apply)(*compiler.variables(loaded), IDS)
    np.testing.assert_allclose(np.asarray(outputs), reference, rtol=1e-6, atol=1e-6)
    for name, layer in _layers(theirs).items():
        if name in ("embed", "dense"):
            assert _layers(loaded)[name].get_config() == layer.get_config()
        if name in ("heads", "merge"):
            config = _layers(loaded)[name].get_config()
            for key in ("dtype", "quantization_config", "equation"):
                assert config[key] == layer.get_config()[key]
    keras_loaded = keras.saving.load_model(tmp_path / "kgraph.keras")
    _assert_same_variables(ours, keras_loaded)
    np.testing.assert_allclose(np.asarray(keras_loaded(IDS)), reference, rtol=1e-6, atol=1e-6)
    theirs.save_weights(tmp_path / "keras.weights.h5")
    ours.save_weights(tmp_path / "kgraph.weights.h5")
    fresh_theirs, fresh_ours = _pair(mode, block_size)
    fresh_ours.load_weights(tmp_path / "keras.weights.h5")
    fresh_theirs.load_weights(tmp_path / "kgraph.weights.h5")
    _assert_same_variables(fresh_ours, theirs)
    _assert_same_variables(ours, fresh_theirs)


def _trainable(lib):
    x = lib.Input((6,))
    h = lib.layers.Dense(8, activation="tanh", name="pre")(x)
    h = lib.layers.LayerNormalization(name="norm")(h)
    h = lib.layers.Dense(5, activation="relu", name="q")(h)
    return lib.Model(x, lib.layers.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="c",
                                               name="out")(h))


@pytest.mark.parametrize("mode, config", [("int8", None), ("int4", 4)])
def test_training_a_quantized_model_matches_keras(mode, config):
    """Only the float weights train; the inputs' gradient goes through the dequantized
    kernels (Keras's custom gradient), so the float layer before them trains as Keras's."""
    x = RNG.normal(size=(16, 6)).astype("float32")
    y = RNG.normal(size=(16, 3)).astype("float32")
    theirs, ours = _trainable(keras), _trainable(kg)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    for model, lib in ((theirs, keras), (ours, kg)):
        model.quantize(mode, filters=["^q$", "^out$"], config=None if config is None else
                       lib.quantizers.Int4QuantizationConfig(block_size=config))
        model.compile(optimizer=lib.optimizers.SGD(0.1), loss="mse")
    assert [w.path for w in ours.trainable_weights] == [w.path for w in theirs.trainable_weights]
    assert "pre/kernel" in [w.path for w in ours.trainable_weights]
    before = ours.get_weights()
    histories = [model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False).history
                 for model in (theirs, ours)]
    np.testing.assert_allclose(histories[1]["loss"], histories[0]["loss"], rtol=1e-5)
    for a, b, start in zip(ours.get_weights(), theirs.get_weights(), before, strict=True):
        np.testing.assert_allclose(np.asarray(a, "float64"), np.asarray(b, "float64"),
                                   rtol=1e-5, atol=1e-6)
    assert not np.array_equal(ours.get_layer("pre").kernel, before[0])  # trained through q
    quantized = ours.get_layer("q").get_weights()
    assert quantized[1].dtype == np.int8
