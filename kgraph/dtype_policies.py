"""``keras.dtype_policies``: dtype policies by Keras's names (see ``kgraph.dtype_policy``).

>>> get("mixed_bfloat16").compute_dtype.name
'bfloat16'
>>> deserialize(serialize(DTypePolicy("float16"))).name
'float16'
>>> policies = DTypePolicyMap("float32", {"block_0/dense": "bfloat16"})
>>> policies["block_0/dense"].name, policies["block_1/dense"].name
('bfloat16', 'float32')
>>> deserialize(serialize(policies))["block_0/dense"].name
'bfloat16'
>>> quantized = get("int8_from_mixed_bfloat16")
>>> quantized, quantized.quantization_mode, quantized.variable_dtype.name
(<QuantizedDTypePolicy "int8_from_mixed_bfloat16">, 'int8', 'float32')
>>> serialize(quantized)["config"]
{'mode': 'int8', 'source_name': 'mixed_bfloat16'}
"""

from kgraph.dtype_policies_quantized import (AWQDTypePolicy, GPTQDTypePolicy, Int4DTypePolicy,
                                             QuantizedDTypePolicy, QuantizedFloat8DTypePolicy)
from kgraph.dtype_policy import DTypePolicy, DTypePolicyMap, get

FloatDTypePolicy = DTypePolicy

__all__ = ["AWQDTypePolicy", "DTypePolicy", "DTypePolicyMap", "FloatDTypePolicy",
           "GPTQDTypePolicy", "Int4DTypePolicy", "QuantizedDTypePolicy",
           "QuantizedFloat8DTypePolicy", "deserialize", "get", "serialize"]


def serialize(policy) -> dict:
    """Keras 3's config of a policy: ``{"module", "class_name", "config": {"name"}}``, or
    for a ``DTypePolicyMap`` its default policy's and each path's."""
    policy = get(policy)
    if isinstance(policy, DTypePolicyMap):
        return {"module": "keras.dtype_policies", "class_name": "DTypePolicyMap",
                "config": {"default_policy": serialize(policy.default_policy),
                           "policy_map": {path: serialize(one)
                                          for path, one in policy.items()}},
                "registered_name": None}
    if policy.quantization_mode is not None:
        return {"module": "keras.dtype_policies", "class_name": type(policy).__name__,
                "config": policy.get_config(), "registered_name": None}
    return {"module": "keras", "class_name": "DTypePolicy",
            "config": {"name": policy.name}, "registered_name": None}


def deserialize(config, custom_objects=None) -> DTypePolicy:
    """A policy from ``serialize``'s output, or a name."""
    return get(config)
