"""Core layers: ``Dense``, ``Activation``, ``Dropout``."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph import activations
from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.base.seed_generator import SeedGenerator
from kgraph.layers import accumulate, lora, quantized
from kgraph.layers import weight_args as wa

__all__ = ["Activation", "Dense", "Dropout"]


class Dense(lora.LoRA, quantized.Quantizable, Layer):
    """``activation(inputs @ kernel + bias)`` on the last axis.

    Weights: ``kernel`` (in, units), ``bias`` (units,). ``quantize("int8")`` (``"int4"``,
    ``"float8"``) quantizes it as Keras does (see ``kgraph.layers.quantized``);
    ``enable_lora(rank)`` (or ``lora_rank=``) trains a low-rank update of the frozen kernel
    (see ``kgraph.layers.lora``).

    >>> import kgraph as kg
    >>> kg.layers.Dense(4, activation="relu")(kg.Input(shape=(3,))).shape
    (None, 4)
    """

    supports_masking = True  # as Keras: a sequence mask passes through
    _quantized_kind = "dense"
    _lora_alpha_at_build = False  # as Keras's build: enable_lora(lora_rank), alpha = rank

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, lora_rank=None, lora_alpha=None,
                 quantization_config=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"Dense units must be a positive integer, received units={units!r}.")
        self.quantization_config = quantized.config_argument(self.name, quantization_config)
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self._init_lora(lora_rank, lora_alpha)
        wa.set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer,
                           kernel_constraint)
        wa.set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        in_features = input_shape[-1]
        if in_features is None:
            raise ValueError(f'Layer "{self.name}" needs a known last input dimension to create '
                             f"its kernel, received input shape {input_shape}.")
        if self.quantization_mode is not None:  # a quantized layer's config
            quantized.build(self, (in_features, self.units),
                            (self.units,) if self.use_bias else None)
        else:
            self.kernel = wa.add_weight(self, "kernel", (in_features, self.units))
            if self.use_bias:
                self.bias = wa.add_weight(self, "bias", (self.units,))
        if not self.use_bias:
            self.bias = None  # as Keras's
        self.input_spec = InputSpec(min_ndim=2, axes={-1: in_features})
        self.built = True
        self._build_lora()

    def call(self, inputs):
        if self.quantization_mode is not None:
            return quantized.call(self, inputs)
        x = accumulate.matmul(inputs, self.kernel)
        if self.use_bias:
            x = x + self.bias
        return x if self.activation is None else self.activation(x)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

    def compute_output_dtype(self, input_dtype):
        return self.compute_dtype

    def get_config(self):
        return {**super().get_config(), "units": self.units,
                "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
                **wa.weight_config(self, "kernel", "bias", strict=False),
                "quantization_config": self._quantization_config_entry(),
                **self._lora_config()}


class Activation(Layer):
    """Apply an activation function (a Keras name or a callable)."""

    supports_masking = True  # as Keras: a sequence mask passes through
    _builds_at_init = True

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "activation": activations.serialize(self.activation)}


class Dropout(Layer):
    """Zero a ``rate`` fraction of inputs in training, scaling the rest by 1/(1-rate).

    Random only when ``training=True``; its keys come from its ``seed_generator`` (held
    when ``rate > 0``, as Keras's): the run's key by layer path inside a run that has one
    (``apply(..., key=)``, ``fit``), else the generator's own ``[seed, count]`` state.
    """

    supports_masking = True  # as Keras: a sequence mask passes through
    _builds_at_init = True

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise ValueError(f'Layer "{self.name}": Invalid value received for argument '
                             "`rate`. Expected a float value between 0 and 1. Received: "
                             f"rate={rate}")
        self.rate = rate
        self.noise_shape = _checked_noise_shape(self, noise_shape)
        self.seed = seed
        if rate > 0:
            self.seed_generator = SeedGenerator(seed)

    def _noise_shape(self, shape):
        """The shape of the keep mask (size-1 axes share one draw)."""
        if self.noise_shape is None:
            return shape
        return tuple(s if n is None else n for s, n in zip(shape, self.noise_shape))

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        if self.rate == 1:
            return jnp.zeros_like(inputs)
        keep = jax.random.bernoulli(self.seed_generator.next(), 1.0 - self.rate,
                                    self._noise_shape(inputs.shape))
        return jnp.where(keep, inputs / (1.0 - self.rate), jnp.zeros((), inputs.dtype))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "noise_shape": self.noise_shape,
                "seed": self.seed}


def _checked_noise_shape(layer, noise_shape):
    """``noise_shape`` as a tuple of positive ints or None, else Keras's ValueError."""
    if noise_shape is None:
        return None
    where = f'Layer "{layer.name}": Invalid value received for argument `noise_shape`.'
    if isinstance(noise_shape, str):
        raise ValueError(f"{where} Expected a tuple or list of integers. Received: "
                         f"noise_shape={noise_shape}")
    try:
        noise_shape = tuple(noise_shape)
    except TypeError:
        raise ValueError(f"{where} Expected an iterable of integers (e.g., a tuple or list). "
                         f"Received: noise_shape={noise_shape}") from None
    for i, dim in enumerate(noise_shape):
        if dim is None:
            continue
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise ValueError(f"{where} Expected all elements to be integers or None. Received "
                             f"element at index {i}: {dim} (type: {type(dim).__name__})")
        if dim <= 0:
            raise ValueError(f"{where} Expected all dimensions to be positive integers or None. "
                             f"Received negative or zero value at index {i}: {dim}")
    return noise_shape
