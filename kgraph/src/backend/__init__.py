"""``keras.src.backend``: Keras's backend namespace as code written for Keras reads it, on
kgraph, whose backend is always JAX: the configuration (``floatx``, ``backend()``, ...),
dtypes, ``Variable`` and ``KerasTensor``, a tensor's Keras mask (``_keras_mask``), the scopes,
and the array functions of Keras's JAX backend (``convert_to_tensor``, ``cast``, ...; the
modules ``core``, ``math``, ``numpy``, ``random``, ``image``, ``nn``, ``linalg`` are kgraph's
ops).

>>> backend(), SUPPORTS_SPARSE_TENSORS
('jax', False)
>>> standardize_shape([2, None])
(2, None)
"""

from kgraph import config, random
from kgraph.backend import (backend, epsilon, floatx, image_data_format, is_float_dtype,
                            is_int_dtype, is_keras_tensor, result_type, set_epsilon,
                            set_floatx, set_image_data_format, standardize_dtype)
from kgraph.base.autocast_scope import AutocastScope, get_autocast_scope
from kgraph.base.name_scope import name_scope
from kgraph.base.symbolic_scope import SymbolicScope, in_symbolic_scope
from kgraph.base.variables import Variable
from kgraph.devices import device
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.interpreter.masking import set_keras_mask
from kgraph.interpreter.stateless_scope import StatelessScope
from kgraph.ops import (cast, cond, convert_to_numpy, convert_to_tensor, image, is_tensor,
                        linalg, nn, numpy, scatter, shape, stop_gradient, vectorized_map)
from kgraph.ops.conv_utils import standardize_data_format
from kgraph.src.backend.keras_mask import get_keras_mask
from kgraph.src.backend.output_spec import compute_output_spec
from kgraph.src.backend.shapes import any_symbolic_tensors, standardize_shape
from kgraph.src.ops import core, math

__all__ = ["AutocastScope", "KerasTensor", "SUPPORTS_COMPLEX_DTYPES", "SUPPORTS_RAGGED_TENSORS",
           "SUPPORTS_SPARSE_TENSORS", "StatelessScope", "SymbolicScope", "Variable",
           "any_symbolic_tensors", "backend", "cast", "compute_output_spec", "cond", "config",
           "core", "convert_to_numpy",
           "convert_to_tensor", "device", "epsilon", "floatx", "get_autocast_scope", "get_keras_mask", "image",
           "image_data_format", "in_symbolic_scope", "is_float_dtype", "is_int_dtype",
           "is_keras_tensor", "is_tensor", "linalg", "math", "name_scope", "nn", "numpy",
           "random", "result_type", "scatter", "set_epsilon", "set_floatx",
           "set_image_data_format", "set_keras_mask", "shape", "standardize_data_format",
           "standardize_dtype", "standardize_shape", "stop_gradient", "vectorized_map"]

#: What kgraph's arrays are: dense JAX arrays, complex dtypes included.
SUPPORTS_SPARSE_TENSORS = False
SUPPORTS_RAGGED_TENSORS = False
SUPPORTS_COMPLEX_DTYPES = True
