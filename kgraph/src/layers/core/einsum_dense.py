"""``keras.src.layers.core.einsum_dense``: ``EinsumDense`` and the analysis of its equation
under Keras's private name.

>>> _analyze_einsum_string("ab,bc->ac", None, (None, 32), (64,))
([32, 64], None, [None, 64], [0], [1])
"""

from kgraph.layers.einsum_dense import EinsumDense, analyze_einsum_string

__all__ = ["EinsumDense", "_analyze_einsum_string"]

#: ``(kernel_shape, bias_shape, full_output_shape, input_axes, output_axes)`` of an
#: ``EinsumDense`` equation, under the name Keras's module gives it.
_analyze_einsum_string = analyze_einsum_string
