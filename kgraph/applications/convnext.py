"""ConvNeXt Tiny, Small, Base, Large and XLarge (Liu et al., 2022; Keras's
``keras.applications.convnext``): the same layers, names and weights layout, so Keras's
weight files load.

Four stages of blocks (a 7x7 depthwise convolution, layer normalization, an inverted
bottleneck of two dense layers with GELU, a learned per-channel scale, and a residual that
stochastic depth may drop in training), each stage after a downsampling layer. As Keras's,
the model normalizes 0..255 images itself (``preprocess_input`` passes them through).

>>> model = ConvNeXtTiny(weights=None, include_top=False, input_shape=(32, 32, 3))
>>> model.output_shape, model.count_params()
((None, 1, 1, 768), 27820128)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph import config
from kgraph.applications import builder, imagenet_utils
from kgraph.base.layer import Layer
from kgraph.layers import (Activation, Conv2D, Dense, GlobalAveragePooling2D,
                           GlobalMaxPooling2D, LayerNormalization, Normalization)
from kgraph.models.sequential import Sequential

__all__ = ["ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtSmall", "ConvNeXtTiny",
           "ConvNeXtXLarge", "LayerScale", "StochasticDepth", "decode_predictions",
           "preprocess_input"]

_ORIGIN = f"{builder.WEIGHTS_ORIGIN}convnext/"
# variant: blocks per stage, widths per stage, and the sha256 of Keras's weight files
_VARIANTS = {
    "tiny": ((3, 3, 9, 3), (96, 192, 384, 768), (
        "8ae6e78ce2933352b1ef4008e6dd2f17bc40771563877d156bc6426c7cf503ff",
        "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1")),
    "small": ((3, 3, 27, 3), (96, 192, 384, 768), (
        "ce1277d8f1ee5a0ef0e171469089c18f5233860ceaf9b168049cb9263fd7483c",
        "6fc8009faa2f00c1c1dfce59feea9b0745eb260a7dd11bee65c8e20843da6eab")),
    "base": ((3, 3, 27, 3), (128, 256, 512, 1024), (
        "52cbb006d3dadd03f6e095a8ca1aca47aecdd75acb4bc74bce1f5c695d0086e6",
        "40a20c5548a5e9202f69735ecc06c990e6b7c9d2de39f0361e27baeb24cb7c45")),
    "large": ((3, 3, 27, 3), (192, 384, 768, 1536), (
        "070c5ed9ed289581e477741d3b34beffa920db8cf590899d6d2c67fba2a198a6",
        "96f02b6f0753d4f543261bc9d09bed650f24dd6bc02ddde3066135b63d23a1cd")),
    "xlarge": ((3, 3, 27, 3), (256, 512, 1024, 2048), (
        "c1f5ccab661354fc3a79a10fa99af82f0fbf10ec65cb894a3ae0815f17a889ee",
        "de3f8a54174130e0cecdc71583354753d557fcf1f4487331558e2a16ba0cfe05")),
}
_MEAN = (0.485 * 255, 0.456 * 255, 0.406 * 255)
_VARIANCE = ((0.229 * 255) ** 2, (0.224 * 255) ** 2, (0.225 * 255) ** 2)


class StochasticDepth(Layer):
    """Drops the whole residual branch of a sample with probability ``drop_path_rate``
    in training (scaling the kept ones by ``1 / keep``); the identity in inference."""

    def __init__(self, drop_path_rate, **kwargs):
        super().__init__(**kwargs)
        self.drop_path_rate = drop_path_rate

    def call(self, x, training=None):
        if not training:
            return x
        keep = 1 - self.drop_path_rate
        shape = (x.shape[0],) + (1,) * (x.ndim - 1)
        kept = jnp.floor(keep + jax.random.uniform(self.random_key(), shape, x.dtype))
        return x / keep * kept

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "drop_path_rate": self.drop_path_rate}


class LayerScale(Layer):
    """Multiplies each of the last axis's ``projection_dim`` channels by a learned scale,
    initially ``init_values``."""

    def __init__(self, init_values, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.init_values, self.projection_dim = init_values, projection_dim

    def build(self, input_shape):
        self.gamma = self.add_weight(shape=(self.projection_dim,),
                                     initializer=lambda shape, dtype=None: jnp.full(
                                         shape, self.init_values, dtype or "float32"))

    def call(self, x):
        return x * self.gamma

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "init_values": self.init_values,
                "projection_dim": self.projection_dim}


def _block(inputs, width, drop_path_rate, layer_scale, name):
    x = Conv2D(width, 7, padding="same", groups=width, name=f"{name}_depthwise_conv")(inputs)
    x = LayerNormalization(epsilon=1e-6, name=f"{name}_layernorm")(x)
    x = Dense(4 * width, name=f"{name}_pointwise_conv_1")(x)
    x = Activation("gelu", name=f"{name}_gelu")(x)
    x = Dense(width, name=f"{name}_pointwise_conv_2")(x)
    if layer_scale is not None:
        x = LayerScale(layer_scale, width, name=f"{name}_layer_scale")(x)
    if drop_path_rate:
        x = StochasticDepth(drop_path_rate, name=f"{name}_stochastic_depth")(x)
    else:
        x = Activation("linear", name=f"{name}_identity")(x)
    return inputs + x  # an operation, as in Keras (not one of the model's layers)


def _build_convnext(variant, include_top=True, include_preprocessing=True,
                    weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                    classes=1000, classifier_activation="softmax", name=None,
                    drop_path_rate=0.0, layer_scale_init_value=1e-6):
    """ConvNeXt ``variant`` ("tiny" .. "xlarge"), as Keras builds it (channels last
    only, as Keras's)."""
    if config.image_data_format() == "channels_first":
        raise ValueError("ConvNeXt does not support the channels_first image data format: "
                         "set kgraph.config.set_image_data_format('channels_last').")
    depths, widths, hashes = _VARIANTS[variant]
    name = name or f"convnext_{variant}"
    builder.check_weights(weights, include_top, classes)
    inputs = builder.image_input(input_shape, input_tensor, include_top, weights)
    x = inputs
    if include_preprocessing and inputs.shape[-1] == 3:
        x = Normalization(mean=list(_MEAN), variance=list(_VARIANCE),
                          name=f"{name}_prestem_normalization")(x)
    downsampling = [Sequential([
        Conv2D(widths[0], kernel_size=4, strides=4, name=f"{name}_stem_conv"),
        LayerNormalization(epsilon=1e-6, name=f"{name}_stem_layernorm")],
        name=f"{name}_stem")]
    downsampling += [Sequential([
        LayerNormalization(epsilon=1e-6, name=f"{name}_downsampling_layernorm_{i}"),
        Conv2D(widths[i + 1], kernel_size=2, strides=2, name=f"{name}_downsampling_conv_{i}")],
        name=f"{name}_downsampling_block_{i}") for i in range(3)]
    rates = [float(r) for r in np.linspace(0.0, drop_path_rate, sum(depths))]
    done = 0
    for stage, (blocks, width) in enumerate(zip(depths, widths)):
        x = downsampling[stage](x)
        for block in range(blocks):
            x = _block(x, width, rates[done + block], layer_scale_init_value,
                       f"{name}_stage_{stage}_block_{block}")
        done += blocks
    if include_top:
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = GlobalAveragePooling2D(name=f"{name}_head_gap")(x)
        x = LayerNormalization(epsilon=1e-6, name=f"{name}_head_layernorm")(x)
        x = Dense(classes, activation=classifier_activation, name=f"{name}_head_dense")(x)
    else:
        if pooling == "avg":
            x = GlobalAveragePooling2D()(x)
        elif pooling == "max":
            x = GlobalMaxPooling2D()(x)
        x = LayerNormalization(epsilon=1e-6)(x)
    files = tuple((f"convnext_{variant}{end}.h5", sha) for end, sha in
                  zip(("", "_notop"), hashes))
    return builder.finish(inputs, input_tensor, x, name, weights, include_top, files, _ORIGIN)


def _builder(variant):
    def build(include_top=True, include_preprocessing=True, weights="imagenet",
              input_tensor=None, input_shape=None, pooling=None, classes=1000,
              classifier_activation="softmax", name=f"convnext_{variant}"):
        return _build_convnext(variant, include_top, include_preprocessing, weights,
                               input_tensor, input_shape, pooling, classes,
                               classifier_activation, name)

    build.__name__ = build.__qualname__ = f"ConvNeXt{'XLarge' if variant == 'xlarge' else variant.title()}"
    build.__doc__ = f"{build.__name__} (Liu et al., 2022), Keras's builder and arguments."
    return build


ConvNeXtTiny, ConvNeXtSmall, ConvNeXtBase, ConvNeXtLarge, ConvNeXtXLarge = (
    _builder(variant) for variant in _VARIANTS)


def preprocess_input(x, data_format=None):
    """The images unchanged: ConvNeXt models normalize their inputs themselves (Keras's
    placeholder, kept for a uniform API)."""
    return x


decode_predictions = imagenet_utils.decode_predictions
