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

from kgraph.path_keys import PatternMap

__all__ = ["DTypePolicy", "DTypePolicyMap", "get", "global_policy", "register_quantized",
           "set_global_policy"]


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

    @property
    def quantization_mode(self):
        """The quantization mode: None for a float policy (see
        ``kgraph.dtype_policies_quantized``)."""
        return self.__dict__.get("_quantization_mode")

    def get_config(self):
        return {"name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __eq__(self, other):
        return isinstance(other, DTypePolicy) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f'<DTypePolicy "{self.name}">'


class DTypePolicyMap(DTypePolicy, PatternMap):
    """Policies by layer path (``layer.path``, e.g. ``"decoder_0/attention/query"``), and a
    default policy for the paths it lacks; a policy itself, the default one's dtypes.

    A path is looked up as Keras looks it up (``kgraph.path_keys``: the exact key, else the
    one key that ``re.fullmatch``es it). A layer given a map computes with its default
    policy.
    """

    _what = "DTypePolicyMap"

    def __init__(self, default_policy=None, policy_map=None):
        PatternMap.__init__(self)
        self.default_policy = get(default_policy)
        self.variable_dtype = self.default_policy.variable_dtype
        self.compute_dtype = self.default_policy.compute_dtype
        self.name = f"map_{self.default_policy.name}"
        for path, policy in (policy_map or {}).items():
            self[path] = policy

    def _entry(self, path, policy):
        return get(policy)

    def _missing(self, path):
        return self.default_policy

    @property
    def quantization_mode(self):
        """The default policy's quantization mode."""
        return self.default_policy.quantization_mode

    def __eq__(self, other):
        return (isinstance(other, DTypePolicyMap) and other.default_policy == self.default_policy
                and other._entries == self._entries)

    __hash__ = None

    def __repr__(self):
        return f"<DTypePolicyMap default={self.default_policy.name!r} {self._entries}>"


_global_policy = DTypePolicy("float32")


def set_global_policy(policy) -> None:
    """The policy of layers created without ``dtype=`` from now on."""
    global _global_policy
    _global_policy = get(policy)


def global_policy() -> DTypePolicy:
    return _global_policy


def get(dtype) -> DTypePolicy:
    """A policy from None (the global one), a name, a dtype, a policy, or a Keras policy
    config (``{"class_name": "DTypePolicy", "config": {"name": ...}}``); quantized names
    (``"int8_from_float32"``) and configs give ``kgraph.dtype_policies_quantized``'s."""
    if dtype is None:
        return _global_policy
    if isinstance(dtype, DTypePolicy):
        return dtype
    if isinstance(dtype, dict) and dtype.get("class_name") == "DTypePolicyMap":
        inner = dtype.get("config") or {}
        return DTypePolicyMap(inner.get("default_policy"), inner.get("policy_map"))
    quantized = _quantized(dtype)
    if quantized is not None:
        return quantized
    if isinstance(dtype, dict):  # a serialized Keras DTypePolicy: {"class_name", "config"}
        return DTypePolicy((dtype.get("config") or {}).get("name", "float32"))
    return DTypePolicy(dtype if isinstance(dtype, str) else jnp.dtype(dtype).name)


# The quantized policies: ``kgraph.dtype_policies_quantized`` registers them when it is
# imported (``import kgraph`` imports it), so that this module does not import it.
_QUANTIZED = {"modes": (), "classes": {}, "by_name": None, "from_config": None}


def register_quantized(modes, classes, by_name, from_config) -> None:
    """Make ``get`` read quantized policies: names starting with one of ``modes`` go to
    ``by_name``, Keras configs of one of ``classes`` (by class name) to ``from_config``
    (called by ``kgraph.dtype_policies_quantized``)."""
    _QUANTIZED.update(modes=tuple(modes), classes=classes, by_name=by_name,
                      from_config=from_config)


def _quantized(dtype):
    """The quantized policy a name or Keras config stands for, else None."""
    if isinstance(dtype, str) and _QUANTIZED["modes"] and dtype.startswith(_QUANTIZED["modes"]):
        return _QUANTIZED["by_name"](dtype)
    if isinstance(dtype, dict) and dtype.get("class_name") in _QUANTIZED["classes"]:
        return _QUANTIZED["from_config"](dtype["class_name"], dtype.get("config"))
    return None
