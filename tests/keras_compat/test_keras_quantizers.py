"""``kgraph.quantizers`` against ``keras.quantizers``: the same numbers on random inputs
(several shapes, axes and dtypes, on device and with ``to_numpy``), the same gradients, the
same configs, and each side's serialized forms load in the other."""

import jax
import jax.numpy as jnp
import keras
import numpy as np
import pytest

import kgraph as kg
from kgraph import quantizers as kq

RNG = np.random.default_rng(0)


def _array(shape, dtype="float32", scale=2.0):
    return jnp.asarray(RNG.normal(size=shape).astype("float32") * scale).astype(dtype)


def _same(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(ours.astype("float64"), theirs.astype("float64"))


@pytest.mark.parametrize("shape, axis, dtype", [
    ((6, 5), -1, "float32"), ((6, 5), 0, "bfloat16"), ((3, 4, 5), (0, 2), "float16"),
    ((3, 4, 5), [1], "float32"), ((7,), 0, "bfloat16")])
def test_abs_max_quantize_matches_keras(shape, axis, dtype):
    x = _array(shape, dtype)
    for value_range, to_numpy in [((-127, 127), False), ((-8, 7), False), ((-127, 127), True),
                                  ((-8, 7), True)]:
        ours = kq.abs_max_quantize(x, axis, value_range, "int8", to_numpy=to_numpy)
        theirs = keras.quantizers.abs_max_quantize(x, axis, value_range, "int8",
                                                   to_numpy=to_numpy)
        for a, b in zip(ours, theirs, strict=True):
            _same(a, b)


def test_abs_max_quantizer_call_config_and_errors_match_keras():
    x = _array((4, 6))
    for kwargs in [{}, {"axis": 0}, {"axis": (0, 1), "value_range": (-8, 7)},
                   {"epsilon": 1e-3, "output_dtype": "int16", "value_range": (-1000, 1000)}]:
        ours, theirs = kq.AbsMaxQuantizer(**kwargs), keras.quantizers.AbsMaxQuantizer(**kwargs)
        assert ours.get_config() == theirs.get_config()
        for call in [{}, {"axis": 1}, {"to_numpy": True}]:
            for a, b in zip(ours(x, **call), theirs(x, **call), strict=True):
                _same(a, b)
    for lib in (kq, keras.quantizers):
        with pytest.raises(ValueError, match=r"within the interval \[-128, 127\]"):
            lib.AbsMaxQuantizer(value_range=(-200, 127))
    assert kg.Quantizer is kq.Quantizer and kq.Quantizer()(3.0) == 3.0
    with pytest.raises(NotImplementedError):
        kq.Quantizer().get_config()


@pytest.mark.parametrize("shape, block, value_range", [((10, 4), 4, (-8, 7)),
                                                       ((5, 6), 8, (-8, 7)),
                                                       ((12, 2), 3, (-128, 127))])
def test_grouped_quantize_with_zero_point_matches_keras(shape, block, value_range):
    x = _array(shape) + 0.5
    for to_numpy in (False, True):
        ours = kq.abs_max_quantize_grouped_with_zero_point(x, block, value_range,
                                                           to_numpy=to_numpy)
        theirs = keras.quantizers.abs_max_quantize_grouped_with_zero_point(
            x, block, value_range, to_numpy=to_numpy)
        for a, b in zip(ours, theirs, strict=True):
            _same(a, b)


@pytest.mark.parametrize("kwargs", [
    {"bits": 4}, {"bits": 4, "per_channel": True, "group_size": 3},
    {"bits": 3, "symmetric": True},
    {"bits": 4, "per_channel": True, "group_size": 4, "signed": True, "epsilon": 1e-3},
    {"bits": 8, "symmetric": True, "signed": True, "per_channel": True}])
def test_compute_quantization_parameters_and_sz_maps_match_keras(kwargs):
    from keras.src.quantizers import quantizers as keras_impl

    x = _array((5, 10))
    x = x.at[1].set(0.25)  # a constant row: a zero range widened by one on each side
    ours = kq.compute_quantization_parameters(x, **kwargs)
    theirs = keras_impl.compute_quantization_parameters(x, **kwargs)
    for a, b in zip(ours, theirs, strict=True):
        _same(a, b)
    scale, zero, maxq = ours
    g_idx = np.arange(10) // max(kwargs.get("group_size", 10), 1) % scale.shape[1]
    q_ours = kq.quantize_with_sz_map(x, scale, zero, g_idx, maxq)
    _same(q_ours, keras_impl.quantize_with_sz_map(x, scale, zero, g_idx, maxq))
    _same(kq.dequantize_with_sz_map(q_ours, scale, zero, g_idx),
          keras_impl.dequantize_with_sz_map(q_ours, scale, zero, g_idx))


@pytest.mark.parametrize("case, dtype", [
    ({"shape": (4, 5), "min": -1.0, "max": 1.0}, "float32"),
    ({"shape": (4, 5), "min": -0.3, "max": 2.5, "num_bits": 4, "narrow_range": True},
     "bfloat16"),
    ({"shape": (3, 4, 2), "min": [-1.0, -0.5], "max": [1.0, 0.7], "axis": -1}, "float32"),
    ({"shape": (6, 3), "min": [-1.5, 0.1, -2.0], "max": [0.2, 1.0, 2.0], "axis": 1,
      "num_bits": 6}, "bfloat16")])
def test_fake_quant_values_and_gradients_match_keras(case, dtype):
    x = _array(case["shape"], dtype)
    lo, hi = np.asarray(case["min"], "float32"), np.asarray(case["max"], "float32")
    kwargs = {k: case[k] for k in ("num_bits", "narrow_range", "axis") if k in case}
    weights = _array(case["shape"], dtype)

    def loss(fn):
        return lambda x, lo, hi: jnp.sum(fn(x, lo, hi, **kwargs) * weights).astype("float32")

    _same(kq.fake_quant_with_min_max_vars(x, lo, hi, **kwargs),
          keras.quantizers.fake_quant_with_min_max_vars(x, lo, hi, **kwargs))
    ours = jax.grad(loss(kq.fake_quant_with_min_max_vars), argnums=(0, 1, 2))(x, lo, hi)
    theirs = jax.grad(loss(keras.quantizers.fake_quant_with_min_max_vars),
                      argnums=(0, 1, 2))(x, lo, hi)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(np.asarray(a, "float32"), np.asarray(b, "float32"),
                                   rtol=1e-6)
    assert float(jnp.abs(ours[0]).sum()) > 0  # gradients reach the inputs in range


def test_fake_quant_in_a_graph_is_a_node():
    x = kg.Input(shape=(5,))
    model = kg.Model(x, kq.fake_quant_with_min_max_vars(x, -1.0, 1.0, num_bits=4))
    data = _array((3, 5))
    _same(model(data), keras.quantizers.fake_quant_with_min_max_vars(data, -1.0, 1.0,
                                                                      num_bits=4))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_float8_functions_match_keras(dtype):
    history = jnp.abs(_array((16,)))
    history = history.at[3].set(0.0)
    for amax in [history.max(), jnp.float32(0.0), jnp.float32(np.inf)]:
        for margin in (0, 2):
            _same(kq.compute_float8_scale(amax, jnp.float32(0.5), 448.0, margin),
                  keras.quantizers.compute_float8_scale(amax, jnp.float32(0.5), 448.0, margin))
    x = _array((4, 7), dtype, scale=50.0)
    _same(kq.compute_float8_amax_history(x, history),
          keras.quantizers.compute_float8_amax_history(x, history))
    for fp8 in ("float8_e4m3fn", "float8_e5m2"):
        for scale in (jnp.float32(0.05), jnp.float32(1.0)):
            _same(kq.quantize_and_dequantize(x, scale, fp8, dtype),
                  keras.quantizers.quantize_and_dequantize(x, scale, fp8, dtype))


@pytest.mark.parametrize("shape, axis, dtype", [((3, 2), 0, "int8"), ((2, 3), 1, "uint8"),
                                                ((4, 5, 3), 1, "int8"),
                                                ((4, 5, 3), -1, "uint8"), ((5,), 0, "int8"),
                                                ((6, 4), -2, "int8")])
def test_pack_and_unpack_int4_match_keras(shape, axis, dtype):
    low, high = (-8, 8) if dtype == "int8" else (0, 16)
    values = jnp.asarray(RNG.integers(low, high, shape).astype(dtype))
    ours = kq.pack_int4(values, axis=axis, dtype=dtype)
    theirs = keras.quantizers.pack_int4(values, axis=axis, dtype=dtype)
    _same(ours[0], theirs[0])
    assert ours[1:] == theirs[1:]
    unpacked = kq.unpack_int4(ours[0], ours[2], axis=axis, dtype=dtype)
    _same(unpacked, keras.quantizers.unpack_int4(theirs[0], theirs[2], axis=axis, dtype=dtype))
    _same(unpacked, values)
    for lib in (kq, keras.quantizers):
        with pytest.raises(TypeError, match="for packing"):
            lib.pack_int4(values.astype("int32"), axis=axis)
        with pytest.raises(ValueError, match="'int8' or 'uint8'"):
            lib.unpack_int4(ours[0], ours[2], dtype="int4")


def _configs(lib):
    q = lib.quantizers
    return [q.AbsMaxQuantizer(axis=0, value_range=(-8, 7)), q.Int8QuantizationConfig(),
            q.Int8QuantizationConfig(weight_quantizer=q.AbsMaxQuantizer(axis=0),
                                     activation_quantizer=None),
            q.Int4QuantizationConfig(), q.Int4QuantizationConfig(block_size=None),
            q.Int4QuantizationConfig(
                weight_quantizer=q.AbsMaxQuantizer(axis=0, value_range=(-8, 7)),
                activation_quantizer=q.AbsMaxQuantizer(), block_size=-1),
            q.Float8QuantizationConfig(),
            q.GPTQConfig(dataset=["a"], tokenizer=None, weight_bits=3, group_size=-1,
                         symmetric=True),
            q.AWQConfig(dataset=None, tokenizer=None, group_size=32, num_grid_points=5)]


def test_configs_round_trip_and_load_on_both_sides():
    for ours, theirs in zip(_configs(kg), _configs(keras), strict=True):
        config = kq.serialize(ours)
        assert config == keras.quantizers.serialize(theirs)
        back = kq.deserialize(keras.quantizers.serialize(theirs))
        assert type(back) is type(ours) and kq.serialize(back) == config
        if not isinstance(ours, kq.GPTQConfig):  # Keras's table lacks GPTQConfig
            assert keras.quantizers.serialize(keras.quantizers.deserialize(config)) == config
        assert kg.saving.deserialize_keras_object(config).get_config() == ours.get_config()
        if hasattr(ours, "mode"):
            assert ours.mode == theirs.mode
    assert kq.ALL_OBJECTS_DICT.keys() >= {"abs_max_quantizer", "int8_quantization_config"}
    assert kq.get(None) is None
    assert kq.get("AbsMaxQuantizer").get_config() == \
        keras.quantizers.get("AbsMaxQuantizer").get_config()
    for lib in (kq, keras.quantizers):  # a config is not callable: Keras's get refuses it
        with pytest.raises(ValueError, match="Could not interpret quantizer identifier"):
            lib.get(lib.Int8QuantizationConfig())
    assert _configs(kg)[7].dtype_policy_string() == _configs(keras)[7].dtype_policy_string()


@pytest.mark.parametrize("mode, config", [
    ("int8", None), ("int4", None), ("float8", None), (None, "int4"), ("gptq", None),
    ("awq", None), ("int3", None), (None, None), ("int4", "int8_config"),
    ("int8", "not a config object")])
def test_validate_and_resolve_config_matches_keras(mode, config):
    from keras.src.quantizers.quantization_config import validate_and_resolve_config
    from kgraph.quantizers.configs import validate_and_resolve_config as ours

    def resolve(lib, fn):
        arg = lib.quantizers.Int8QuantizationConfig() if config == "int8_config" else config
        try:
            return fn(mode, arg).get_config(), None
        except ValueError as error:
            return None, str(error).split(". Received")[0].split(" Received")[0]

    assert resolve(kg, ours) == resolve(keras, validate_and_resolve_config)


def test_config_errors_match_keras():
    for lib in (kg, keras):
        q = lib.quantizers
        with pytest.raises(ValueError, match="output_dtype='int8'"):
            q.Int8QuantizationConfig(weight_quantizer=q.AbsMaxQuantizer(output_dtype="int16",
                                                                        value_range=(-9, 9)))
        with pytest.raises(ValueError, match="does not support custom quantizers"):
            q.Int4QuantizationConfig(activation_quantizer=q.AbsMaxQuantizer())
        with pytest.raises(ValueError, match=r"value_range=\(-8, 7\)"):
            q.Int4QuantizationConfig(weight_quantizer=q.AbsMaxQuantizer(), block_size=None)
        with pytest.raises(ValueError, match="block_size must be None, -1"):
            q.Int4QuantizationConfig(block_size=0)
        with pytest.raises(ValueError, match="Unsupported weight_bits 5"):
            q.GPTQConfig(None, None, weight_bits=5)
        with pytest.raises(ValueError, match="hessian_damping"):
            q.GPTQConfig(None, None, hessian_damping=2.0)
        with pytest.raises(ValueError, match="AWQ only supports 4-bit"):
            q.AWQConfig(None, None, weight_bits=8)
        with pytest.raises(ValueError, match="num_grid_points"):
            q.AWQConfig(None, None, num_grid_points=0)
