"""Transposed convolutions: ``Conv1DTranspose``, ``Conv2DTranspose``, ``Conv3DTranspose``.

Kernel layout as Keras: ``(*kernel_size, filters, in_channels)``. Output lengths follow
Keras exactly: ``"valid"`` gives ``(n - 1) * stride + max(kernel, stride)``, ``"same"``
gives ``n * stride`` (with ``output_padding``: ``(n - 1) * stride + kernel % 2 +
output_padding`` for ``"same"``, ``(n - 1) * stride + kernel + output_padding`` for
``"valid"``; kernel sizes are dilated).

>>> import kgraph as kg
>>> kg.layers.Conv2DTranspose(4, 3, strides=2, padding="same")(kg.Input(shape=(5, 5, 2))).shape
(None, 10, 10, 4)
"""

from __future__ import annotations


from kgraph.layers import accumulate
from kgraph.ops import conv_utils as cu
from kgraph.layers.convolution import BaseConv

__all__ = ["BaseConvTranspose", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose"]


class BaseConvTranspose(BaseConv):
    """N-d transposed convolution (the gradient of a convolution with respect to its input).

    Weights: ``kernel`` ``(*kernel_size, filters, in_channels)``, ``bias`` ``(filters,)``.
    No LoRA, as Keras's.
    """

    _offers_lora = False

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, groups=1,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)
        if output_padding is None:
            self.output_padding = None
        else:
            self.output_padding = cu.standardize_tuple(output_padding, self.rank,
                                                       "output_padding", allow_zero=True)
            for i, (op, s) in enumerate(zip(self.output_padding, self.strides)):
                if op >= s:
                    raise ValueError(
                        "`output_padding` must be strictly less than `strides` for all "
                        f"dimensions. At dimension {i}, `output_padding` is {op} but "
                        f"`strides` is {s}. Received: output_padding={self.output_padding}, "
                        f"strides={self.strides}")

    def _output_paddings(self):
        return self.output_padding or (None,) * self.rank

    def _kernel_shape(self, channels):
        return self.kernel_size + (self.filters, channels)

    def call(self, inputs):
        x = cu.float_input(self, inputs)
        pads = [cu.conv_transpose_padding(k, s, self.padding, op, d) for k, s, op, d in zip(
            self.kernel_size, self.strides, self._output_paddings(), self.dilation_rate)]
        outputs = accumulate.conv_transpose(
            x, self.kernel, self.strides, pads, rhs_dilation=self.dilation_rate,
            dimension_numbers=cu.conv_dimension_numbers(self.rank, self.data_format),
            transpose_kernel=True)
        return self._bias_and_activation(outputs)

    def compute_output_shape(self, input_shape):
        axes = cu.spatial_axes(self.rank, self.data_format)
        lengths = [cu.conv_transpose_output_length(input_shape[a], k, s, self.padding, op, d)
                   for a, k, s, op, d in zip(axes, self.kernel_size, self.strides,
                                             self._output_paddings(), self.dilation_rate)]
        return cu.spatial_output_shape(self.name, input_shape, self.data_format,
                                       self.filters, lengths)

    def get_config(self):
        config = super().get_config()
        del config["groups"]
        config["output_padding"] = self.output_padding
        return config


class Conv1DTranspose(BaseConvTranspose):
    """1D transposed convolution over ``(batch, steps, channels)``.

    >>> import kgraph as kg
    >>> kg.layers.Conv1DTranspose(2, 3, strides=2)(kg.Input(shape=(4, 1))).shape
    (None, 9, 2)
    """

    rank = 1


class Conv2DTranspose(BaseConvTranspose):
    """2D transposed convolution over ``(batch, height, width, channels)``."""

    rank = 2


class Conv3DTranspose(BaseConvTranspose):
    """3D transposed convolution over ``(batch, d1, d2, d3, channels)``."""

    rank = 3
