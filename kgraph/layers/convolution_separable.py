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

from kgraph import activations, constraints, regularizers
from kgraph.layers import conv_utils as cu
from kgraph.layers.convolution import WindowedConv


def _depthwise(layer, x, kernel):
    """Depthwise convolution of ``x`` with a Keras kernel ``(*k, in, depth_multiplier)``."""
    channels = kernel.shape[-2]
    kernel = jnp.reshape(kernel, kernel.shape[:-2] + (1, channels * kernel.shape[-1]))
    return layer._convolve(x, kernel, groups=channels)


class BaseDepthwiseConv(WindowedConv):
    """N-d depthwise convolution.

    Weights: ``depthwise_kernel`` ``(*kernel_size, in_channels, depth_multiplier)``,
    ``bias`` ``(in_channels * depth_multiplier,)``.
    """

    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.depth_multiplier = cu.positive_int("depth_multiplier", depth_multiplier)
        self._init_window(kernel_size, strides, padding, data_format, dilation_rate,
                          activation, use_bias)
        self.depthwise_initializer = depthwise_initializer
        self.bias_initializer = bias_initializer
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        channels = cu.input_channels(self, input_shape, self.data_format)
        self.compute_output_shape(input_shape)
        self.depthwise_kernel = self.add_weight(
            self.kernel_size + (channels, self.depth_multiplier), self.depthwise_initializer,
            name="depthwise_kernel", regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        if self.use_bias:
            self.bias = self.add_weight((channels * self.depth_multiplier,),
                                        self.bias_initializer, name="bias",
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self._set_input_spec(channels)
        self.built = True

    def call(self, inputs):
        x = cu.float_input(self, inputs)
        return self._bias_and_activation(_depthwise(self, x, self.depthwise_kernel))

    def compute_output_shape(self, input_shape):
        channels = input_shape[cu.channel_axis(self.data_format)]
        return self._conv_output_shape(
            input_shape, None if channels is None else channels * self.depth_multiplier)

    def get_config(self):
        return {**super().get_config(), "depth_multiplier": self.depth_multiplier,
                **self._window_config(), "activation": activations.name_of(self.activation),
                "use_bias": self.use_bias,
                "depthwise_initializer": cu.serialize_initializer(self.depthwise_initializer),
                "bias_initializer": cu.serialize_initializer(self.bias_initializer),
                "depthwise_regularizer": cu.serialize_regularizer(self.depthwise_regularizer),
                "bias_regularizer": cu.serialize_regularizer(self.bias_regularizer),
                "activity_regularizer": cu.serialize_regularizer(self.activity_regularizer),
                "depthwise_constraint": cu.serialize_constraint(self.depthwise_constraint),
                "bias_constraint": cu.serialize_constraint(self.bias_constraint)}


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


class BaseSeparableConv(WindowedConv):
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
        self.depth_multiplier = cu.positive_int("depth_multiplier", depth_multiplier)
        self._init_window(kernel_size, strides, padding, data_format, dilation_rate,
                          activation, use_bias)
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.bias_initializer = bias_initializer
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.pointwise_constraint = constraints.get(pointwise_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        channels = cu.input_channels(self, input_shape, self.data_format)
        self.compute_output_shape(input_shape)
        self.depthwise_kernel = self.add_weight(
            self.kernel_size + (channels, self.depth_multiplier), self.depthwise_initializer,
            name="depthwise_kernel", regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.pointwise_kernel = self.add_weight(
            (1,) * self.rank + (channels * self.depth_multiplier, self.filters),
            self.pointwise_initializer, name="pointwise_kernel",
            regularizer=self.pointwise_regularizer, constraint=self.pointwise_constraint)
        if self.use_bias:
            self.bias = self.add_weight((self.filters,), self.bias_initializer, name="bias",
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
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
                "activation": activations.name_of(self.activation), "use_bias": self.use_bias,
                "depthwise_initializer": cu.serialize_initializer(self.depthwise_initializer),
                "pointwise_initializer": cu.serialize_initializer(self.pointwise_initializer),
                "bias_initializer": cu.serialize_initializer(self.bias_initializer),
                "depthwise_regularizer": cu.serialize_regularizer(self.depthwise_regularizer),
                "pointwise_regularizer": cu.serialize_regularizer(self.pointwise_regularizer),
                "bias_regularizer": cu.serialize_regularizer(self.bias_regularizer),
                "activity_regularizer": cu.serialize_regularizer(self.activity_regularizer),
                "depthwise_constraint": cu.serialize_constraint(self.depthwise_constraint),
                "pointwise_constraint": cu.serialize_constraint(self.pointwise_constraint),
                "bias_constraint": cu.serialize_constraint(self.bias_constraint)}


class SeparableConv1D(BaseSeparableConv):
    """1D separable convolution over ``(batch, steps, channels)``."""

    rank = 1


class SeparableConv2D(BaseSeparableConv):
    """2D separable convolution over ``(batch, height, width, channels)``."""

    rank = 2
