"""``keras.quantizers``: quantizers, quantization configs and quantization functions.

``serialize`` writes Keras 3's config of a quantizer or config (``{"module":
"keras.quantizers", "class_name", "config", "registered_name"}``), which ``deserialize``
(and Keras) reads back.

>>> config = serialize(Int8QuantizationConfig())
>>> config["class_name"], config["config"]["activation_quantizer"]["class_name"]
('Int8QuantizationConfig', 'AbsMaxQuantizer')
>>> deserialize(config).mode
'int8'
>>> get("abs_max_quantizer").value_range
(-127, 127)
"""

from __future__ import annotations

from kgraph.quantizers.configs import (ALL_OBJECTS_DICT, AWQConfig, Float8QuantizationConfig,
                                       GPTQConfig, Int4QuantizationConfig,
                                       Int8QuantizationConfig, QuantizationConfig, deserialize,
                                       get, serialize)
from kgraph.quantizers.int4 import pack_int4, unpack_int4
from kgraph.quantizers.quantizers import (AbsMaxQuantizer, Quantizer, abs_max_quantize,
                                          abs_max_quantize_grouped_with_zero_point,
                                          compute_float8_amax_history, compute_float8_scale,
                                          compute_quantization_parameters,
                                          dequantize_with_sz_map, fake_quant_with_min_max_vars,
                                          quantize_and_dequantize, quantize_with_sz_map)

__all__ = ["AWQConfig", "AbsMaxQuantizer", "Float8QuantizationConfig", "GPTQConfig",
           "Int4QuantizationConfig", "Int8QuantizationConfig", "QuantizationConfig", "Quantizer",
           "abs_max_quantize", "abs_max_quantize_grouped_with_zero_point",
           "compute_float8_amax_history", "compute_float8_scale", "deserialize",
           "fake_quant_with_min_max_vars", "get", "pack_int4", "quantize_and_dequantize",
           "serialize", "unpack_int4"]
# Also importable from here, as from Keras's ``keras.src.quantizers`` (not Keras's public
# ``keras.quantizers``): the grouped quantization helpers, and the table of the names a
# config may use (``serialize`` / ``deserialize`` / ``get`` are ``kgraph.quantizers.configs``'s).
_HELPERS = (compute_quantization_parameters, dequantize_with_sz_map, quantize_with_sz_map,
            ALL_OBJECTS_DICT)
