"""``model.quantize`` / ``layer.quantize`` ("int8", "int4") against Keras: the same
variables (names, shapes, dtypes, values), dtype policies, configs and outputs, and Keras's
checks and warnings (compiled programs, files and training:
``test_keras_quantize_files.py``)."""

import warnings

import keras
import numpy as np
import pytest

import kgraph as kg

RNG = np.random.default_rng(0)
IDS = RNG.integers(0, 20, (3, 5)).astype("int32")


def _model(lib):
    """Embedding, Dense and two EinsumDense (attention-style equations), one of them in a
    nested model."""
    ids = lib.Input((5,), dtype="int32")
    h = lib.layers.Embedding(20, 6, name="embed")(ids)
    h = lib.layers.Dense(8, activation="relu", name="dense")(h)
    h = lib.layers.EinsumDense("btd,ndh->btnh", output_shape=(5, 2, 3), bias_axes="nh",
                               name="heads")(h)
    inner_in = lib.Input((5, 2, 3))
    inner = lib.Model(inner_in, lib.layers.EinsumDense(
        "btnh,nhd->btd", output_shape=(5, 4), bias_axes="d", name="merge")(inner_in),
        name="inner")
    return lib.Model(ids, inner(h))


def _config(lib, block_size):
    if block_size == "default":
        return None
    return lib.quantizers.Int4QuantizationConfig(block_size=block_size)


def _pair(mode, block_size="default", policy="float32"):
    """A Keras model and kgraph's with Keras's weights, both quantized."""
    models = []
    for lib in (keras, kg):
        lib.config.set_dtype_policy(policy)
        try:
            models.append(_model(lib))
        finally:
            lib.config.set_dtype_policy("float32")
    theirs, ours = models
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.quantize(mode, config=_config(keras, block_size) if mode == "int4" else None)
        ours.quantize(mode, config=_config(kg, block_size) if mode == "int4" else None)
    return theirs, ours


def _assert_same_variables(ours, theirs):
    assert [(w.path, tuple(w.shape), str(w.dtype), w.trainable) for w in theirs.weights] == [
        (w.path, w.shape, w.dtype.name, w.trainable) for w in ours.weights]
    for a, b in zip(ours.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_array_equal(np.asarray(a, "float64"), np.asarray(b, "float64"))


def _layers(model):
    return {layer.name: layer for layer in model._flatten_layers()}


@pytest.mark.parametrize("mode, block_size, policy", [
    ("int8", "default", "float32"), ("int8", "default", "mixed_bfloat16"),
    ("int4", "default", "float32"), ("int4", None, "mixed_bfloat16")])
def test_quantized_model_matches_keras(mode, block_size, policy):
    theirs, ours = _pair(mode, block_size, policy)
    _assert_same_variables(ours, theirs)
    reference = np.asarray(theirs(IDS))
    output = np.asarray(ours(IDS))
    assert output.dtype == reference.dtype
    np.testing.assert_allclose(output.astype("float32"), reference.astype("float32"),
                               rtol=1e-6, atol=1e-6)
    mine, keras_layers = _layers(ours), _layers(theirs)
    for name in ("embed", "dense", "heads", "merge"):
        layer, keras_layer = mine[name], keras_layers[name]
        assert layer.dtype_policy.name == keras_layer.dtype_policy.name
        assert layer.quantization_mode == keras_layer.quantization_mode == mode
        config, keras_config = layer.get_config(), keras_layer.get_config()
        assert config["dtype"] == keras.dtype_policies.serialize(keras_layer.dtype_policy)
        assert config["quantization_config"] == keras_config["quantization_config"]
        weight = "embeddings" if name == "embed" else "kernel"
        np.testing.assert_array_equal(np.asarray(getattr(layer, weight)),
                                      np.asarray(getattr(keras_layer, weight)))
    assert mine["inner"].quantization_mode is None


def test_weight_only_and_custom_quantizers_match_keras():
    for mode, make, filters in [
            ("int8", lambda q: q.Int8QuantizationConfig(
                weight_quantizer=q.AbsMaxQuantizer(axis=0, value_range=(-100, 100)),
                activation_quantizer=None), "^dense$"),
            ("int4", lambda q: q.Int4QuantizationConfig(
                activation_quantizer=q.AbsMaxQuantizer(), block_size=None), None)]:
        models = [_model(lib) for lib in (keras, kg)]
        models[1].set_weights([np.asarray(w) for w in models[0].get_weights()])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for model, lib in zip(models, (keras, kg)):
                model.quantize(config=make(lib.quantizers), filters=filters)
        _assert_same_variables(models[1], models[0])
        np.testing.assert_allclose(np.asarray(models[1](IDS)), np.asarray(models[0](IDS)),
                                   rtol=1e-6, atol=1e-6)
        assert models[1].get_layer("dense").quantization_config.mode == mode


def test_a_layer_made_quantized_builds_kerass_variables():
    for dtype in ("int8_from_float32", "int4/4_from_mixed_bfloat16", "int4_from_float32"):
        layers = [lib.layers.Dense(5, dtype=dtype, name="d") for lib in (keras, kg)]
        for layer in layers:
            layer.build((None, 8))
        assert [(w.name, tuple(w.shape), str(w.dtype)) for w in layers[0].weights] == [
            (w.name, w.shape, w.dtype.name) for w in layers[1].weights]
        names = {w.name for w in layers[0].weights}
        spec = layers[0].variable_serialization_spec[layers[0].quantization_mode]
        assert [v.name for v in layers[1]._keras_ordered_variables()] == [
            name for name in spec if name in names]
        assert layers[1].dtype_policy == kg.dtype_policies.get(dtype)


def test_ellipsis_equation_quantizes_as_its_explicit_form():
    """Keras cannot quantize an EinsumDense written with "..." (its layout analysis fails);
    kgraph gives the numbers of the same equation written out."""
    x = RNG.normal(size=(2, 3, 6)).astype("float32")
    theirs = keras.layers.EinsumDense("abc,cd->abd", output_shape=(3, 5), bias_axes="d")
    ours = kg.layers.EinsumDense("...c,cd->...d", output_shape=5, bias_axes="d")
    theirs(x), ours(x)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    for mode in ("int8", "int4"):
        a, b = theirs, ours
        if mode == "int4":
            a = keras.layers.EinsumDense("abc,cd->abd", output_shape=(3, 5), bias_axes="d")
            b = kg.layers.EinsumDense("...c,cd->...d", output_shape=5, bias_axes="d")
            a(x), b(x)
            b.set_weights([np.asarray(w) for w in a.get_weights()])
        a.quantize(mode)
        b.quantize(mode)
        np.testing.assert_allclose(np.asarray(b(x)), np.asarray(a(x)), rtol=1e-6, atol=1e-6)


def test_quantize_checks_and_warnings_match_keras():
    def messages(lib):
        model = _model(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.quantize("int8", filters=lambda layer: layer.name != "merge")
        return model, sorted({str(w.message) for w in caught
                              if issubclass(w.category, UserWarning)})

    (theirs, keras_warnings), (ours, our_warnings) = messages(keras), messages(kg)
    assert our_warnings == keras_warnings  # the input layer: no quantized form
    assert _layers(ours)["merge"].quantization_mode is None
    for lib, model in ((keras, theirs), (kg, ours)):
        with pytest.raises(ValueError, match="is already quantized with dtype_policy="
                                             "'int8_from_float32'"):
            model.get_layer("dense").quantize("int8")
        with pytest.raises(ValueError, match="Invalid quantization mode"):
            model.quantize("int3")
        with pytest.raises(ValueError, match="Contradictory arguments"):
            model.quantize("int4", config=lib.quantizers.Int8QuantizationConfig())
        with pytest.raises(ValueError, match="isn't yet built"):
            lib.layers.Dense(3).quantize("int8")
        with pytest.raises(ValueError, match="doesn't work well with compute_dtype='float16'"):
            layer = lib.layers.Dense(3, dtype="float16")
            layer.build((None, 2))
            layer.quantize("int8")
        with pytest.raises(NotImplementedError, match="does not have a `quantize` method"):
            layer = lib.layers.LayerNormalization()
            layer.build((None, 2))
            layer.quantize("int8")
        with pytest.raises(NotImplementedError, match=r"Expected one of \('int8', 'int4'\)"):
            layer = lib.layers.Embedding(4, 2)
            layer.build()
            layer.quantize("float8")

        class MyDense(lib.layers.Dense):
            pass

        with pytest.raises(NotImplementedError, match="MyDense does not have a `quantize`"):
            layer = MyDense(2)
            layer.build((None, 2))
            layer.quantize("int8")
    with pytest.raises(NotImplementedError, match="AWQ calibration is not offered"):
        _model(kg).quantize(config=kg.quantizers.AWQConfig(None, None))


def test_multi_head_attention_projections_quantize_as_kerass():
    x = RNG.normal(size=(2, 5, 8)).astype("float32")
    for mode in ("int4",):  # (int8: the same EinsumDense path as the model above)
        models = []
        for lib in (keras, kg):
            inputs = lib.Input((5, 8))
            models.append(lib.Model(inputs, lib.layers.MultiHeadAttention(2, 4, name="mha")(
                inputs, inputs)))
        theirs, ours = models
        ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs.quantize(mode)
            ours.quantize(mode)
        assert [(w.path, tuple(w.shape), str(w.dtype))
                for w in theirs.weights] == [(w.path, w.shape, w.dtype.name) for w in ours.weights]
        assert ours.get_layer("mha").query_dense.quantization_mode == mode
        np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-6,
                                   atol=1e-6)
