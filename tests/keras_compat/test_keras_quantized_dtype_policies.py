"""Quantized dtype policies as Keras's: the classes each name gives, their properties,
configs, equality and errors, and their serialized forms (alone and in a
``DTypePolicyMap``) loading on both sides."""

import keras
import pytest

import kgraph as kg
from kgraph import dtype_policies as kdp

NAMES = ["int8_from_float32", "int8_from_mixed_bfloat16", "int8_from_bfloat16",
         "int4_from_float32", "int4/128_from_float32", "int4/-1_from_mixed_bfloat16",
         "float8_from_float32", "float8_from_mixed_bfloat16", "gptq/4/128_from_float32",
         "gptq/3/-1_from_bfloat16", "awq/4/64_from_float32", "awq/4/-1_from_mixed_float16"]


def _describe(policy):
    described = {"class": type(policy).__name__, "name": policy.name,
                 "mode": policy.quantization_mode,
                 "compute": str(getattr(policy.compute_dtype, "name", policy.compute_dtype)),
                 "variable": str(getattr(policy.variable_dtype, "name", policy.variable_dtype)),
                 "config": policy.get_config(), "repr": repr(policy)}
    for attr in ("amax_history_length", "block_size", "weight_bits", "group_size", "mode"):
        if attr in vars(type(policy)) or attr in vars(policy) or hasattr(type(policy), attr):
            described[attr] = getattr(policy, attr)
    return described


@pytest.mark.parametrize("name", NAMES)
def test_each_name_gives_kerass_policy(name):
    ours, theirs = kdp.get(name), keras.dtype_policies.get(name)
    assert _describe(ours) == _describe(theirs)
    config = kdp.serialize(ours)
    assert config == keras.dtype_policies.serialize(theirs)
    assert kdp.deserialize(config) == ours
    assert keras.dtype_policies.deserialize(config) == theirs
    cls = getattr(kdp, type(ours).__name__)
    assert cls.from_config(ours.get_config()) == ours
    assert getattr(kg.dtype_policies, type(theirs).__name__) is type(ours)


def test_constructors_equality_and_defaults_match_keras():
    for lib in (kdp, keras.dtype_policies):
        assert lib.QuantizedDTypePolicy("int8", "float32") == lib.get("int8_from_float32")
        assert lib.QuantizedDTypePolicy("int8", "float32") != lib.QuantizedDTypePolicy(
            "int8", "bfloat16")
        assert lib.QuantizedDTypePolicy("int8", "float32") != lib.DTypePolicy("float32")
        assert lib.QuantizedFloat8DTypePolicy("float8", "float32", 16) != \
            lib.QuantizedFloat8DTypePolicy("float8", "float32")
        assert lib.QuantizedFloat8DTypePolicy.default_amax_history_length == 1024
        assert lib.Int4DTypePolicy("int4/32", "float32") != lib.Int4DTypePolicy("int4/64",
                                                                               "float32")
        assert lib.DTypePolicy("float32").quantization_mode is None
    kg.config.set_dtype_policy("mixed_bfloat16")
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:  # the source defaults to the global policy
        assert kdp.QuantizedDTypePolicy("int8").name == \
            keras.dtype_policies.QuantizedDTypePolicy("int8").name == "int8_from_mixed_bfloat16"
    finally:
        kg.config.set_dtype_policy("float32")
        keras.config.set_dtype_policy("float32")


@pytest.mark.parametrize("make, message", [
    (lambda lib: lib.QuantizedDTypePolicy("int3", "float32"), "Invalid quantization mode"),
    (lambda lib: lib.QuantizedDTypePolicy("int8", "float16"), "doesn't work well with"),
    (lambda lib: lib.QuantizedFloat8DTypePolicy("float8", "float32", 1.5), "must be an integer"),
    (lambda lib: lib.Int4DTypePolicy("int4", "float32"), "Expected format 'int4/<block_size>'"),
    (lambda lib: lib.Int4DTypePolicy("int4/x", "float32"), "must be an integer"),
    (lambda lib: lib.Int4DTypePolicy("int4/0", "float32"), "Invalid block_size"),
    (lambda lib: lib.GPTQDTypePolicy("gptq/5/128", "float32"), "Supported values are 2, 3"),
    (lambda lib: lib.GPTQDTypePolicy("gptq/4/-2", "float32"), "Invalid group_size"),
    (lambda lib: lib.AWQDTypePolicy("awq/8/128", "float32"), "AWQ only supports 4-bit"),
    (lambda lib: lib.AWQDTypePolicy("awq/4", "float32"), "Expected format"),
    (lambda lib: lib.get("int8_float32"), "Cannot convert `policy` into a valid pair")])
def test_errors_match_keras(make, message):
    for lib in (kdp, keras.dtype_policies):
        with pytest.raises((ValueError, TypeError), match=message):
            make(lib)


def test_policy_map_holds_quantized_policies_both_ways():
    ours = kdp.DTypePolicyMap("float32", {"block_0/dense": "int8_from_float32",
                                          "block_1/.*": kdp.get("float8_from_mixed_bfloat16"),
                                          "head": kdp.get("int4/64_from_float32")})
    assert ours["block_0/dense"] == kdp.get("int8_from_float32")
    assert ours["block_1/attention"].amax_history_length == 1024
    assert ours["block_2/dense"] == kdp.DTypePolicy("float32")
    assert ours.quantization_mode is None
    theirs = keras.dtype_policies.deserialize(kdp.serialize(ours))
    assert theirs["block_0/dense"] == keras.dtype_policies.get("int8_from_float32")
    assert theirs["block_1/attention"] == keras.dtype_policies.get("float8_from_mixed_bfloat16")
    assert theirs["head"] == keras.dtype_policies.get("int4/64_from_float32")
    back = kdp.deserialize(keras.dtype_policies.serialize(theirs))
    assert back == ours and back["head"].block_size == 64
    quantized_default = kdp.DTypePolicyMap("int8_from_mixed_bfloat16")
    keras_default = keras.dtype_policies.DTypePolicyMap("int8_from_mixed_bfloat16")
    assert quantized_default.quantization_mode == keras_default.quantization_mode == "int8"
    assert quantized_default.compute_dtype.name == keras_default.compute_dtype == "bfloat16"


def _attention_kernel_dtypes(lib):
    """A MultiHeadAttention given a map quantizing its projections by their paths."""
    quantized = lib.dtype_policies.QuantizedDTypePolicy("int8", "float32")
    policy_map = lib.dtype_policies.DTypePolicyMap()
    for name in ("query", "key"):
        policy_map[f"mha/{name}"] = quantized
    layer = lib.layers.MultiHeadAttention(num_heads=2, key_dim=4, use_bias=False,
                                          dtype=policy_map, name="mha")
    layer.build((1, 2, 3), (1, 2, 3))
    return {name: str(getattr(getattr(layer, f"_{name}_dense"), "_kernel").dtype)
            for name in ("query", "key", "value")}, layer._query_dense.path


def test_attention_projections_take_their_policy_map_entries_as_keras():
    dtypes, path = _attention_kernel_dtypes(kg)
    assert dtypes == {"query": "int8", "key": "int8", "value": "float32"}
    assert path == "mha/query"
    assert (dtypes, path) == _attention_kernel_dtypes(keras)
