"""A quantized ``ReversibleEmbedding`` ("int8", "int4": per channel and by block; tied and
untied) against Keras: the same variables (names, shapes, dtypes, values, file order),
policies and configs, the same numbers in both call modes (embedding lookup and reversed
logits), files both ways, compiled programs, and a layer made from a quantized policy."""

import warnings

import jax
import keras
import numpy as np
import pytest

import compiler
import kgraph as kg
from tests.keras_compat.test_keras_quantize_model import _assert_same_variables

RNG = np.random.default_rng(0)
IDS = RNG.integers(0, 20, (3, 5)).astype("int32")
VECTORS = RNG.normal(size=(3, 5, 8)).astype("float32")


def _model(lib, **kwargs):
    """ids -> ReversibleEmbedding -> Dense -> the same layer reversed (logits)."""
    ids = lib.Input((5,), dtype="int32")
    embed = lib.layers.ReversibleEmbedding(20, 8, name="embed", **kwargs)
    h = lib.layers.Dense(8, activation="tanh", name="mix")(embed(ids))
    return lib.Model(ids, embed(h, reverse=True))


def _config(lib, mode, block_size):
    if mode == "int8" or block_size == "default":
        return None
    return lib.quantizers.Int4QuantizationConfig(block_size=block_size)


def _pair(mode, block_size="default", policy="float32", config=None, filters=None,
          **kwargs):
    """A Keras model and kgraph's with Keras's weights, both quantized (``config``: a
    function of ``keras.quantizers`` / ``kg.quantizers`` giving the config)."""
    models = []
    for lib in (keras, kg):
        lib.config.set_dtype_policy(policy)
        try:
            models.append(_model(lib, **kwargs))
        finally:
            lib.config.set_dtype_policy("float32")
    theirs, ours = models
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model, lib in ((theirs, keras), (ours, kg)):
            made = config(lib.quantizers) if config else _config(lib, mode, block_size)
            model.quantize(mode, config=made, filters=filters)
    return theirs, ours


def _same_config(ours, theirs):
    """The layers' configs agree (Keras's get_config holds its initializer object's
    config, kgraph's its name; files hold the same)."""
    ours, theirs = ours.get_config(), theirs.get_config()
    assert set(ours) == set(theirs)
    for key in ours:
        if key != "embeddings_initializer":
            assert ours[key] == theirs[key], key


def _assert_same_outputs(ours, theirs, policy="float32"):
    tolerance = 1e-2 if policy == "mixed_bfloat16" else 1e-5
    reference, output = np.asarray(theirs(IDS)), np.asarray(ours(IDS))
    assert output.dtype == reference.dtype
    np.testing.assert_allclose(output.astype("float32"), reference.astype("float32"),
                               rtol=tolerance, atol=tolerance)
    mine, keras_layer = ours.get_layer("embed"), theirs.get_layer("embed")
    for args, kwargs in (((IDS,), {}), ((VECTORS,), {"reverse": True})):
        expected = np.asarray(keras_layer(*args, **kwargs))
        got = np.asarray(mine(*args, **kwargs))
        assert got.shape == expected.shape
        # (a Keras layer called on its own under a mixed policy reads its float32 scales
        # autocast to bfloat16, inside a model not: only the model's dtype is compared)
        assert policy != "float32" or got.dtype == expected.dtype
        np.testing.assert_allclose(got.astype("float32"), expected.astype("float32"),
                                   rtol=tolerance, atol=tolerance)


CASES = [("int8", "default", True), ("int8", "default", False), ("int4", None, True),
         ("int4", None, False), ("int4", 4, True), ("int4", 4, False),
         ("int4", "default", False)]


@pytest.mark.parametrize("mode, block_size, tie_weights", CASES)
def test_quantized_layer_matches_keras(mode, block_size, tie_weights):
    theirs, ours = _pair(mode, block_size, tie_weights=tie_weights)
    _assert_same_variables(ours, theirs)
    _assert_same_outputs(ours, theirs)
    mine, keras_layer = ours.get_layer("embed"), theirs.get_layer("embed")
    assert mine.dtype_policy.name == keras_layer.dtype_policy.name
    _same_config(mine, keras_layer)
    spec = keras_layer.variable_serialization_spec[mode]
    names = {w.name for w in keras_layer.weights}
    assert [v.name for v in mine._keras_ordered_variables()] == [n for n in spec if n in names]
    if mode == "int4":
        assert mine._int4_block_size == keras_layer._int4_block_size
        np.testing.assert_array_equal(np.asarray(mine.embeddings),
                                      np.asarray(keras_layer.embeddings))


@pytest.mark.parametrize("tie_weights", [True, False])
def test_mixed_precision_and_soft_cap_match_keras(tie_weights):
    for mode, block_size in (("int8", "default"), ("int4", 4)):
        theirs, ours = _pair(mode, block_size, "mixed_bfloat16", tie_weights=tie_weights,
                             logit_soft_cap=3.0)
        _assert_same_variables(ours, theirs)
        _assert_same_outputs(ours, theirs, "mixed_bfloat16")


@pytest.mark.parametrize("make, untied", [
    (lambda q: q.Int8QuantizationConfig(activation_quantizer=None), True),  # weight-only
    (lambda q: q.Int4QuantizationConfig(activation_quantizer=q.AbsMaxQuantizer(),
                                        block_size=None), True),
    # a weight quantizer along the last axis (the default) suits the tied layer only
    (lambda q: q.Int8QuantizationConfig(weight_quantizer=q.AbsMaxQuantizer(
        value_range=(-20, 20))), False)])
def test_custom_quantizer_configs_match_keras(make, untied):
    for tie_weights in (True, False) if untied else (True,):
        theirs, ours = _pair(None, config=make, filters="^embed$", tie_weights=tie_weights)
        _assert_same_variables(ours, theirs)
        _assert_same_outputs(ours, theirs)
        _same_config(ours.get_layer("embed"), theirs.get_layer("embed"))


@pytest.mark.parametrize("mode, block_size, tie_weights",
                         [("int8", "default", False), ("int4", 4, False), ("int4", None, True)])
def test_files_both_ways(mode, block_size, tie_weights, tmp_path):
    theirs, ours = _pair(mode, block_size, tie_weights=tie_weights)
    reference = np.asarray(theirs(IDS))
    theirs.save(tmp_path / "keras.keras")
    ours.save(tmp_path / "kgraph.keras")
    loaded = kg.load_model(tmp_path / "keras.keras")
    _assert_same_variables(loaded, theirs)
    np.testing.assert_allclose(np.asarray(loaded(IDS)), reference, rtol=1e-5, atol=1e-5)
    assert loaded.get_layer("embed").get_config() == theirs.get_layer("embed").get_config()
    keras_loaded = keras.saving.load_model(tmp_path / "kgraph.keras")
    _assert_same_variables(ours, keras_loaded)
    np.testing.assert_allclose(np.asarray(keras_loaded(IDS)), reference, rtol=1e-5, atol=1e-5)
    theirs.save_weights(tmp_path / "keras.weights.h5")
    fresh_theirs, fresh_ours = _pair(mode, block_size, tie_weights=tie_weights)
    fresh_ours.load_weights(tmp_path / "keras.weights.h5")
    _assert_same_variables(fresh_ours, theirs)


def test_compiled_program_runs_the_quantized_layer():
    theirs, ours = _pair("int4", 4, tie_weights=False)
    reference = np.asarray(theirs(IDS))
    program = compiler.compile(ours)
    params, state = compiler.variables(ours)
    assert "embed" not in params  # every weight of a quantized embedding is frozen
    assert state["embed"]["reverse_embeddings"].dtype == np.int8
    outputs, _ = jax.jit(program.apply)(params, state, IDS)
    np.testing.assert_allclose(np.asarray(outputs), reference, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["int8_from_float32", "int4_from_mixed_bfloat16",
                                   "int4/4_from_float32"])
@pytest.mark.parametrize("tie_weights", [True, False])
def test_a_layer_made_quantized_builds_kerass_variables(dtype, tie_weights):
    layers = [lib.layers.ReversibleEmbedding(20, 8, tie_weights=tie_weights, dtype=dtype)
              for lib in (keras, kg)]
    for layer in layers:
        layer.build()
    assert [(w.name, tuple(w.shape), str(w.dtype), w.trainable) for w in layers[0].weights] == [
        (w.name, w.shape, w.dtype.name, w.trainable) for w in layers[1].weights]
    layers[1].set_weights([np.asarray(w) for w in layers[0].get_weights()])
    for args, kwargs in (((IDS,), {}), ((VECTORS,), {"reverse": True})):
        np.testing.assert_allclose(np.asarray(layers[1](*args, **kwargs), "float32"),
                                   np.asarray(layers[0](*args, **kwargs), "float32"),
                                   rtol=1e-5, atol=1e-5)


def test_untied_quantizer_along_the_wrong_axis_is_a_clear_error():
    layer = kg.layers.ReversibleEmbedding(20, 8, tie_weights=False)
    layer.build()
    config = kg.quantizers.Int8QuantizationConfig(
        weight_quantizer=kg.quantizers.AbsMaxQuantizer(axis=-1))
    with pytest.raises(ValueError, match="reverse_embeddings need one scale per column"):
        layer.quantize("int8", config=config)
