"""Depthwise and separable convolutions: ``DepthwiseConv1D``, ``DepthwiseConv2D``,
``SeparableConv1D``, ``SeparableConv2D``.

A depthwise convolution convolves each input channel with its own ``depth_multiplier``
filters (output channel ``c * depth_multiplier + m``); a separable one follows it with a
1x1 (pointwise) convolution mixing the channels.

>>> import kgraph as kg
>>> kg.layers.SeparableConv2D(8, 3, padding="same")(kg.Input(shape=(6, 6, 3))).shape
(None, 6, 6, 8)
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph import activations
from kgraph.ops import conv_utils as cu
from kgraph.layers import weight_args as wa
from kgraph.layers.convolution import WindowedConv

__all__ = [
    "BaseDepthwiseConv", "BaseSeparableConv", "DepthwiseConv1D", "DepthwiseConv2D",
    "SeparableConv1D", "SeparableConv2D"
]


def _depthwise(layer, x, kernel):
    """Depthwise convolution of ``x`` with a Keras kernel ``(*k, in, depth_multiplier)``."""
    channels = kernel.shape[-2]
    kernel = jnp.reshape(kernel, kernel.shape[:-2] + (1, channels * kernel.shape[-1]))
    return layer._convolve(x, kernel, groups=channels)


class _DepthwiseWindowed(WindowedConv):
    """The depthwise stage shared by depthwise and separable convolutions."""

    def _init_depthwise(self, depth_multiplier, initializer, regularizer, constraint,
                        bias_initializer, bias_regularizer, bias_constraint):
        self.depth_multiplier = cu.positive_int("depth_multiplier", depth_multiplier)
        wa.set_weight_args(self, "depthwise", initializer, regularizer, constraint)
        wa.set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)

    def _add_depthwise_kernel(self, input_shape, name):
        """Check ``input_shape`` and add the depthwise kernel as attribute and weight
        ``name`` (Keras 3: ``kernel`` in depthwise, ``depthwise_kernel`` in separable
        convolutions); returns the input channels."""
        channels = cu.input_channels(self, input_shape, self.data_format)
        self.compute_output_shape(input_shape)
        setattr(self, name, wa.add_weight(
            self, "depthwise", self.kernel_size + (channels, self.depth_multiplier), name=name))
        return channels


class BaseDepthwiseConv(_DepthwiseWindowed):
    """N-d depthwise convolution.

    Weights (Keras 3's names): ``kernel`` ``(*kernel_size, in_channels, depth_multiplier)``,
    ``bias`` ``(in_channels * depth_multiplier,)``.
    """

    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._init_depthwise(depth_multiplier, depthwise_initializer, depthwise_regularizer,
                             depthwise_constraint, bias_initializer, bias_regularizer,
                             bias_constraint)
        self._init_window(kernel_size, strides, padding, data_format, dilation_rate,
                          activation, use_bias)

    def build(self, input_shape):
        channels = self._add_depthwise_kernel(input_shape, "kernel")
        self._add_bias(channels * self.depth_multiplier)
        self._set_input_spec(channels)
        self.built = True

    def call(self, inputs):
        x = cu.float_input(self, inputs)
        return self._bias_and_activation(_depthwise(self, x, self.kernel))

    def compute_output_shape(self, input_shape):
        channels = input_shape[cu.channel_axis(self.data_format)]
        return self._conv_output_shape(
            input_shape, None if channels is None else channels * self.depth_multiplier)

    def get_config(self):
        return {**super().get_config(), "depth_multiplier": self.depth_multiplier,
                **self._window_config(), "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias,
                **wa.weight_config(self, "depthwise", "bias", activity=True)}


class DepthwiseConv1D(BaseDepthwiseConv):
    """1D depthwise convolution over ``(batch, steps, channels)``."""

    rank = 1


class DepthwiseConv2D(BaseDepthwiseConv):
    """2D depthwise convolution over ``(batch, height, width, channels)``.

    >>> import kgraph as kg
    >>> kg.layers.DepthwiseConv2D(3, depth_multiplier=2)(kg.Input(shape=(5, 5, 4))).shape
    (None, 3, 3, 8)
    """

    rank = 2


class BaseSeparableConv(_DepthwiseWindowed):
    """N-d separable convolution: depthwise (strided, padded, dilated), then 1x1 pointwise.

    Weights: ``depthwise_kernel`` ``(*kernel_size, in, depth_multiplier)``,
    ``pointwise_kernel`` ``(1, ..., 1, in * depth_multiplier, filters)``, ``bias``
    ``(filters,)``.
    """

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = cu.positive_int("filters", filters)
        self._init_depthwise(depth_multiplier, depthwise_initializer, depthwise_regularizer,
                             depthwise_constraint, bias_initializer, bias_regularizer,
                             bias_constraint)
        self._init_window(kernel_size, strides, padding, data_format, dilation_rate,
                          activation, use_bias)
        wa.set_weight_args(self, "pointwise", pointwise_initializer, pointwise_regularizer,
                           pointwise_constraint)

    def build(self, input_shape):
        channels = self._add_depthwise_kernel(input_shape, "depthwise_kernel")
        self.pointwise_kernel = wa.add_weight(
            self, "pointwise", (1,) * self.rank + (channels * self.depth_multiplier,
                                                   self.filters), name="pointwise_kernel")
        self._add_bias(self.filters)
        self._set_input_spec(channels)
        self.built = True

    def call(self, inputs):
        x = _depthwise(self, cu.float_input(self, inputs), self.depthwise_kernel)
        x = self._convolve(x, self.pointwise_kernel, strides=(1,) * self.rank, padding="VALID")
        return self._bias_and_activation(x)

    def compute_output_shape(self, input_shape):
        return self._conv_output_shape(input_shape, self.filters)

    def get_config(self):
        return {**super().get_config(), "depth_multiplier": self.depth_multiplier,
                "filters": self.filters, **self._window_config(),
                "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
                **wa.weight_config(self, "depthwise", "pointwise", "bias", activity=True)}


class SeparableConv1D(BaseSeparableConv):
    """1D separable convolution over ``(batch, steps, channels)``."""

    rank = 1


class SeparableConv2D(BaseSeparableConv):
    """2D separable convolution over ``(batch, height, width, channels)``."""

    rank = 2
