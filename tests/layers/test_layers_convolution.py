"""Convolution layers: values against NumPy references, weights, argument errors."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import compiler
import kgraph as kg
from kgraph import layers


def _rand(rng, *shape):
    return rng.normal(size=shape).astype(np.float32)


def _conv_ref(x, w, stride, padding, dilation=1, groups=1):
    """NumPy 1D/2D cross-correlation, channels last, kernel (*k, in/groups, out); TF "same"."""
    rank = x.ndim - 2
    stride, dilation = (stride,) * rank if np.isscalar(stride) else stride, (
        (dilation,) * rank if np.isscalar(dilation) else dilation)
    k = w.shape[:rank]
    eff = [(kk - 1) * d + 1 for kk, d in zip(k, dilation)]
    pads = []
    for n, e, s in zip(x.shape[1:-1], eff, stride):
        if padding == "valid":
            pads.append((0, 0))
        elif padding == "causal":
            pads.append((e - 1, 0))
        else:
            out = -(-n // s)
            total = max((out - 1) * s + e - n, 0)
            pads.append((total // 2, total - total // 2))
    xp = np.pad(x, [(0, 0), *pads, (0, 0)])
    out_len = [(xp.shape[1 + i] - eff[i]) // stride[i] + 1 for i in range(rank)]
    cin, cout = x.shape[-1], w.shape[-1]
    gin, gout = cin // groups, cout // groups
    out = np.zeros((x.shape[0], *out_len, cout), np.float64)
    for pos in np.ndindex(*out_len):
        for offs in np.ndindex(*k):
            idx = tuple(p * s + o * d for p, s, o, d in zip(pos, stride, offs, dilation))
            patch = xp[(slice(None), *idx)]  # (batch, cin)
            for g in range(groups):
                out[(slice(None), *pos, slice(g * gout, (g + 1) * gout))] += (
                    patch[:, g * gin:(g + 1) * gin] @ w[offs][:, g * gout:(g + 1) * gout])
    return out


def _run(layer, x):
    out = layer(x)  # builds
    return np.asarray(out)


@pytest.mark.parametrize("padding,strides,dilation", [
    ("valid", 1, 1), ("same", 1, 1), ("valid", 2, 1), ("same", 2, 1), ("same", 1, 2),
    ("valid", (2, 1), 1)])
def test_conv2d_matches_numpy(padding, strides, dilation, rng):
    x = _rand(rng, 2, 7, 6, 3)
    layer = layers.Conv2D(4, (3, 2), strides=strides, padding=padding, dilation_rate=dilation,
                          bias_initializer="ones")
    out = _run(layer, x)
    expected = _conv_ref(x, np.asarray(layer.kernel), strides, padding, dilation) + 1.0
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_conv2d_groups_and_channels_first(rng):
    x = _rand(rng, 2, 6, 5, 4)
    last = layers.Conv2D(6, 3, groups=2, activation="relu")
    out = _run(last, x)
    assert last.kernel.shape == (3, 3, 2, 6)
    expected = np.maximum(_conv_ref(x, np.asarray(last.kernel), 1, "valid", groups=2)
                          + np.asarray(last.bias), 0)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    first = layers.Conv2D(6, 3, groups=2, activation="relu", data_format="channels_first")
    first(x.transpose(0, 3, 1, 2))
    first.set_weights(last.get_weights())
    np.testing.assert_allclose(np.asarray(first(x.transpose(0, 3, 1, 2))),
                               out.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("strides,dilation", [(1, 1), (1, 2), (2, 1)])
def test_conv1d_causal_only_sees_the_past(strides, dilation, rng):
    x = _rand(rng, 2, 9, 2)
    layer = layers.Conv1D(3, 3, strides=strides, padding="causal", dilation_rate=dilation)
    out = _run(layer, x)
    assert out.shape == (2, -(-9 // strides), 3)
    expected = _conv_ref(x, np.asarray(layer.kernel), strides, "causal", dilation)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    if strides == 1:  # changing the future leaves earlier outputs unchanged
        y = x.copy()
        y[:, 5:] = 100.0
        np.testing.assert_allclose(np.asarray(layer(y))[:, :5], out[:, :5], rtol=1e-6)


def test_conv3d_shape_and_value(rng):
    x = _rand(rng, 1, 4, 4, 4, 2)
    layer = layers.Conv3D(2, 2, strides=2, use_bias=False)
    out = _run(layer, x)
    w = np.asarray(layer.kernel)
    expected = np.einsum("bdhwc,dhwco->bo", x[:, :2, :2, :2], w)
    np.testing.assert_allclose(out[:, 0, 0, 0], expected, rtol=1e-5, atol=1e-5)
    assert out.shape == (1, 2, 2, 2, 2)


@pytest.mark.parametrize("padding,strides,kernel", [
    ("same", 2, 3), ("valid", 2, 3), ("same", 1, 3), ("valid", 1, 2), ("same", 2, 4)])
def test_conv_transpose_is_the_gradient_of_the_conv(padding, strides, kernel, rng):
    """Conv2DTranspose(kernel) == vjp of Conv2D(kernel) with respect to its input."""
    y = _rand(rng, 2, 4, 3, 5)
    tlayer = layers.Conv2DTranspose(3, kernel, strides=strides, padding=padding, use_bias=False)
    out = _run(tlayer, y)
    kernel_value = np.asarray(tlayer.kernel)  # (k, k, filters=3, in=5) == Conv2D's (k, k, 3, 5)
    assert kernel_value.shape == (kernel, kernel, 3, 5)
    conv = layers.Conv2D(5, kernel, strides=strides, padding=padding, use_bias=False)
    x = jnp.zeros(out.shape)
    conv(x)
    conv.set_weights([kernel_value])
    _, vjp = jax.vjp(conv, x)
    np.testing.assert_allclose(out, vjp(jnp.asarray(y))[0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("padding,strides,output_padding,kernel,expected", [
    ("valid", 2, None, 3, 9), ("valid", 3, None, 2, 12), ("same", 2, None, 3, 8),
    ("same", 2, 1, 3, 8), ("same", 3, 0, 3, 10), ("valid", 2, 1, 3, 10)])
def test_conv_transpose_output_lengths(padding, strides, output_padding, kernel, expected, rng):
    layer = layers.Conv1DTranspose(2, kernel, strides=strides, padding=padding,
                                   output_padding=output_padding)
    assert layer(kg.Input(shape=(4, 3))).shape == (None, expected, 2)
    assert layer(_rand(rng, 1, 4, 3)).shape == (1, expected, 2)


def _depthwise_ref(x, w, strides, padding, dilation=1):
    """Per-channel conv: output channel c * dm + m uses input channel c."""
    cin, dm = w.shape[-2:]
    outs = [_conv_ref(x[..., c:c + 1], w[..., c:c + 1, :], strides, padding, dilation)
            for c in range(cin)]
    return np.concatenate(outs, axis=-1)


@pytest.mark.parametrize("padding,strides,dilation", [
    ("valid", 1, 1), ("same", 2, 1), ("same", 1, 2)])
def test_depthwise_conv2d_matches_numpy(padding, strides, dilation, rng):
    x = _rand(rng, 2, 6, 5, 3)
    layer = layers.DepthwiseConv2D(3, strides=strides, padding=padding, depth_multiplier=2,
                                   dilation_rate=dilation, bias_initializer="ones")
    out = _run(layer, x)
    assert [v.name for v in layer.weights] == ["kernel", "bias"]  # Keras 3's names
    assert layer.kernel.shape == (3, 3, 3, 2) and layer.bias.shape == (6,)
    expected = _depthwise_ref(x, np.asarray(layer.kernel), strides, padding,
                              dilation) + 1.0
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("padding,strides", [("valid", 1), ("same", 2)])
def test_separable_conv2d_is_depthwise_then_pointwise(padding, strides, rng):
    x = _rand(rng, 2, 6, 6, 2)
    layer = layers.SeparableConv2D(4, 3, strides=strides, padding=padding, depth_multiplier=3,
                                   bias_initializer="ones")
    out = _run(layer, x)
    assert [v.name for v in layer.weights] == ["depthwise_kernel", "pointwise_kernel", "bias"]
    assert layer.pointwise_kernel.shape == (1, 1, 6, 4)
    depth = _depthwise_ref(x, np.asarray(layer.depthwise_kernel), strides, padding)
    expected = depth @ np.asarray(layer.pointwise_kernel)[0, 0] + 1.0
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_separable_conv1d_shapes():
    layer = layers.SeparableConv1D(5, 3, depth_multiplier=2, padding="same", strides=2)
    assert layer(kg.Input(shape=(9, 3))).shape == (None, 5, 5)
    assert layer.pointwise_kernel.shape == (1, 6, 5)
    assert layer.depthwise_kernel.shape == (3, 3, 2)


def test_unknown_spatial_dims_are_none_and_run(rng):
    layer = layers.Conv2D(2, 3, strides=2, padding="same")
    x = kg.Input(shape=(None, None, 3))
    y = layer(x)
    assert y.shape == (None, None, None, 2)
    model = kg.Model(x, y)
    assert model(_rand(rng, 1, 7, 5, 3)).shape == (1, 4, 3, 2)


def test_weight_regularizers_and_constraints_reach_the_program(rng):
    x = kg.Input(shape=(4, 4, 1))
    conv = layers.Conv2D(2, 2, name="c", kernel_initializer="ones", bias_initializer="ones",
                         kernel_regularizer="l2", bias_regularizer="l1",
                         kernel_constraint="non_neg")
    program = compiler.compile(kg.Model(x, conv(x)))
    params, state = program.init(jax.random.PRNGKey(0))
    _, _, losses = program.apply(params, state, _rand(rng, 1, 4, 4, 1), return_losses=True)
    np.testing.assert_allclose(losses, 0.01 * 8 + 0.01 * 2, rtol=1e-5)
    assert conv.weights[0].constraint is not None
    np.testing.assert_allclose(conv.weights[0].constraint(-jnp.ones(2)), [0.0, 0.0])


def test_int_inputs_are_cast_to_the_compute_dtype():
    layer = layers.Conv1D(2, 2)
    out = layer(np.arange(12, dtype=np.int32).reshape(1, 6, 2))
    assert out.dtype == jnp.float32
    assert layer(kg.Input(shape=(6, 2), dtype="int32")).dtype == jnp.float32


def test_config_keys_are_keras_names():
    conv = layers.Conv2D(3, 2, kernel_regularizer="l2")
    assert set(conv.get_config()) == {
        "name", "trainable", "dtype", "filters", "kernel_size", "strides", "padding",
        "data_format", "dilation_rate", "groups", "activation", "use_bias",
        "kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer",
        "activity_regularizer", "kernel_constraint", "bias_constraint"}
    assert conv.get_config()["kernel_size"] == (2, 2)
    assert conv.get_config()["kernel_regularizer"] == {"class_name": "L2",
                                                      "config": {"l2": 0.01}}
    transpose = layers.Conv2DTranspose(3, 2).get_config()
    assert "groups" not in transpose and transpose["output_padding"] is None
    depthwise = layers.DepthwiseConv2D(3).get_config()
    assert {"depth_multiplier", "depthwise_initializer", "depthwise_regularizer",
            "depthwise_constraint"} <= set(depthwise) and "filters" not in depthwise
    separable = layers.SeparableConv2D(2, 3).get_config()
    assert {"pointwise_initializer", "pointwise_regularizer", "pointwise_constraint",
            "filters", "depth_multiplier"} <= set(separable)
    numpy_ints = layers.SeparableConv2D(np.int64(4), 3, depth_multiplier=np.int32(2)).get_config()
    assert type(numpy_ints["filters"]) is int and type(numpy_ints["depth_multiplier"]) is int
    clone = layers.Conv1D.from_config(layers.Conv1D(2, [3], padding="CAUSAL").get_config())
    assert clone.padding == "causal" and clone.kernel_size == (3,)


@pytest.mark.parametrize("make,match", [
    (lambda: layers.Conv2D(0, 3), "filters"),
    (lambda: layers.Conv2D(3, 3, groups=2), "divisible by the number of groups"),
    (lambda: layers.Conv2D(3, 0), "kernel_size"),
    (lambda: layers.Conv2D(3, (3, 3, 3)), "kernel_size"),
    (lambda: layers.Conv2D(3, 3, strides=0), "strides"),
    (lambda: layers.Conv2D(3, 3, strides=2, dilation_rate=2), "dilation_rate > 1"),
    (lambda: layers.Conv2D(3, 3, padding="causal"), "padding"),
    (lambda: layers.Conv2D(3, 3, padding="full"), "padding"),
    (lambda: layers.Conv2D(3, 3, data_format="nhwc"), "data_format"),
    (lambda: layers.Conv2DTranspose(3, 3, strides=2, output_padding=2), "output_padding"),
    (lambda: layers.DepthwiseConv2D(3, depth_multiplier=0), "depth_multiplier"),
    (lambda: layers.DepthwiseConv2D(3, padding="causal"), "padding"),
    (lambda: layers.SeparableConv2D(-1, 3), "filters"),
])
def test_invalid_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_build_errors_name_the_layer():
    with pytest.raises(ValueError, match='"grouped".*divisible by the number of groups'):
        layers.Conv2D(4, 3, groups=2, name="grouped")(kg.Input(shape=(5, 5, 3)))
    with pytest.raises(ValueError, match='"big".*zero or negative'):
        layers.Conv2D(4, 5, name="big")(kg.Input(shape=(3, 3, 1)))
    with pytest.raises(ValueError, match='"nochan".*channel dimension'):
        layers.Conv1D(4, 3, name="nochan")(kg.Input(shape=(5, None)))
    conv = layers.Conv2D(2, 2, name="fixed")
    conv(kg.Input(shape=(4, 4, 3)))
    with pytest.raises(ValueError, match='"fixed".*axis -1'):
        conv(kg.Input(shape=(4, 4, 2)))


@pytest.mark.parametrize("make", [
    lambda: layers.Conv2D(2, 2, name="fresh"), lambda: layers.Conv1DTranspose(2, 2, name="fresh"),
    lambda: layers.DepthwiseConv2D(2, name="fresh"),
    lambda: layers.SeparableConv1D(2, 2, name="fresh")])
def test_an_unbuilt_layer_refuses_a_wrong_rank_by_name(make):
    for value in (kg.Input(shape=(4,)), np.zeros((1, 4), np.float32)):
        with pytest.raises(ValueError, match='"fresh".*expected ndim='):
            make()(value)


def test_gradients_flow_through_a_small_cnn(rng):
    """Every weight upstream of pooling, padding and transposed convolutions gets a gradient."""
    x = kg.Input(shape=(8, 8, 1))
    h = layers.Conv2D(4, 3, padding="same", activation="tanh", name="c")(x)
    h = layers.MaxPooling2D()(h)
    h = layers.SeparableConv2D(8, 3, padding="same", activation="tanh", name="s")(h)
    h = layers.Conv2DTranspose(4, 3, strides=2, padding="same", name="up")(h)
    h = layers.DepthwiseConv2D(3, name="dw")(layers.ZeroPadding2D(1)(h))
    h = layers.AveragePooling2D(3, strides=2, padding="same")(h)
    y = layers.Dense(2, name="out")(layers.GlobalAveragePooling2D()(h))
    model = kg.Model(x, y)
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    assert params["dw"]["kernel"].shape == (3, 3, 4, 1)
    assert params["up"]["kernel"].shape == (3, 3, 4, 8)
    data = _rand(rng, 4, 8, 8, 1)
    labels = np.array([0, 1, 1, 0])

    def loss(p):
        logits, _ = program.apply(p, state, data)
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

    grads = jax.jit(jax.grad(loss))(params)
    for path, g in jax.tree_util.tree_leaves_with_path(grads):
        g = np.asarray(g)
        assert np.all(np.isfinite(g)) and np.any(g != 0), path
