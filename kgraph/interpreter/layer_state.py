"""When two layers compute the same function without tracing them: kgraph's own layers
holding the same state.

A kgraph layer's ``call`` (one of the catalog's classes, not a subclass of it) reads
nothing but its own attributes, its weights and its inputs. Two such layers of one class,
without sub-layers, whose attributes are equal value for value (numbers and strings by
value, arrays by content, functions and other objects by identity, kgraph's
regularizers and initializers by class and config) and whose weights have the same
names, shapes and dtypes, compute the same function: their names aside, every line of
``call`` sees the same values. This is a proof by construction, stricter than comparing
configs: a config says ``"<lambda>"`` for any lambda, the attribute holds the function
itself. Anything it cannot settle (a user layer, a sub-layer, an object it does not
know) answers False, and the caller traces (``kgraph.interpreter.fingerprint``).

>>> import jax.numpy as jnp, kgraph as kg
>>> a, b = kg.layers.Dense(3, activation="relu"), kg.layers.Dense(3, activation="relu")
>>> c = kg.layers.Dense(3, activation=lambda t: t)
>>> for layer in (a, b, c):
...     _ = layer(jnp.ones((1, 2)))
>>> same_state(a, b), same_state(a, c)
(True, False)
"""

from __future__ import annotations

import jax
import numpy as np

__all__ = ["same_state"]


# Attributes that are bookkeeping (names, graph records, caches), not what ``call`` reads;
# the weights are compared by their own description.
_BOOKKEEPING = frozenset({"name", "_name_base", "_auto_name", "_created", "_name_local",
                          "_namespaces", "_inbound_nodes", "_output_spec_cache", "losses",
                          "_warned_input_keys", "_own_variables", "_var_attrs",
                          "_input_shape_arg", "_tracker", "_parent_chain"})
_PLAIN = (type(None), bool, int, float, complex, str, bytes)


def _builtin(obj) -> bool:
    return type(obj).__module__.startswith("kgraph.")


def _same_value(a, b) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, _PLAIN):
        return a == b
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, (np.ndarray, np.generic, jax.Array)):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if type(a).__name__ in ("DTypePolicy", "InputSpec") and _builtin(a):
        return repr(a) == repr(b)
    if _builtin(a) and hasattr(a, "get_config"):  # kgraph's regularizers, initializers
        return _same_value(a.get_config(), b.get_config())
    return False  # a function or an object not known here: only itself is the same


def _weights(layer) -> tuple:
    own = layer.__dict__.get("_own_variables", [])
    described = tuple((v.name, v.shape, str(v.dtype), v.trainable, v.autocast) for v in own)
    index = {id(v): i for i, v in enumerate(own)}
    attributes = tuple(sorted((name, index.get(id(v), -1))
                              for name, v in layer.__dict__.get("_var_attrs", {}).items()))
    return described, attributes


def same_state(a, b) -> bool:
    """Whether layers ``a`` and ``b`` compute the same function by construction (see the
    module docstring); False when that can't be settled without a trace."""
    if type(a) is not type(b) or not type(a).__module__.startswith("kgraph.layers."):
        return False
    if a._tracked_layers() or b._tracked_layers():
        return False
    if _weights(a) != _weights(b):
        return False
    keys = set(a.__dict__) - _BOOKKEEPING
    if keys != set(b.__dict__) - _BOOKKEEPING:
        return False
    return all(_same_value(a.__dict__[key], b.__dict__[key]) for key in keys)
