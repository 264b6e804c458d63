"""Quantized ``Dense``, ``EinsumDense`` and ``Embedding``, as Keras 3 quantizes them.

``layer.quantize(mode)`` (or ``model.quantize(mode)``, which quantizes every such layer of
the model, nested models included) replaces the layer's float kernel by Keras's variables
and sets its dtype policy to the quantized one (``"int8_from_float32"``, ...):

* ``"int8"``: an int8 ``kernel`` (``embeddings``) quantized per output channel with
  ``AbsMaxQuantizer``, and a float ``kernel_scale`` (``embeddings_scale``); the inputs of
  ``Dense`` / ``EinsumDense`` are quantized per row at each call, unless the config's
  ``activation_quantizer`` is None (weight-only);
* ``"int4"``: the same kernel with values in ``[-8, 7]``, two per byte (``pack_int4``
  along the output axis), weight-only; with a ``block_size`` (the default config's 128),
  one scale and int8 ``kernel_zero`` per block of input rows, and ``g_idx``;
* ``"float8"`` (``Dense`` and ``EinsumDense``): the float kernel stays; inputs and kernel
  are quantized to float8 and back at each call with scales updated from amax histories
  (delayed scaling) while training, see ``kgraph.layers.quantized_float8``;
* ``"gptq"`` / ``"awq"`` (with a ``GPTQConfig`` / ``AWQConfig``; ``Dense`` and
  ``EinsumDense``): Keras's variables of the calibrated kernel, which a file Keras
  calibrated fills; kgraph does not run the calibration, see
  ``kgraph.layers.quantized_calibrated``.

``ReversibleEmbedding`` quantizes as ``Embedding`` and also its reversed projection (its
untied ``reverse_embeddings``), see ``kgraph.layers.quantized_reverse``. A LoRA layer
quantizes its frozen kernel and keeps its factors; an int8 or int4 layer takes LoRA
(``kgraph.layers.quantized_lora``).

Quantized kernels and scales are non-trainable: in a compiled program they are in
``state``, and training updates the other weights (the bias) with the inputs' gradient
computed through the dequantized kernel, as Keras's custom gradient does. A quantized
layer's config carries its policy and ``quantization_config``; a model quantized in Keras
and saved loads in kgraph (and the other way) with the same variables and numbers.

>>> import kgraph as kg, numpy as np
>>> layer = kg.layers.Dense(3)
>>> _ = layer(np.ones((2, 4), "float32"))
>>> layer.quantize("int8")
>>> layer.dtype_policy.name, [(w.name, w.dtype.name) for w in layer.weights]
('int8_from_float32', [('bias', 'float32'), ('kernel', 'int8'), ('kernel_scale', 'float32')])
"""

from __future__ import annotations

import re
import warnings

from kgraph import dtype_policies
from kgraph.base import catalog, keras_internals
from kgraph.layers import quantized_calls
from kgraph.layers.quantized_calls import build, call, calibration_not_offered
from kgraph.quantizers.configs import (QUANTIZATION_MODES, QuantizationConfig, deserialize,
                                       validate_and_resolve_config)
from kgraph.quantizers.configs import serialize as _serialize_quantizer

__all__ = ["Quantizable", "build", "call", "check_quantize_args", "config_argument",
           "quantize_model", "should_quantize_layer"]


def config_argument(layer_name, quantization_config):
    """A layer's ``quantization_config`` argument: None, a ``QuantizationConfig``, or its
    serialized form (as a saved config holds it)."""
    if quantization_config is None or isinstance(quantization_config, QuantizationConfig):
        return quantization_config
    if isinstance(quantization_config, dict):
        return deserialize(quantization_config)
    raise ValueError(f'Layer "{layer_name}": quantization_config must be None, a '
                     "kgraph.quantizers.QuantizationConfig or its serialized config, received "
                     f"{quantization_config!r}.")


def check_quantize_args(layer, mode, compute_dtype):
    """Keras's checks before quantizing ``layer`` to ``mode``."""
    if not layer.built:
        raise ValueError(f"Cannot quantize a layer that isn't yet built. Layer "
                         f"'{layer.name}' (of type '{type(layer).__name__}') is not built yet.")
    if getattr(layer, "_is_quantized", False):
        raise ValueError(f"Layer '{layer.name}' is already quantized with "
                         f"dtype_policy='{layer.dtype_policy.name}'. Received: mode={mode}")
    if mode not in QUANTIZATION_MODES:
        raise ValueError(f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. "
                         f"Received: mode={mode}")
    if mode == "int8" and str(getattr(compute_dtype, "name", compute_dtype)) == "float16":
        raise ValueError(f"Quantization mode='{mode}' doesn't work well with "
                         "compute_dtype='float16'. Consider loading model/layer with another "
                         "dtype policy such as 'mixed_bfloat16' or 'mixed_float16' before "
                         "calling `quantize()`.")


def _not_implemented(layer, what="quantize"):
    return NotImplementedError(f"Layer {type(layer).__name__} does not have a `{what}` "
                               "method implemented.")


def _unsupported_quantize(layer, mode, config):
    """``quantize`` of a layer without a quantized form (the base layer's): Keras's
    argument checks, then NotImplementedError."""
    config = validate_and_resolve_config(mode, config)
    check_quantize_args(layer, config.mode, layer.compute_dtype)
    raise _not_implemented(layer)


keras_internals.register_unsupported_quantize(_unsupported_quantize)


class Quantizable:
    """Keras's quantization of a layer (mixed into ``Dense``, ``EinsumDense`` and
    ``Embedding``, which name their ``_quantized_kind`` and ``_quantized_weight``, the
    attribute of their kernel)."""

    _quantized_kind = None  # "dense", "einsum" or "embedding"
    _quantized_weight = "kernel"

    def quantize(self, mode=None, type_check=True, config=None):
        """Quantize the built layer to ``mode`` (``"int8"``, ``"int4"``, ``"float8"``) or by
        ``config`` (a ``kgraph.quantizers.QuantizationConfig``), as Keras's
        ``layer.quantize``. A subclass is not quantized unless ``type_check=False``."""
        config = validate_and_resolve_config(mode, config)
        mode = config.mode
        check_quantize_args(self, mode, self.compute_dtype)
        if type_check and "_quantized_kind" not in vars(type(self)):
            raise _not_implemented(self)
        with self._unlocked_state():
            quantized_calls.quantize(self, mode, config)

    def quantized_build(self, kernel_shape, mode, config=None):
        """Create the quantized variables of ``mode`` for a float kernel of
        ``kernel_shape`` (Keras's method; ``quantize`` calls it on a built layer)."""
        if mode not in QUANTIZATION_MODES:
            raise self._quantization_mode_error(mode)
        with self._unlocked_state():
            quantized_calls.build_quantized(self, mode, tuple(kernel_shape), config)

    def quantized_call(self, *args, **kwargs):
        """The forward pass of the quantized layer (Keras's method: ``call`` runs it when
        the layer's policy is quantized)."""
        if self.quantization_mode not in QUANTIZATION_MODES:
            raise self._quantization_mode_error(self.quantization_mode)
        return quantized_calls.call(self, *args, **kwargs)

    def __getattr__(self, name):
        # A quantized layer keeps its kernel as ``_kernel``; ``kernel`` reads it as Keras's
        # property does (int4: unpacked). A float layer's ``_kernel`` is its kernel, as
        # Keras's (which keeps it there and reads it through the ``kernel`` property).
        weight = type(self)._quantized_weight
        var_attrs = self.__dict__.get("_var_attrs")
        if name == weight and var_attrs and ("_" + name in var_attrs or self.__dict__.get(
                "_is_quantized") and self.quantization_mode in ("gptq", "awq")):
            return quantized_calls.kernel_view(self)
        if name == "_" + weight and var_attrs and weight in var_attrs:
            return super().__getattr__(weight)
        return super().__getattr__(name)

    def _keras_ordered_variables(self):
        """Keras's file order of a quantized layer's weights (its
        ``variable_serialization_spec``)."""
        mode = self.quantization_mode
        if mode is None:
            return super()._keras_ordered_variables()
        return quantized_calls.file_order(self, mode)

    def load_own_variables(self, store):
        """Keras's loading; a GPTQ / AWQ layer's file holds calibrated values."""
        super().load_own_variables(store)
        mode = self.quantization_mode
        if mode in ("gptq", "awq"):
            setattr(self, f"is_{mode}_calibrated", True)

    def get_config(self):
        config = super().get_config()
        if self.dtype_policy.quantization_mode is not None:
            config["dtype"] = dtype_policies.serialize(self.dtype_policy)
        return config

    # Hooks of a layer that quantizes more weights than its kernel (ReversibleEmbedding's
    # untied ``reverse_embeddings``, see ``kgraph.layers.quantized_reverse``).
    def _quantized_companion_names(self, mode) -> list:
        """The other quantized weights' names, in Keras's file order after the kernel's."""
        return []

    def _quantize_companions(self, mode, config) -> dict:
        """The other weights' quantized values by name (their float weights removed)."""
        return {}

    def _build_quantized_companions(self, mode, config) -> None:
        """Create the other quantized weights (after the kernel's)."""

    def _quantization_config_entry(self):
        return _serialize_quantizer(self.__dict__.get("quantization_config"))


def should_quantize_layer(layer, filters) -> bool:
    """Keras's ``filters`` of ``model.quantize``: a regex searched in the layer's name, a
    list of them (any), or a callable taking the layer."""
    if filters is None:
        return True
    if isinstance(filters, str):
        return bool(re.search(filters, layer.name))
    if isinstance(filters, (list, tuple)):
        return any(re.search(pattern, layer.name) for pattern in filters)
    if callable(filters):
        return filters(layer)
    return True


def quantize_model(model, mode=None, config=None, filters=None, **kwargs):
    """``model.quantize``: quantize each layer without sub-layers that ``filters`` keeps;
    a layer that cannot be quantized is skipped with Keras's warning."""
    type_check = kwargs.pop("type_check", True)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments passed to {type(model).__name__}: "
                         f"{kwargs}")
    config = validate_and_resolve_config(mode, config)
    mode = config.mode
    check_quantize_args(model, mode, model.compute_dtype)
    if filters is not None and not isinstance(filters, (str, list, tuple)) and not callable(
            filters):
        raise ValueError("The `filters` argument must be a regex string, a list of regex "
                         f"strings, or a callable. Received: {type(filters)}")
    if mode in ("gptq", "awq"):
        raise calibration_not_offered(model, mode)
    for layer in model._flatten_layers():
        if catalog.is_operation(type(layer)) or not should_quantize_layer(layer, filters):
            continue
        if len(layer._flatten_layers()) == 1:
            try:
                layer.quantize(mode, type_check=type_check, config=config)
            except NotImplementedError as error:
                warnings.warn(str(error), stacklevel=3)
            except AttributeError:
                pass
