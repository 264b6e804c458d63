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

import functools
import math
import threading

import jax
import numpy as np

from kgraph.graph.keras_tensor import KerasTensor
from kgraph.interpreter import context

__all__ = ["RematScope", "get_current_remat_mode", "remat", "rematerialized_call"]

_MODES = ("full", "activations", "larger_than", "list_of_layers", None)
_local = threading.local()


def remat(f):
    """``f`` rematerialized: called with the same arguments, its intermediate values are
    recomputed in the backward pass (``jax.checkpoint``; the weights it assigns and the
    losses it adds inside a layer's call still reach that call, see
    ``kgraph.interpreter.context.checkpoint``). Arguments that are not arrays pass as they
    are."""

    @functools.wraps(f)
    def rematerialized(*args, **kwargs):
        return context.checkpoint(lambda a, k: f(*a, **k), args, kwargs)

    return rematerialized


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


def rematerialized_call(layer, layer_call, args, kwargs):
    """``layer_call`` (the layer's ``call``), rematerialized as the layer's ``_remat_mode``
    says (Keras's ``Layer.rematerialized_call``): itself when the layer was not made in a
    ``RematScope``, or when the mode leaves this layer out."""
    mode = layer._remat_mode
    if mode is None:
        return layer_call
    if mode.mode == "activations":
        activation = getattr(layer, "activation", None)
        if activation is None:
            return layer_call

        @functools.wraps(layer_call)
        def with_rematerialized_activation(*call_args, **call_kwargs):
            layer.activation = remat(activation)
            try:
                return layer_call(*call_args, **call_kwargs)
            finally:
                layer.activation = activation

        return with_rematerialized_activation
    if mode.mode == "list_of_layers":
        return remat(layer_call) if layer.name in mode.layer_names else layer_call
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
        return remat(layer_call) if size > mode.output_size_threshold else layer_call
    return remat(layer_call)  # "full"


def _is_array(value) -> bool:
    return isinstance(value, (jax.Array, np.ndarray, jax.core.Tracer))
