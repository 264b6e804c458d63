"""LoRA (``enable_lora`` / ``lora_rank=``) on Dense, EinsumDense, Embedding,
ReversibleEmbedding and Conv2D, against Keras 3: weights (names, shapes, which are trained,
Keras's order), outputs, ``fit``, configs, and files both ways (the merged kernel)."""

import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(0)


def _dense(lib, **lora):
    x = lib.Input((6,))
    h = lib.layers.Dense(5, activation="tanh", name="adapted", **lora)(x)
    return lib.Model(x, lib.layers.Dense(3, name="head")(h)), (32, 6), (32, 3), "float32"


def _einsum(lib, **lora):
    x = lib.Input((4, 6))
    h = lib.layers.EinsumDense("abc,cde->abde", output_shape=(4, 2, 3), bias_axes="de",
                               name="adapted", **lora)(x)
    return lib.Model(x, lib.layers.Reshape((24,), name="flat")(h)), (16, 4, 6), (16, 24), "float32"


def _embedding(lib, **lora):
    x = lib.Input((5,), dtype="int32")
    h = lib.layers.Embedding(11, 4, name="adapted", **lora)(x)
    return (lib.Model(x, lib.layers.GlobalAveragePooling1D(name="pool")(h)), (16, 5), (16, 4),
            "int32")


def _conv(lib, **lora):
    x = lib.Input((6, 6, 2))
    h = lib.layers.Conv2D(3, 3, name="adapted", **lora)(x)
    model = lib.Model(x, lib.layers.GlobalAveragePooling2D(name="pool")(h))
    return model, (16, 6, 6, 2), (16, 3), "float32"


BUILDS = [_dense, _einsum, _embedding, _conv]


def _data(x_shape, y_shape, dtype):
    x = (_rng.integers(0, 11, size=x_shape) if dtype == "int32"
         else _rng.normal(size=x_shape)).astype(dtype)
    return x, _rng.normal(size=y_shape).astype("float32")


def _adapted(model):
    return model.get_layer("adapted")


def _summary(model):
    return [(w.path, tuple(w.shape), bool(w.trainable)) for w in model.weights]


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.__name__[1:])
def test_enable_lora_trains_the_factors_as_keras_does(build):
    theirs, x_shape, y_shape, dtype = build(keras)
    ours, _, _, _ = build(kg)
    ours.set_weights(theirs.get_weights())
    for model in (ours, theirs):
        _adapted(model).enable_lora(2, lora_alpha=3)
    assert _summary(ours) == _summary(theirs)
    assert ([w.path for w in ours.trainable_weights]
            == [w.path for w in theirs.trainable_weights])
    # the same random start for the factors (b starts at zero, so outputs are unchanged)
    ours.set_weights(theirs.get_weights())
    x, y = _data(x_shape, y_shape, dtype)
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-5, atol=1e-6)
    start = theirs.get_weights()
    for model, lib in ((ours, kg), (theirs, keras)):
        model.compile(lib.optimizers.SGD(0.1), "mse")
        model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    frozen = [not w.trainable for w in theirs.weights]
    for a, b, s, is_frozen, w in zip(ours.get_weights(), theirs.get_weights(), start, frozen,
                                     theirs.weights):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=w.path)
        assert np.array_equal(a, s) == is_frozen, w.path  # the kernel stays; factors move
    # ``kernel`` reads the merged value, as Keras's property
    name = "embeddings" if build is _embedding else "kernel"
    np.testing.assert_allclose(np.asarray(getattr(_adapted(ours), name)),
                               np.asarray(getattr(_adapted(theirs), name)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.predict(x, verbose=0), theirs.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.__name__[1:])
def test_lora_files_hold_the_merged_kernel_both_ways(build, tmp_path):
    theirs, x_shape, y_shape, dtype = build(keras, lora_rank=2, lora_alpha=4)
    b_name = "lora_embeddings_b" if build is _embedding else "lora_kernel_b"
    layer = _adapted(theirs)
    getattr(layer, b_name).assign(_rng.normal(size=getattr(layer, b_name).shape))
    x, _ = _data(x_shape, y_shape, dtype)
    theirs.save(tmp_path / "k.keras")
    ours = kg.load_model(tmp_path / "k.keras")
    config = _adapted(ours).get_config()
    assert _adapted(ours).lora_enabled
    assert (config["lora_rank"], config["lora_alpha"]) == (
        _adapted(theirs).get_config()["lora_rank"], _adapted(theirs).get_config()["lora_alpha"])
    assert _adapted(ours).lora_alpha == _adapted(theirs).lora_alpha  # (Dense, Embedding: 2)
    assert _summary(ours) == _summary(keras.saving.load_model(tmp_path / "k.keras"))
    # the file's kernel is the merged one; the loaded factors are zero, as Keras loads them
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-5, atol=1e-5)
    getattr(_adapted(ours), b_name).assign(
        _rng.normal(size=getattr(_adapted(ours), b_name).shape))
    ours.save(tmp_path / "o.keras")
    ours.save_weights(tmp_path / "o.weights.h5")
    back = keras.saving.load_model(tmp_path / "o.keras")
    np.testing.assert_allclose(np.asarray(back(x)), np.asarray(ours(x)), rtol=1e-5, atol=1e-5)
    plain, _, _, _ = build(keras)  # a model without LoRA reads the merged weights
    plain.load_weights(tmp_path / "o.weights.h5")
    np.testing.assert_allclose(np.asarray(plain(x)), np.asarray(ours(x)), rtol=1e-5, atol=1e-5)
    # a LoRA model loading the file: its kernel is the merged one, its factors zeroed
    again, _, _, _ = build(kg, lora_rank=2, lora_alpha=4)
    again(x)
    factor = getattr(_adapted(again), b_name)
    factor.assign(np.ones(factor.shape, "float32"))
    again.load_weights(tmp_path / "o.weights.h5")
    assert not np.asarray(getattr(_adapted(again), b_name)).any()
    np.testing.assert_allclose(np.asarray(again(x)), np.asarray(ours(x)), rtol=1e-5, atol=1e-5)


def test_reversible_embedding_reverses_through_the_merged_embeddings():
    # (Keras's own ``lora_rank=`` fails to build an untied one: its ``enable_lora`` locks
    # the weights before ``reverse_embeddings`` is made; ``enable_lora`` after build works)
    ours = kg.layers.ReversibleEmbedding(9, 4, tie_weights=False, name="rev")
    theirs = keras.layers.ReversibleEmbedding(9, 4, tie_weights=False, name="rev")
    ids = _rng.integers(0, 9, size=(3, 5)).astype("int32")
    for layer in (theirs, ours):
        layer(ids)
        layer.enable_lora(2)
    assert ([(w.name, tuple(w.shape), w.trainable) for w in ours.weights]
            == [(w.name, tuple(w.shape), w.trainable) for w in theirs.weights])
    values = [_rng.normal(size=w.shape).astype("float32") for w in theirs.weights]
    theirs.set_weights(values)
    ours.set_weights(values)
    vectors = _rng.normal(size=(3, 5, 4)).astype("float32")
    for args in ((ids,), (vectors,)):
        kwargs = {"reverse": True} if args[0] is vectors else {}
        np.testing.assert_allclose(np.asarray(ours(*args, **kwargs)),
                                   np.asarray(theirs(*args, **kwargs)), rtol=1e-5, atol=1e-5)


def test_a_compiled_model_retrains_after_enable_lora():
    """LoRA enabled between two fits: the second compiles with the kernel frozen (one
    truth: the model's variables, not a stale train state)."""
    model, x_shape, y_shape, dtype = _dense(kg)
    x, y = _data(x_shape, y_shape, dtype)
    model.compile(kg.optimizers.Adam(0.01), "mse")
    model.fit(x, y, epochs=1, verbose=0)
    kernel = np.asarray(_adapted(model).kernel)
    _adapted(model).enable_lora(2)
    model.fit(x, y, epochs=2, verbose=0)
    layer = _adapted(model)
    np.testing.assert_array_equal(np.asarray(layer._kernel), kernel)
    assert np.abs(np.asarray(layer.lora_kernel_b)).max() > 0
    assert not np.allclose(np.asarray(layer.kernel), kernel)


def test_bad_uses_are_refused():
    layer = kg.layers.Dense(3, name="d")
    with pytest.raises(ValueError, match="isn't yet built"):
        layer.enable_lora(2)
    layer(np.ones((1, 4), "float32"))
    layer.enable_lora(2)
    with pytest.raises(ValueError, match="already enabled"):
        layer.enable_lora(2)
    constrained = kg.layers.Embedding(5, 2, embeddings_constraint="non_neg", name="e")
    constrained(np.zeros((1, 2), "int32"))
    with pytest.raises(ValueError, match="embeddings_constraint"):
        constrained.enable_lora(2)
    quantized = kg.layers.Dense(3, name="q")
    quantized(np.ones((1, 4), "float32"))
    quantized.quantize("gptq", config=kg.quantizers.GPTQConfig(None, None, group_size=2))
    with pytest.raises(NotImplementedError, match="GPTQ"):  # as Keras
        quantized.enable_lora(2)
    with pytest.raises(ValueError, match="lora_rank must be a positive integer"):
        kg.layers.Conv2D(2, 3, lora_rank=0)
    with pytest.raises(AttributeError, match="has no setter"):
        layer.kernel = np.zeros((4, 3), "float32")  # Keras's property: no setter either


def test_transposed_convolutions_offer_no_lora_as_keras():
    for lib in (keras, kg):
        with pytest.raises(ValueError, match="Unrecognized keyword arguments"):
            lib.layers.Conv2DTranspose(2, 3, lora_rank=2)
    layer = kg.layers.Conv1DTranspose(2, 3, name="t")
    layer(np.ones((1, 5, 2), "float32"))
    with pytest.raises(NotImplementedError, match="does not offer LoRA"):
        layer.enable_lora(2)


def test_lora_under_mixed_precision_computes_as_keras():
    x = _rng.normal(size=(4, 6)).astype("float32")
    ours = kg.layers.Dense(5, dtype="mixed_bfloat16", name="m")
    theirs = keras.layers.Dense(5, dtype="mixed_bfloat16", name="m")
    for layer in (ours, theirs):
        layer(x)
        layer.enable_lora(2)
    theirs.set_weights([_rng.normal(size=w.shape).astype("float32") for w in theirs.weights])
    ours.set_weights(theirs.get_weights())
    assert [w.dtype for w in ours.weights] == [np.dtype(w.dtype) for w in theirs.weights]
    got, want = ours(x), theirs(x)
    assert np.dtype(got.dtype) == np.dtype(want.dtype) == np.dtype("bfloat16")
    np.testing.assert_allclose(np.asarray(got, "float32"), np.asarray(want, "float32"),
                               rtol=2e-2, atol=2e-2)


def test_a_frozen_weights_penalty_is_left_out_of_the_loss_as_keras():
    """Keras adds the regularizers of trained weights only: LoRA's frozen kernel (and a
    frozen layer's weights) add nothing."""
    rng = np.random.default_rng(8)
    x = rng.normal(size=(16, 6)).astype("float32")
    y = rng.normal(size=(16, 3)).astype("float32")

    def build(lib):
        inputs = lib.Input((6,))
        hidden = lib.layers.Dense(5, kernel_regularizer="l2", name="adapted")(inputs)
        frozen = lib.layers.Dense(4, kernel_regularizer="l1", name="frozen", trainable=False)
        return lib.Model(inputs, lib.layers.Dense(3, name="head")(frozen(hidden)))

    theirs, ours = build(keras), build(kg)
    ours.set_weights(theirs.get_weights())
    for model in (theirs, ours):
        model.get_layer("adapted").enable_lora(2)
    ours.set_weights(theirs.get_weights())
    results = []
    for model, lib in ((ours, kg), (theirs, keras)):
        model.compile(lib.optimizers.SGD(0.05), "mse")
        results.append((model.fit(x, y, batch_size=8, epochs=2, shuffle=False,
                                  verbose=0).history["loss"],
                        model.evaluate(x, y, verbose=0)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5)


@pytest.mark.parametrize("build", [_dense, _einsum, _embedding], ids=lambda b: b.__name__[1:])
def test_qlora_on_int8_layers_trains_and_saves_as_keras(build, tmp_path):
    """Keras's QLoRA: quantize to int8, then enable LoRA; the update is added to the
    quantized call, and files hold the merged kernel requantized."""
    theirs, x_shape, y_shape, dtype = build(keras)
    ours, _, _, _ = build(kg)
    ours.set_weights(theirs.get_weights())
    for model in (ours, theirs):
        _adapted(model).quantize("int8")
        _adapted(model).enable_lora(2)
    assert _summary(ours) == _summary(theirs)
    ours.set_weights(theirs.get_weights())
    x, y = _data(x_shape, y_shape, dtype)
    for model, lib in ((ours, kg), (theirs, keras)):
        model.compile(lib.optimizers.SGD(0.1), "mse")
        model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    for a, b, w in zip(ours.get_weights(), theirs.get_weights(), theirs.weights):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=w.path)
    np.testing.assert_allclose(ours.predict(x, verbose=0), theirs.predict(x, verbose=0),
                               rtol=1e-4, atol=1e-4)
    ours.save_weights(tmp_path / "o.weights.h5")
    theirs.save_weights(tmp_path / "k.weights.h5")
    import h5py

    def datasets(path):
        found = {}
        with h5py.File(path, "r") as file:
            file.visititems(lambda name, item: found.__setitem__(name, item[()])
                            if isinstance(item, h5py.Dataset) else None)
        return found

    ours_file, theirs_file = datasets(tmp_path / "o.weights.h5"), datasets(
        tmp_path / "k.weights.h5")
    assert sorted(ours_file) == sorted(theirs_file)
    for name, value in theirs_file.items():  # the merged kernel, requantized, and its scale
        np.testing.assert_allclose(ours_file[name], value, rtol=1e-4, atol=1.01, err_msg=name)
    back, _, _, _ = build(keras)
    _adapted(back).quantize("int8")
    _adapted(back).enable_lora(2)
    back.load_weights(tmp_path / "o.weights.h5")
    np.testing.assert_allclose(np.asarray(back(x)), np.asarray(ours(x)), rtol=0.05, atol=0.05)
