"""``keras.dtype_policies``: dtype policies by Keras's names (see ``kgraph.dtype_policy``).

>>> get("mixed_bfloat16").compute_dtype.name
'bfloat16'
>>> deserialize(serialize(DTypePolicy("float16"))).name
'float16'
"""

from kgraph.dtype_policy import DTypePolicy, get

FloatDTypePolicy = DTypePolicy

__all__ = ["DTypePolicy", "FloatDTypePolicy", "deserialize", "get", "serialize"]


def serialize(policy) -> dict:
    """Keras 3's config of a policy: ``{"module", "class_name", "config": {"name"}}``."""
    return {"module": "keras", "class_name": "DTypePolicy",
            "config": {"name": get(policy).name}, "registered_name": None}


def deserialize(config, custom_objects=None) -> DTypePolicy:
    """A policy from ``serialize``'s output, or a name."""
    if isinstance(config, dict):
        return DTypePolicy((config.get("config") or {}).get("name", "float32"))
    return get(config)
