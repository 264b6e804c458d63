"""Keras 3's rematerialization API: ``remat(f)`` (``jax.checkpoint``) and ``RematScope``.

Layers made inside ``with RematScope(mode=...)`` rematerialize their calls: in the backward
pass their activations are recomputed instead of kept. ``mode`` is "full" (every layer made
in the scope), "larger_than" (layers whose outputs hold more than
``output_size_threshold`` values), "list_of_layers" (the layers named in ``layer_names``),
"activations" (only the ``activation`` of layers that have one) or None (off). The mode is
the scope's when the layer is made, as in Keras. For rules by layer path over a compiled
model, ``compile(remat=...)`` (``runtime.Remat``) does the same from outside.

>>> import jax, jax.numpy as jnp, kgraph as kg
>>> with RematScope(mode="full"):
...     layer = kg.layers.Dense(2)
>>> "remat" in str(jax.make_jaxpr(lambda x: layer(x))(jnp.ones((1, 3))))
True
"""

from __future__ import annotations

import math
import threading

import jax
import numpy as np

from kgraph.graph.keras_tensor import KerasTensor
from kgraph.interpreter import context

__all__ = ["RematScope", "get_current_remat_mode", "remat", "remat_call"]

_MODES = ("full", "activations", "larger_than", "list_of_layers", None)
_local = threading.local()


def remat(f):
    """``f`` rematerialized: its intermediate values are recomputed in the backward pass."""
    return jax.checkpoint(f)


class RematScope:
    """The rematerialization of the layers made inside it (see the module docstring)."""

    def __init__(self, mode="full", output_size_threshold=1024, layer_names=None):
        if mode not in _MODES:
            raise ValueError(f"Invalid mode {mode!r}. Supported modes are: 'full', "
                             "'activations', 'larger_than', 'list_of_layers', or None.")
        self.mode = mode
        self.output_size_threshold = output_size_threshold
        self.layer_names = list(layer_names or [])

    def __enter__(self):
        _stack().append(self)
        return self

    def __exit__(self, *exc_info):
        _stack().pop()
        return False

    def __repr__(self):
        return f"RematScope(mode={self.mode!r})"


def _stack() -> list:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def get_current_remat_mode():
    """The innermost open ``RematScope``, or None (none open, or its mode is None)."""
    stack = _stack()
    return stack[-1] if stack and stack[-1].mode is not None else None


def remat_call(layer, args, kwargs):
    """``layer.call(*args, **kwargs)`` rematerialized as the layer's ``_remat_mode`` says."""
    mode = layer._remat_mode
    if mode.mode == "activations":
        activation = getattr(layer, "activation", None)
        if activation is None:
            return layer.call(*args, **kwargs)
        layer.activation = remat(activation)
        try:
            return layer.call(*args, **kwargs)
        finally:
            layer.activation = activation
    if mode.mode == "list_of_layers" and layer.name not in mode.layer_names:
        return layer.call(*args, **kwargs)
    if mode.mode == "larger_than":
        layer._remat_mode = None  # its shapes, found without rematerializing (and cached
        try:                        # by shape: described by KerasTensors, not the arrays)
            spec_args, spec_kwargs = jax.tree_util.tree_map(
                lambda a: KerasTensor(a.shape, a.dtype) if _is_array(a) else a, (args, kwargs))
            specs = layer.compute_output_spec(*spec_args, **spec_kwargs)
        finally:
            layer._remat_mode = mode
        size = sum(math.prod(d or 1 for d in spec.shape)
                   for spec in jax.tree_util.tree_leaves(specs))
        if size <= mode.output_size_threshold:
            return layer.call(*args, **kwargs)
    return context.checkpoint(lambda a, k: layer.call(*a, **k), args, kwargs)


def _is_array(value) -> bool:
    return isinstance(value, (jax.Array, np.ndarray, jax.core.Tracer))
