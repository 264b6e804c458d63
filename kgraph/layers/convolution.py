"""Convolution layers: ``Conv1D``, ``Conv2D``, ``Conv3D``, all one N-d ``BaseConv``.

Transposed convolutions are in ``convolution_transpose``; depthwise and separable ones in
``convolution_separable``. Kernels use Keras's layout ``(*kernel_size, in // groups,
filters)``; inputs are ``channels_last`` by default (``channels_first`` too).

>>> import kgraph as kg
>>> kg.layers.Conv2D(8, 3, strides=2, padding="same")(kg.Input(shape=(9, 9, 3))).shape
(None, 5, 5, 8)
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph import activations
from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.ops import conv_utils as cu
from kgraph.layers import accumulate, lora
from kgraph.layers import weight_args as wa

__all__ = ["BaseConv", "Conv1D", "Conv2D", "Conv3D", "WindowedConv"]


class WindowedConv(Layer):
    """What every convolution shares: window arguments, the ``lax`` call, bias, activation.

    Subclasses set the class attribute ``rank`` and call ``_init_window`` in ``__init__``.
    """

    rank = None
    _allow_causal = False

    def _init_window(self, kernel_size, strides, padding, data_format, dilation_rate,
                     activation, use_bias):
        self.kernel_size = cu.standardize_tuple(kernel_size, self.rank, "kernel_size")
        self.strides = cu.standardize_tuple(strides, self.rank, "strides")
        self.dilation_rate = cu.standardize_tuple(dilation_rate, self.rank, "dilation_rate")
        self.padding = cu.standardize_padding(padding, allow_causal=self._allow_causal)
        self.data_format = cu.standardize_data_format(data_format)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _check_strides_and_dilation(self):
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError("`strides > 1` not supported in conjunction with "
                             f"`dilation_rate > 1`. Received: strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")

    def _lax_padding(self):
        if self.padding == "causal":
            return [(d * (k - 1), 0) for k, d in zip(self.kernel_size, self.dilation_rate)]
        return self.padding.upper()

    def _convolve(self, x, kernel, strides=None, padding=None, groups=1):
        return accumulate.conv_general_dilated(
            x, kernel, self.strides if strides is None else strides,
            self._lax_padding() if padding is None else padding,
            rhs_dilation=self.dilation_rate,
            dimension_numbers=cu.conv_dimension_numbers(self.rank, self.data_format),
            feature_group_count=groups)

    def _bias_and_activation(self, outputs):
        if self.use_bias:
            shape = [1] * outputs.ndim
            shape[cu.channel_axis(self.data_format)] = self.bias.shape[0]
            outputs = outputs + jnp.reshape(self.bias, shape)
        return outputs if self.activation is None else self.activation(outputs)

    def _add_bias(self, size):
        if self.use_bias:
            self.bias = wa.add_weight(self, "bias", (size,))
        else:
            self.bias = None  # as Keras's

    def _set_input_spec(self, channels):
        self.input_spec = InputSpec(ndim=self.rank + 2,
                                    axes={cu.channel_axis(self.data_format): channels})

    def _conv_output_shape(self, input_shape, channels):
        axes = cu.spatial_axes(self.rank, self.data_format)
        lengths = [cu.conv_output_length(input_shape[a], k, s, self.padding, d)
                   for a, k, s, d in zip(axes, self.kernel_size, self.strides,
                                         self.dilation_rate)]
        return cu.spatial_output_shape(self.name, input_shape, self.data_format,
                                       channels, lengths)

    def compute_output_dtype(self, input_dtype):
        return self.compute_dtype

    def _window_config(self):
        return {"kernel_size": self.kernel_size, "strides": self.strides,
                "padding": self.padding, "data_format": self.data_format,
                "dilation_rate": self.dilation_rate}


class BaseConv(lora.LoRA, WindowedConv):
    """N-d convolution (cross-correlation): ``activation(conv(inputs, kernel) + bias)``.

    Weights: ``kernel`` ``(*kernel_size, in_channels // groups, filters)``, ``bias``
    ``(filters,)``. ``padding`` is ``"valid"``, ``"same"`` (TF/Keras placement: the extra
    pad goes at the end) or, for ``Conv1D`` only, ``"causal"`` (left padding by
    ``dilation_rate * (kernel_size - 1)``). ``enable_lora(rank)`` (or ``lora_rank=``) trains
    a low-rank update of the frozen kernel (see ``kgraph.layers.lora``).
    """

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, lora_alpha=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._init_lora(lora_rank, lora_alpha)
        filters = cu.positive_int("filters", filters)
        if isinstance(groups, int) and not isinstance(groups, bool) and groups <= 0:
            raise ValueError(f'Layer "{self.name}" ({type(self).__name__}): The number of '
                             f"groups must be a positive integer. Received: groups={groups}.")
        groups = cu.positive_int("groups", groups)
        if filters % groups:
            raise ValueError("The number of filters must be evenly divisible by the number of "
                             f"groups. Received: groups={groups}, filters={filters}.")
        self.filters = filters
        self.groups = groups
        self._init_window(kernel_size, strides, padding, data_format, dilation_rate,
                          activation, use_bias)
        self._check_strides_and_dilation()
        wa.set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer,
                           kernel_constraint)
        wa.set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)

    def _kernel_shape(self, channels):
        return self.kernel_size + (channels // self.groups, self.filters)

    def build(self, input_shape):
        channels = cu.input_channels(self, input_shape, self.data_format)
        if channels % self.groups:
            raise ValueError(f'Layer "{self.name}": the number of input channels must be evenly '
                             f"divisible by the number of groups. Received groups="
                             f"{self.groups}, but the input has {channels} channels (full "
                             f"input shape is {tuple(input_shape)}).")
        self.compute_output_shape(input_shape)
        self.kernel = wa.add_weight(self, "kernel", self._kernel_shape(channels))
        self._add_bias(self.filters)
        self._set_input_spec(channels)
        self.built = True
        self._build_lora()

    def call(self, inputs):
        x = cu.float_input(self, inputs)
        return self._bias_and_activation(self._convolve(x, self.kernel, groups=self.groups))

    def compute_output_shape(self, input_shape):
        return self._conv_output_shape(input_shape, self.filters)

    def get_config(self):
        return {**super().get_config(), "filters": self.filters, **self._window_config(),
                "groups": self.groups, "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias,
                **wa.weight_config(self, "kernel", "bias", activity=True), **self._lora_config()}


class Conv1D(BaseConv):
    """1D convolution over ``(batch, steps, channels)``; ``padding="causal"`` supported.

    >>> import kgraph as kg
    >>> kg.layers.Conv1D(4, 3, padding="causal")(kg.Input(shape=(10, 2))).shape
    (None, 10, 4)
    """

    rank = 1
    _allow_causal = True


class Conv2D(BaseConv):
    """2D convolution over ``(batch, height, width, channels)``.

    >>> import kgraph as kg
    >>> kg.layers.Conv2D(4, 3)(kg.Input(shape=(8, 8, 1))).shape
    (None, 6, 6, 4)
    """

    rank = 2


class Conv3D(BaseConv):
    """3D convolution over ``(batch, d1, d2, d3, channels)``.

    >>> import kgraph as kg
    >>> kg.layers.Conv3D(2, 2)(kg.Input(shape=(4, 4, 4, 1))).shape
    (None, 3, 3, 3, 2)
    """

    rank = 3
