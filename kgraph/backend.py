"""``keras.backend``'s basics: the backend is always JAX.

>>> import kgraph as kg
>>> kg.backend.backend(), kg.backend.floatx(), kg.backend.epsilon()
('jax', 'float32', 1e-07)
"""

from __future__ import annotations

import gc

import jax.numpy as jnp

from kgraph import dtype_policy
from kgraph.base.naming import reset_names
from kgraph.dtypes import result_type
from kgraph.config import (backend, epsilon, floatx, image_data_format, set_epsilon, set_floatx,
                           set_image_data_format, standardize_dtype)
from kgraph.graph.keras_tensor import is_keras_tensor

__all__ = ["backend", "clear_session", "epsilon", "floatx", "get_uid", "image_data_format",
           "is_float_dtype", "is_int_dtype", "is_keras_tensor", "result_type", "set_epsilon",
           "set_floatx", "set_image_data_format", "standardize_dtype"]

_uids: dict = {}


def clear_session(free_memory=True) -> None:
    """Start afresh, as in a new process: automatic layer names count from 1 again, and the
    global dtype policy is a new one of ``floatx`` (as Keras's, a policy set with
    ``set_dtype_policy`` is forgotten).

    Models already built keep their layers and names; ``free_memory`` runs the garbage
    collector.
    """
    reset_names()
    _uids.clear()
    dtype_policy.set_global_policy(dtype_policy.DTypePolicy(floatx()))
    if free_memory:
        gc.collect()


def get_uid(prefix="") -> int:
    """1, 2, 3, ... per ``prefix`` (since the last ``clear_session``)."""
    _uids[prefix] = _uids.get(prefix, 0) + 1
    return _uids[prefix]


def is_float_dtype(dtype) -> bool:
    return jnp.issubdtype(jnp.dtype(standardize_dtype(dtype)), jnp.floating)


def is_int_dtype(dtype) -> bool:
    return jnp.issubdtype(jnp.dtype(standardize_dtype(dtype)), jnp.integer)


