"""``keras.src.ops.function``: Keras's ``Function`` (a graph of ops from input KerasTensors
to output ones, run again on new inputs): kgraph's ``kgraph.models.function.Function``
with Keras's checks of its arguments and of the inputs it is called on, and
``compute_output_shape``.

>>> import kgraph as kg
>>> x = kg.KerasTensor((None, 2))
>>> fn = Function(x, kg.ops.sum(x, axis=1))
>>> fn.compute_output_spec(kg.KerasTensor((3, 2))).shape, fn.compute_output_shape((None, 2))
((3,), (None,))
"""

from __future__ import annotations

import jax

from kgraph.graph.keras_tensor import KerasTensor
from kgraph.models import function as _function

__all__ = ["Function"]


class Function(_function.Function):
    """``kgraph.models.function.Function`` with Keras's argument and input checks."""

    def __init__(self, inputs, outputs, name=None):
        for what, value in (("inputs", inputs), ("outputs", outputs)):
            if not jax.tree_util.tree_leaves(value):
                raise ValueError(f"`{what}` argument cannot be empty. Received:\n"
                                 f"inputs={inputs}\noutputs={outputs}")
        super().__init__(inputs, outputs, name=name)
        self._inputs_struct = inputs

    def _check_inputs(self, inputs):
        try:
            flat = self._in_treedef.flatten_up_to(inputs)
        except (ValueError, TypeError):
            raise ValueError("Function was called with an invalid input structure. Expected "
                             f"input structure: {self._inputs_struct}\nReceived input "
                             f"structure: {inputs}") from None
        for x, ref in zip(flat, self.inputs):
            shape = tuple(getattr(x, "shape", ()))
            if len(shape) != len(ref.shape) or any(
                    a is not None and b is not None and a != b for a, b in zip(shape, ref.shape)):
                raise ValueError(f"{type(self).__name__} was passed incompatible inputs. For "
                                 f"input '{getattr(ref, 'name', None)}', expected shape "
                                 f"{ref.shape}, but received instead a tensor with shape "
                                 f"{shape}.")

    def __call__(self, inputs):
        self._check_inputs(inputs)
        return super().__call__(inputs)

    def compute_output_spec(self, inputs):
        self._check_inputs(inputs)
        return super().compute_output_spec(inputs)

    def compute_output_shape(self, input_shape):
        """The outputs' shapes for inputs of these shapes (in the inputs' structure)."""
        flat = self._in_treedef.flatten_up_to(input_shape)
        specs = [KerasTensor(tuple(s), ref.dtype) for s, ref in zip(flat, self.inputs)]
        outputs = self.compute_output_spec(jax.tree_util.tree_unflatten(self._in_treedef, specs))
        return jax.tree_util.tree_map(lambda t: tuple(t.shape), outputs)

