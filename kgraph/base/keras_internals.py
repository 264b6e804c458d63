"""Keras's layer internals that libraries written for Keras call (KerasHub's backbones, for
one), with Keras's semantics: a base of ``kgraph.base.layer.Layer``.

>>> import kgraph as kg
>>> inner = kg.Sequential([kg.layers.Dense(2), kg.layers.Dense(2)], name="inner")
>>> x = kg.Input(shape=(3,), name="x")
>>> model = kg.Model(x, inner(kg.layers.Dense(3, name="first")(x)), name="outer")
>>> [layer.name for layer in model._flatten_layers()][:4]
['outer', 'x', 'first', 'inner']
>>> model.quantization_mode is None
True
"""

from __future__ import annotations

import collections

__all__ = ["KerasInternals"]


class KerasInternals:
    """``_flatten_layers`` and ``quantization_mode``, as Keras's ``Layer`` has them."""

    @property
    def quantization_mode(self):
        """The layer's quantization mode: None (kgraph does not quantize layers)."""
        return None

    def _flatten_layers(self, include_self=True, recursive=True) -> list:
        """This layer (``include_self``) and its sub-layers, each once, in the order of
        Keras's ``Layer._flatten_layers`` (a sub-layer's own sub-layers come next, last
        first)."""
        found, seen = [self] if include_self else [], set()
        queue = collections.deque(self._tracked_layers())
        while queue:
            layer = queue.popleft()
            if id(layer) not in seen:
                seen.add(id(layer))
                found.append(layer)
                if recursive:
                    queue.extendleft(layer._tracked_layers())
        return found
