"""Dtype policies: the dtype a layer stores its weights in and the dtype it computes in.

``"float32"`` / ``"bfloat16"`` / ``"float16"`` use one dtype for both; ``"mixed_bfloat16"``
and ``"mixed_float16"`` keep float32 weights and compute in the half type, as Keras's
mixed precision. A layer casts its floating inputs, and its floating weights as read in
``call``, to its compute dtype.

>>> policy = DTypePolicy("mixed_bfloat16")
>>> policy.variable_dtype.name, policy.compute_dtype.name
('float32', 'bfloat16')
"""

from __future__ import annotations

import jax.numpy as jnp

__all__ = ["DTypePolicy", "get", "global_policy", "set_global_policy"]


class DTypePolicy:
    """A named pair (variable dtype, compute dtype)."""

    def __init__(self, name="float32"):
        name = jnp.dtype(name).name if not str(name).startswith("mixed_") else str(name)
        if name.startswith("mixed_"):
            compute, variable = name[len("mixed_"):], "float32"
        else:
            compute = variable = name
        self.name = name
        self.variable_dtype = jnp.dtype(variable)
        self.compute_dtype = jnp.dtype(compute)

    def __eq__(self, other):
        return isinstance(other, DTypePolicy) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f'<DTypePolicy "{self.name}">'


_global_policy = DTypePolicy("float32")


def set_global_policy(policy) -> None:
    """The policy of layers created without ``dtype=`` from now on."""
    global _global_policy
    _global_policy = get(policy)


def global_policy() -> DTypePolicy:
    return _global_policy


def get(dtype) -> DTypePolicy:
    """A policy from None (the global one), a name, a dtype, a policy, or a Keras policy
    config (``{"class_name": "DTypePolicy", "config": {"name": ...}}``)."""
    if dtype is None:
        return _global_policy
    if isinstance(dtype, DTypePolicy):
        return dtype
    if isinstance(dtype, dict):  # a serialized Keras DTypePolicy: {"class_name", "config"}
        return DTypePolicy((dtype.get("config") or {}).get("name", "float32"))
    return DTypePolicy(dtype if isinstance(dtype, str) else jnp.dtype(dtype).name)
