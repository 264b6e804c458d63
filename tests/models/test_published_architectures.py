"""Published architectures built in kgraph: shapes and parameter counts match the papers'.

ResNet50 (He et al. 2016, as keras.applications.ResNet50): 25,636,712 parameters.
MobileNetV2 (Sandler et al. 2018, alpha 1.0, 224x224): 3,538,984 parameters.
Transformer base encoder block (Vaswani et al. 2017, d_model 512, 8 heads, d_ff 2048):
3,152,384 parameters.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers


# ---------------------------------------------------------------------------- ResNet50
def _resnet_block(x, filters, name, stride=1, conv_shortcut=True):
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = layers.BatchNormalization(epsilon=1.001e-5, name=f"{name}_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = layers.BatchNormalization(epsilon=1.001e-5, name=f"{name}_1_bn")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.Conv2D(filters, 3, padding="same", name=f"{name}_2_conv")(x)
    x = layers.BatchNormalization(epsilon=1.001e-5, name=f"{name}_2_bn")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    x = layers.BatchNormalization(epsilon=1.001e-5, name=f"{name}_3_bn")(x)
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def _resnet_stack(x, filters, blocks, name, stride=2):
    x = _resnet_block(x, filters, f"{name}_block1", stride=stride)
    for i in range(2, blocks + 1):
        x = _resnet_block(x, filters, f"{name}_block{i}", conv_shortcut=False)
    return x


def resnet50(input_shape=(224, 224, 3), classes=1000):
    inputs = kg.Input(shape=input_shape, name="input")
    x = layers.ZeroPadding2D(3, name="conv1_pad")(inputs)
    x = layers.Conv2D(64, 7, strides=2, name="conv1_conv")(x)
    x = layers.BatchNormalization(epsilon=1.001e-5, name="conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(1, name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = _resnet_stack(x, 64, 3, "conv2", stride=1)
    x = _resnet_stack(x, 128, 4, "conv3")
    x = _resnet_stack(x, 256, 6, "conv4")
    x = _resnet_stack(x, 512, 3, "conv5")
    x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    outputs = layers.Dense(classes, activation="softmax", name="predictions")(x)
    return kg.Model(inputs, outputs, name="resnet50")


def test_resnet50_matches_the_published_parameter_count():
    model = resnet50()
    assert model.count_params() == 25_636_712
    assert model.get_layer("conv5_block3_out").output.shape == (None, 7, 7, 2048)
    assert model.get_layer("conv2_block1_out").output.shape == (None, 56, 56, 256)
    assert model.outputs[0].shape == (None, 1000)
    assert sum(1 for layer in model.layers if isinstance(layer, layers.Conv2D)) == 53


def test_a_residual_stack_runs_compiled_and_eager_alike():
    inputs = kg.Input(shape=(8, 8, 16))
    model = kg.Model(inputs, _resnet_stack(inputs, 4, 2, "stack"))
    assert model.outputs[0].shape == (None, 4, 4, 16)
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    data = np.random.default_rng(0).normal(size=(2, 8, 8, 16)).astype(np.float32)
    out, _ = jax.jit(program.apply)(params, state, data)
    np.testing.assert_allclose(out, model(data), rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------------- MobileNetV2
def _make_divisible(v, divisor=8):
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def _inverted_residual(inputs, expansion, stride, filters, block_id):
    in_channels = inputs.shape[-1]
    pointwise = _make_divisible(filters)
    prefix = f"block_{block_id}_"
    x = inputs
    if block_id:
        x = layers.Conv2D(expansion * in_channels, 1, padding="same", use_bias=False,
                          name=prefix + "expand")(x)
        x = layers.BatchNormalization(epsilon=1e-3, momentum=0.999, name=prefix + "expand_BN")(x)
        x = layers.ReLU(6.0, name=prefix + "expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=prefix + "pad")(x)
    x = layers.DepthwiseConv2D(3, strides=stride, use_bias=False,
                               padding="same" if stride == 1 else "valid",
                               name=prefix + "depthwise")(x)
    x = layers.BatchNormalization(epsilon=1e-3, momentum=0.999, name=prefix + "depthwise_BN")(x)
    x = layers.ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = layers.Conv2D(pointwise, 1, padding="same", use_bias=False, name=prefix + "project")(x)
    x = layers.BatchNormalization(epsilon=1e-3, momentum=0.999, name=prefix + "project_BN")(x)
    if in_channels == pointwise and stride == 1:
        return layers.Add(name=prefix + "add")([inputs, x])
    return x


_MOBILENET_V2_BLOCKS = [  # (filters, stride, expansion) for block ids 0..16
    (16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6),
    (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6), (160, 2, 6),
    (160, 1, 6), (160, 1, 6), (320, 1, 6)]


def mobilenet_v2(input_shape=(224, 224, 3), classes=1000):
    inputs = kg.Input(shape=input_shape, name="input")
    x = layers.Conv2D(32, 3, strides=2, padding="same", use_bias=False, name="Conv1")(inputs)
    x = layers.BatchNormalization(epsilon=1e-3, momentum=0.999, name="bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_MOBILENET_V2_BLOCKS):
        x = _inverted_residual(x, expansion, stride, filters, block_id)
    x = layers.Conv2D(1280, 1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(epsilon=1e-3, momentum=0.999, name="Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    x = layers.GlobalAveragePooling2D()(x)
    outputs = layers.Dense(classes, activation="softmax", name="predictions")(x)
    return kg.Model(inputs, outputs, name="mobilenetv2_1.00_224")


def test_mobilenet_v2_matches_the_published_parameter_count():
    model = mobilenet_v2()
    assert model.count_params() == 3_538_984
    assert model.get_layer("out_relu").output.shape == (None, 7, 7, 1280)
    assert model.get_layer("block_16_project_BN").output.shape == (None, 7, 7, 320)


def test_an_inverted_residual_block_runs_compiled_and_eager_alike():
    inputs = kg.Input(shape=(8, 8, 16))
    model = kg.Model(inputs, _inverted_residual(inputs, 6, 1, 16, block_id=5))
    assert model.count_params() == (16 * 96 + 2 * 96 * 2) + (9 * 96 + 2 * 96 * 2) + (
        96 * 16 + 2 * 16 * 2)
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    data = np.random.default_rng(1).normal(size=(2, 8, 8, 16)).astype(np.float32)
    out, _ = jax.jit(program.apply)(params, state, data)
    np.testing.assert_allclose(out, model(data), rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------------- Transformer
def transformer_encoder_block(seq_len=16, d_model=512, heads=8, d_ff=2048, dropout=0.1):
    """Post-LN encoder layer of "Attention Is All You Need" (base model)."""
    inputs = kg.Input(shape=(seq_len, d_model), name="tokens")
    attn = layers.MultiHeadAttention(heads, d_model // heads, dropout=dropout, name="mha")
    x = layers.Add()([inputs, layers.Dropout(dropout)(attn(inputs, inputs))])
    x = layers.LayerNormalization(epsilon=1e-6, name="ln_1")(x)
    h = layers.Dense(d_ff, activation="relu", name="ffn_1")(x)
    h = layers.Dense(d_model, name="ffn_2")(layers.Dropout(dropout)(h))
    x = layers.LayerNormalization(epsilon=1e-6, name="ln_2")(layers.Add()([x, h]))
    return kg.Model(inputs, x, name="encoder_block")


def test_transformer_encoder_block_matches_the_papers_parameter_count():
    model = transformer_encoder_block()
    attention = 4 * (512 * 512 + 512)
    feed_forward = 512 * 2048 + 2048 + 2048 * 512 + 512
    assert model.count_params() == attention + feed_forward + 2 * 2 * 512 == 3_152_384
    assert model.outputs[0].shape == (None, 16, 512)


@pytest.mark.slow
def test_a_small_transformer_block_trains_compiled():
    model = transformer_encoder_block(seq_len=6, d_model=16, heads=4, d_ff=32)
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    data = jnp.asarray(np.random.default_rng(2).normal(size=(2, 6, 16)), jnp.float32)
    np.testing.assert_allclose(jax.jit(program.apply)(params, state, data)[0], model(data),
                               rtol=1e-4, atol=1e-4)
    grads = jax.jit(jax.grad(lambda p: program.apply(p, state, data, training=True,
                                                     key=jax.random.PRNGKey(0))[0].sum()))(params)
    assert all(np.all(np.isfinite(g)) for g in jax.tree_util.tree_leaves(grads))
