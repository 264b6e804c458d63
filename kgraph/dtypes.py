"""Keras's dtypes and its type promotion (``keras.backend.result_type``).

Keras's promotion lattice is JAX's, applied to the dtypes as named (``uint64`` stays
``uint64`` while the bound is found: ``uint64`` with ``int8`` is a float) and then brought
to 32 bits (``int64`` -> ``int32``, ``float64`` -> ``float32``, ...); a Python ``int`` or
``float`` is weakly typed, and a weak result takes the precision of ``floatx()``.

>>> result_type("int32", "float16"), result_type("bfloat16", int), result_type(None)
('float16', 'bfloat16', 'float32')
>>> result_type("uint64", "int8")
'float32'
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from kgraph import config

__all__ = ["ALLOWED_DTYPES", "BIT64_TO_BIT32_DTYPE", "BOOL_TYPES", "COMPLEX_TYPES",
           "FLOAT8_TYPES", "FLOAT_TYPES", "INT_TYPES", "PYTHON_DTYPES_MAP", "WEAK_TYPES",
           "result_type"]

BOOL_TYPES = ("bool",)
INT_TYPES = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
FLOAT_TYPES = ("bfloat16", "float16", "float32", "float64")
WEAK_TYPES = ("int", "float")
COMPLEX_TYPES = ("complex64", "complex128")
#: float8 dtypes promote to nothing: they must be cast explicitly.
FLOAT8_TYPES = ("float8_e4m3fn", "float8_e5m2")
ALLOWED_DTYPES = ("float16", "float32", "float64", "uint8", "uint16", "uint32", "uint64",
                  "int8", "int16", "int32", "int64", "bfloat16", "bool", "string",
                  "float8_e4m3fn", "float8_e5m2", "complex64", "complex128")
#: The dtype of a Python value's type (and of the name ``"int"``).
PYTHON_DTYPES_MAP = {bool: "bool", int: "int32", float: "float32", str: "string",
                     "int": "int32", complex: "complex64"}
#: The 32-bit dtype each 64-bit dtype becomes (JAX's default precision).
BIT64_TO_BIT32_DTYPE = {"int64": "int32", "uint64": "uint32", "float64": "float32",
                        "complex128": "complex64"}


def _operand(dtype):
    """What JAX's lattice takes for one of ``result_type``'s arguments: Python ``int`` and
    ``float`` stay types (weakly typed); anything else is a dtype name."""
    if dtype is None:
        return config.floatx()
    if dtype is int or dtype is float:
        return dtype
    name = config.standardize_dtype(dtype)
    if name in FLOAT8_TYPES:
        raise ValueError("There is no implicit conversions from float8 dtypes to others. "
                         f"You must cast it internally. Received: {name}")
    if name not in ALLOWED_DTYPES or name == "string":
        raise ValueError(f"dtype={name} is not a valid dtype for Keras type promotion.")
    return name


@functools.lru_cache(maxsize=4096)
def _promote(operands, precision):
    with jax.enable_x64(True):  # the lattice on the dtypes as named, 64 bits included
        dtype, weak = jax.dtypes.result_type(*operands, return_weak_type_flag=True)
    name = jnp.dtype(dtype).name
    if weak and name != "bool":  # a weak result takes floatx's precision (Keras's rule)
        kind = "int" if name.startswith("int") else "uint" if name.startswith("uint") \
            else "float"
        name = f"{kind}{precision}"
    return BIT64_TO_BIT32_DTYPE.get(name, name)


def result_type(*dtypes) -> str:
    """The dtype that arrays of ``dtypes`` combine to, by Keras's promotion rules.

    Python ``int`` / ``float`` are weakly typed (they take the other operand's dtype when
    they can), ``None`` is ``floatx()``; no argument gives ``floatx()``. float8 dtypes and
    strings do not promote (ValueError).
    """
    if not dtypes:
        return config.floatx()
    operands = tuple(_operand(d) for d in dtypes)
    return _promote(operands, config.floatx()[-2:])
