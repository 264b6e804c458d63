"""LoRA on quantized Dense, EinsumDense and Embedding against Keras 3: LoRA enabled on an
int8 or int4 layer (per channel and by blocks), and a LoRA layer quantized (its frozen
kernel quantized, the factors kept): the same weights, outputs and saved values (the
merged kernel requantized, with its new scale and zero point)."""

import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(1)


def _layer(lib, kind):
    if kind == "dense":
        layer = lib.layers.Dense(6, name="adapted")
        layer.build((None, 8))
        return layer, _rng.normal(size=(3, 8)).astype("float32")
    if kind == "einsum":
        layer = lib.layers.EinsumDense("abc,cde->abde", output_shape=(4, 2, 3), bias_axes="de",
                                       name="adapted")
        layer.build((None, 4, 8))
        return layer, _rng.normal(size=(2, 4, 8)).astype("float32")
    layer = lib.layers.Embedding(10, 8, name="adapted")
    layer.build(None)
    return layer, _rng.integers(0, 10, size=(3, 5)).astype("int32")


def _config(lib, mode):
    if mode == "int8":
        return None
    return lib.quantizers.Int4QuantizationConfig(block_size=None if mode == "int4" else 4)


def _pair(kind, mode, lora_first):
    (theirs, x), (ours, _) = _layer(keras, kind), _layer(kg, kind)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    for layer, lib in ((theirs, keras), (ours, kg)):
        quantize = lambda: layer.quantize(mode[:4], config=_config(lib, mode))  # noqa: E731
        if lora_first:
            layer.enable_lora(2)
            quantize()
        else:
            quantize()
            layer.enable_lora(2)
    for name in ("a", "b"):  # an update that is not zero
        attribute = f"lora_{'embeddings' if kind == 'embedding' else 'kernel'}_{name}"
        value = _rng.normal(size=getattr(theirs, attribute).shape).astype("float32") * 0.3
        getattr(theirs, attribute).assign(value)
        getattr(ours, attribute).assign(value)
    return theirs, ours, x


@pytest.mark.parametrize("lora_first", [False, True], ids=["quantized_then_lora",
                                                           "lora_then_quantized"])
@pytest.mark.parametrize("mode", ["int8", "int4", "int4_blocks"])
@pytest.mark.parametrize("kind", ["dense", "einsum", "embedding"])
def test_lora_on_a_quantized_layer_computes_and_saves_as_keras(kind, mode, lora_first):
    theirs, ours, x = _pair(kind, mode, lora_first)
    assert [(w.name, tuple(w.shape), str(w.dtype), bool(w.trainable))
            for w in theirs.weights] == [(w.name, w.shape, w.dtype.name, w.trainable)
                                         for w in ours.weights]
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(np.asarray(ours.kernel if kind != "embedding" else
                                          ours.embeddings),
                               np.asarray(theirs.kernel if kind != "embedding" else
                                          theirs.embeddings), rtol=1e-6, atol=1e-6)
    mine, reference = {}, {}
    ours.save_own_variables(mine)
    theirs.save_own_variables(reference)
    assert sorted(mine) == sorted(reference)
    for key in reference:
        np.testing.assert_allclose(np.asarray(mine[key], "float64"),
                                   np.asarray(reference[key], "float64"), rtol=1e-5,
                                   atol=1e-5, err_msg=key)


@pytest.mark.parametrize("mode", ["int8", "int4"])
def test_a_quantized_lora_model_trains_and_reloads(tmp_path, mode):
    x = _rng.normal(size=(32, 8)).astype("float32")
    y = _rng.normal(size=(32, 6)).astype("float32")
    layer = kg.layers.Dense(6, name="adapted")
    layer.build((None, 8))
    layer.enable_lora(2)
    layer.quantize(mode)
    assert len(layer.trainable_weights) == 3
    before = np.asarray(layer.lora_kernel_b).copy()
    model = kg.Sequential([kg.Input((8,)), layer])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, epochs=1, verbose=0)
    assert np.abs(np.asarray(layer.lora_kernel_b) - before).max() > 0
    model.save(tmp_path / "m.keras")
    loaded = kg.saving.load_model(tmp_path / "m.keras")
    assert loaded.layers[0].lora_enabled
    assert loaded.layers[0].quantization_mode == mode
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0),
                               atol=0.5)


def test_a_float8_layer_with_lora_refuses_to_compute_as_keras():
    x = np.ones((1, 8), "float32")
    for lib in (keras, kg):
        layer = lib.layers.Dense(6)
        layer.build((None, 8))
        layer.enable_lora(2)
        layer.quantize("float8")
        with pytest.raises(NotImplementedError, match="(?i)float8.*LoRA"):
            layer(x)
