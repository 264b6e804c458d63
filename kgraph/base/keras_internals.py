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
import contextlib

__all__ = ["KerasInternals", "register_unsupported_quantize"]

# What ``quantize`` does for a layer without a quantized form: Keras's argument checks, then
# its NotImplementedError. ``kgraph.layers.quantized`` registers it when it is imported
# (``import kgraph`` imports it), so that the base layer does not import the layers.
_UNSUPPORTED_QUANTIZE = []


def register_unsupported_quantize(function) -> None:
    """Set ``function(layer, mode, config)``, which ``KerasInternals.quantize`` calls
    (called by ``kgraph.layers.quantized``)."""
    _UNSUPPORTED_QUANTIZE[:] = [function]


class KerasInternals:
    """``_flatten_layers``, ``quantization_mode``, ``quantize`` and the quantized hooks
    (``quantized_build``, ``_int8_call``...), as Keras's ``Layer`` has them."""

    @property
    def quantization_mode(self):
        """The layer's quantization mode (its dtype policy's, e.g. ``"int8"``), None if it
        is not quantized."""
        if self.__dict__.get("_dtype_policy") is None:
            return None
        return self._own_policy().quantization_mode

    def quantize(self, mode=None, type_check=True, config=None):
        """Quantize the layer (see ``kgraph.layers.quantized``): a layer without a quantized
        form raises NotImplementedError, as Keras's (after Keras's argument checks)."""
        _UNSUPPORTED_QUANTIZE[0](self, mode, config)

    def _not_implemented_error(self, attr, msg=None) -> NotImplementedError:
        """Keras's error for a method or attribute the layer's class does not implement."""
        kind = "method" if callable(attr) else "attribute"
        name = attr.__name__ if callable(attr) else str(attr)
        extra = f" {msg}" if msg is not None else ""
        return NotImplementedError(f"Layer {type(self).__name__} does not have a `{name}` "
                                   f"{kind} implemented.{extra}")

    def _quantization_mode_error(self, mode) -> NotImplementedError:
        """Keras's error for a quantization mode the layer cannot run."""
        return NotImplementedError(f"Layer {type(self).__name__} ({self.name!r}): Invalid "
                                   "quantization mode. Expected one of ('int8', 'float8', "
                                   f"'int4', 'gptq', 'awq'). Received: quantization_mode={mode}")

    # Keras's hooks of a quantizable layer, which a layer without a quantized form lacks
    # (kgraph's quantizable layers quantize through ``kgraph.layers.quantized``).
    def quantized_build(self, input_shape, mode):
        raise self._not_implemented_error(self.quantized_build)

    def _int4_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._int4_call)

    def _int8_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._int8_call)

    def _float8_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._float8_call)

    def _gptq_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._gptq_call)

    def _awq_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._awq_call)

    @contextlib.contextmanager
    def _unlocked_state(self):
        """A block in which a built layer may add weights (quantizing, enabling LoRA), as
        Keras unlocks its tracker there."""
        tracker = self.__dict__.get("_tracker")
        was_locked = tracker is not None and tracker.locked
        if was_locked:
            tracker.unlock()
        try:
            yield
        finally:
            if was_locked:
                tracker.lock()

    def _build_at_init(self) -> None:
        """Keras's: a layer with nothing to build calls this at the end of ``__init__`` and
        is built when made; a subclass that defines ``build`` still builds on its input."""
        if getattr(type(self).build, "_is_default", False):  # the base's ``build``
            self.built = True
            self._lock_state()

    def _flatten_layers(self, include_self=True, recursive=True) -> list:
        """This layer (``include_self``) and its sub-layers, each once, in the order of
        Keras's ``Layer._flatten_layers`` (a sub-layer's own sub-layers come next, last
        first)."""
        found, seen = [self] if include_self else [], set()
        queue = collections.deque(self._flattened_children())
        while queue:
            layer = queue.popleft()
            if id(layer) not in seen:
                seen.add(id(layer))
                found.append(layer)
                if recursive:
                    queue.extendleft(layer._flattened_children())
        return found

    def _flattened_children(self) -> list:
        """The layers ``_flatten_layers`` goes to from this one."""
        return self._tracked_layers()
