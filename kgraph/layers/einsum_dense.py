"""``EinsumDense``: a dense layer of any dimensionality, written as an einsum equation."""

from __future__ import annotations

import re


from kgraph import activations, initializers
from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.layers import accumulate, lora, quantized
from kgraph.layers import weight_args as wa
from kgraph.layers.embedding import resolve_initializer

__all__ = ["EinsumDense", "analyze_einsum_string"]


class EinsumDense(lora.LoRA, quantized.Quantizable, Layer):
    """``activation(einsum(equation, inputs, kernel) + bias)``.

    Args:
      equation: ``"ab,bc->ac"``, ``"...ab,bc->...ac"`` or ``"ab...,bc->ac..."``; the first
        operand is the input, the second the kernel.
      output_shape: the output shape without the batch axis and elided (``...``) axes;
        None for a dimension taken from the input.
      bias_axes: the output letters the bias spans (None: no bias).

    Weights: ``kernel`` (its axes are the kernel letters of the equation), ``bias``. Named
    variance-scaling initializers use the kernel's input/output letters for fan in/out,
    as Keras does. ``quantize("int8")`` (``"int4"``, ``"float8"``) quantizes it as Keras
    does (see ``kgraph.layers.quantized``).

    >>> import kgraph as kg
    >>> layer = EinsumDense("abc,cd->abd", output_shape=(None, 8), bias_axes="d")
    >>> layer(kg.Input(shape=(5, 3))).shape, layer.kernel.shape, layer.bias.shape
    ((None, 5, 8), (3, 8), (8,))
    """

    _quantized_kind = "einsum"

    def __init__(self, equation, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, lora_rank=None, lora_alpha=None,
                 gptq_unpacked_column_size=None, quantization_config=None, **kwargs):
        super().__init__(**kwargs)
        self.gptq_unpacked_column_size = gptq_unpacked_column_size  # (a GPTQ layer's config)
        self._init_lora(lora_rank, lora_alpha)
        self.quantization_config = quantized.config_argument(self.name, quantization_config)
        if not isinstance(equation, str):
            raise TypeError(f"EinsumDense `equation` must be a string, received {equation!r}.")
        self.equation = equation
        self.partial_output_shape = ((output_shape,) if isinstance(output_shape, int)
                                     else tuple(output_shape))
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        wa.set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer,
                           kernel_constraint)
        wa.set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        analyze_einsum_string(equation, bias_axes, None, self.partial_output_shape)  # validate

    def _analyze(self, input_shape, strict=True):
        try:
            return analyze_einsum_string(self.equation, self.bias_axes, tuple(input_shape),
                                         self.partial_output_shape, strict)
        except ValueError as error:
            raise ValueError(f'Layer "{self.name}" (EinsumDense): {error}') from None

    def build(self, input_shape):
        # as Keras's build: the weights are sized even when the ranks do not fit the
        # equation (calling the layer then fails, naming the mismatch)
        kernel_shape, bias_shape, _, input_axes, output_axes = self._analyze(input_shape,
                                                                             strict=False)
        if any(d is None for d in kernel_shape):
            raise ValueError(f'Layer "{self.name}" (EinsumDense) cannot size its kernel '
                             f"{tuple(kernel_shape)} from input shape {tuple(input_shape)} and "
                             f"output_shape {self.partial_output_shape}: every kernel "
                             "dimension must be known.")
        self._has_bias = bias_shape is not None
        self.input_spec = InputSpec(ndim=len(input_shape))
        if self.quantization_mode is not None:  # a quantized layer's config
            quantized.build(self, tuple(kernel_shape), bias_shape,
                            self._kernel_initializer(input_axes, output_axes),
                            resolve_initializer(self.bias_initializer))
        else:
            self.kernel = wa.add_weight(self, "kernel", tuple(kernel_shape),
                                        self._kernel_initializer(input_axes, output_axes))
            if bias_shape is not None:
                self.bias = wa.add_weight(self, "bias", tuple(bias_shape),
                                          resolve_initializer(self.bias_initializer))
        if bias_shape is None:
            self.bias = None  # as Keras's
        self.built = True
        self._build_lora()

    def _kernel_initializer(self, input_axes, output_axes):
        """Variance-scaling initializers get the einsum's input/output kernel axes for
        their fans (as Keras's ``_update_kernel_initializer``)."""
        initializer = initializers.get(resolve_initializer(self.kernel_initializer))
        scaling = getattr(initializers, "VarianceScaling", None)
        if scaling is not None and isinstance(initializer, scaling) and (
                initializer.input_axes is None or initializer.output_axes is None):
            config = {**initializer.get_config(), "input_axes": list(input_axes),
                      "output_axes": list(output_axes)}
            initializer = type(initializer).from_config(config)
        return initializer

    def call(self, inputs):
        if self.quantization_mode is not None:
            return quantized.call(self, inputs)
        x = accumulate.einsum(self.equation, inputs, self.kernel)
        if self._has_bias:
            x = x + self.bias
        return x if self.activation is None else self.activation(x)

    def compute_output_shape(self, input_shape):
        return tuple(self._analyze(input_shape)[2])

    def compute_output_dtype(self, input_dtype):
        return self.compute_dtype

    def get_config(self):
        return {**super().get_config(), "output_shape": list(self.partial_output_shape),
                "equation": self.equation, "activation": activations.serialize(self.activation),
                "bias_axes": self.bias_axes,
                **wa.weight_config(self, "kernel", "bias", strict=False),
                "quantization_config": self._quantization_config_entry(),
                **self._lora_config(), **self._gptq_config()}

    def _gptq_config(self) -> dict:
        size = self.__dict__.get("gptq_unpacked_column_size")
        return {"gptq_unpacked_column_size": size} if size else {}


def analyze_einsum_string(equation, bias_axes, input_shape, output_shape, strict=True):
    """``(kernel_shape, bias_shape, full_output_shape, input_axes, output_axes)`` (Keras).

    With ``input_shape=None`` only the equation's form is checked. ``strict``: the input's
    rank and ``output_shape``'s length must fit the equation (``False``: Keras's leniency,
    which sizes the weights from the axes the letters index when those exist).
    """
    dot_replaced = re.sub(r"\.\.\.", "0", equation)
    forms = [("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", False),
             ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", True),
             ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", False)]
    for pattern, left_elided in forms:
        match = re.fullmatch(pattern, dot_replaced)
        if match:
            if input_shape is None:
                return None
            return _analyze_split_string(match, bias_axes, input_shape, output_shape,
                                         left_elided, strict)
    raise ValueError(f"Invalid einsum equation '{equation}'. Equations must be in the form "
                     "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....")


def _analyze_split_string(match, bias_axes, input_shape, output_shape, left_elided,
                          strict=True):
    input_spec, weight_spec, output_spec = match.group(1), match.group(2), match.group(3)
    elided = len(input_shape) - len(input_spec)
    if elided < 0 or (strict and elided > 0 and "0" not in match.re.pattern):
        raise ValueError(f"The equation's input '{input_spec}' has {len(input_spec)} axes, but "
                         f"the input shape {input_shape} has rank {len(input_shape)}.")
    output_shape = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    output_shape.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        # In input order (Keras inserts them one by one at position 1, which reverses
        # them when two or more non-batch axes are elided).
        output_shape[1:1] = list(input_shape[1:elided])
    elif elided > 0:
        for i in range(len(input_shape) - elided, len(input_shape)):
            output_shape.append(input_shape[i])
    if left_elided:
        input_dim_map = {dim: (i + elided) - len(input_shape) for i, dim in enumerate(input_spec)}
        output_dim_map = {dim: i + elided for i, dim in enumerate(output_spec)}
    else:
        input_dim_map = {dim: i for i, dim in enumerate(input_spec)}
        output_dim_map = {dim: i for i, dim in enumerate(output_spec)}
    misfit = len(output_shape) != len(output_spec) + max(elided, 0)
    if misfit and (strict or max(output_dim_map.values()) >= len(output_shape)):
        raise ValueError(f"output_shape {tuple(output_shape[1:])} does not match the output "
                         f"'{output_spec}' of the equation (batch axis excluded).")
    for dim in input_spec:
        if dim in output_dim_map:
            size = input_shape[input_dim_map[dim]]
            given = output_shape[output_dim_map[dim]]
            if given is None:
                output_shape[output_dim_map[dim]] = size
            elif size is not None and given != size:
                raise ValueError(f"Input shape and output shape do not match at shared "
                                 f"dimension '{dim}'. Input shape is {size}, and output shape "
                                 f"is {given}.")
    for dim in output_spec:
        if dim not in input_spec and dim not in weight_spec:
            raise ValueError(f"Dimension '{dim}' was specified in the output '{output_spec}' "
                             f"but has no corresponding dim in the input spec '{input_spec}' "
                             f"or weight spec '{weight_spec}'.")
    weight_shape, input_axes, output_axes = [], [], []
    for i, dim in enumerate(weight_spec):
        if dim in output_dim_map:
            weight_shape.append(output_shape[output_dim_map[dim]])
            output_axes.append(i)
        elif dim in input_dim_map:
            weight_shape.append(input_shape[input_dim_map[dim]])
            input_axes.append(i)
        else:
            raise ValueError(f"Weight dimension '{dim}' did not have a match in either the "
                             f"input spec '{input_spec}' or the output spec '{output_spec}'. "
                             "For this layer, the weight must be fully specified.")
    bias_shape = None
    if bias_axes is not None:
        num_left_elided = elided if left_elided else 0
        sizes = {c: output_shape[i + num_left_elided] for i, c in enumerate(output_spec)}
        for c in bias_axes:
            if c not in output_spec:
                raise ValueError(f"Bias dimension '{c}' was requested, but is not part of the "
                                 f"output spec '{output_spec}'.")
        first = min(output_spec.find(c) for c in bias_axes)
        bias_shape = [sizes[c] if c in bias_axes else 1 for c in output_spec[first:]]
        if not left_elided:
            bias_shape += [1] * elided
    return weight_shape, bias_shape, output_shape, input_axes, output_axes
