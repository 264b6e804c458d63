"""``keras.src.backend.common.dtypes``: Keras's dtype names by kind, and ``result_type``
(kgraph's, JAX's promotion under Keras's names).

>>> FLOAT_TYPES
('bfloat16', 'float16', 'float32', 'float64')
>>> result_type("int32", "float16")
'float16'
"""

from __future__ import annotations

from kgraph.backend import result_type

__all__ = ["ALLOWED_DTYPES", "BOOL_TYPES", "COMPLEX_TYPES", "FLOAT8_TYPES", "FLOAT_TYPES",
           "INT_TYPES", "WEAK_TYPES", "result_type"]

BOOL_TYPES = ("bool",)
INT_TYPES = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
FLOAT_TYPES = ("bfloat16", "float16", "float32", "float64")
WEAK_TYPES = ("int", "float")
COMPLEX_TYPES = ("complex64", "complex128")
FLOAT8_TYPES = ("float8_e4m3fn", "float8_e5m2")
ALLOWED_DTYPES = ("float16", "float32", "float64", "uint8", "uint16", "uint32", "uint64",
                  "int8", "int16", "int32", "int64", "bfloat16", "bool", "string",
                  "float8_e4m3fn", "float8_e5m2", "complex64", "complex128")
