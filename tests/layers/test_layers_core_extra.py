"""EinsumDense, Embedding, Lambda, Identity, Masking: values, arguments, masks, configs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers
from tests.support.helpers import MaskedSum


def _double(x):
    return x * 2.0


def _keep_first_feature_mask(inputs, mask):
    return inputs[..., 0] > 0


# ------------------------------------------------------------------------ EinsumDense
def test_einsum_dense_multi_head_projection_matches_numpy(rng):
    layer = layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3), bias_axes="de",
                               bias_initializer="random_normal")
    x = kg.Input(shape=(4, 5))
    y = layer(x)
    assert y.shape == (None, 4, 2, 3)
    assert [(w.name, w.shape) for w in layer.weights] == [("kernel", (5, 2, 3)),
                                                           ("bias", (2, 3))]
    data = rng.normal(size=(2, 4, 5)).astype(np.float32)
    kernel, bias = layer.get_weights()
    expected = np.einsum("abc,cde->abde", data, kernel) + bias
    np.testing.assert_allclose(layer(data), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(kg.Model(x, y)(data), expected, rtol=1e-5, atol=1e-5)


def test_einsum_dense_bias_on_a_middle_axis_and_ellipsis(rng):
    layer = layers.EinsumDense("abc,cd->abd", output_shape=(None, 4), bias_axes="b")
    layer(kg.Input(shape=(3, 2)))
    assert layer.bias.shape == (3, 1)  # broadcast over the last output axis (Keras layout)
    right = layers.EinsumDense("abc...,cd->abd...", output_shape=(None, 2), bias_axes="d")
    assert right(kg.Input(shape=(3, 4, 7))).shape == (None, 3, 2, 7)
    assert right.kernel.shape == (4, 2) and right.bias.shape == (2, 1)
    left = layers.EinsumDense("...b,bc->...c", output_shape=5)
    assert left(kg.Input(shape=(2, 3, 4))).shape == (None, 2, 3, 5)
    data = rng.normal(size=(1, 2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(left(data), data @ left.get_weights()[0], rtol=1e-5, atol=1e-5)
    no_bias = layers.EinsumDense("ab,bc->ac", output_shape=3)
    no_bias(kg.Input(shape=(2,)))
    assert [w.name for w in no_bias.weights] == ["kernel"]


def test_einsum_dense_glorot_uses_einsum_fans():
    layer = layers.EinsumDense("abc,cde->abde", output_shape=(None, 8, 8))
    layer(kg.Input(shape=(2, 64)))
    kernel = layer.get_weights()[0]
    limit = np.sqrt(6.0 / (64 + 64))  # fan_in = c, fan_out = d * e (not a conv fan)
    assert np.abs(kernel).max() <= limit
    assert np.abs(kernel).max() > 0.9 * limit


@pytest.mark.parametrize("kwargs, message", [
    ({"equation": "ab,bc", "output_shape": 3}, "Invalid einsum equation"),
    ({"equation": "ab,bc->ac", "output_shape": 3, "bias_axes": "x"}, "Bias dimension 'x'"),
    ({"equation": "ab,bd->ac", "output_shape": 3}, "Dimension 'c' was specified"),
])
def test_einsum_dense_rejects_bad_equations(kwargs, message):
    with pytest.raises(ValueError, match=message):
        layer = layers.EinsumDense(**kwargs)
        layer(kg.Input(shape=(2,)))


def test_einsum_dense_wrong_rank_and_mismatched_output_shape():
    layer = layers.EinsumDense("abc,cd->abd", output_shape=(None, 4))
    with pytest.raises(ValueError, match=f'"{layer.name}"'):
        layer(kg.Input(shape=(3,)))
    bad = layers.EinsumDense("abc,cd->abd", output_shape=(7, 4))
    with pytest.raises(ValueError, match="do not match at shared dimension 'b'"):
        bad(kg.Input(shape=(3, 2)))


def test_einsum_dense_regularizers_constraints_and_config():
    layer = layers.EinsumDense("ab,bc->ac", output_shape=2, bias_axes="c",
                               kernel_regularizer="l2", bias_constraint="non_neg",
                               activation="relu")
    layer(kg.Input(shape=(3,)))
    kernel, bias = layer.weights
    assert kernel.regularizer is not None and bias.constraint is not None
    config = layer.get_config()
    assert config["equation"] == "ab,bc->ac" and config["output_shape"] == [2]
    assert config["kernel_regularizer"] == {"class_name": "L2", "config": {"l2": 0.01}}
    assert config["bias_constraint"] == {"class_name": "NonNeg", "config": {}}
    assert config["activation"] == "relu" and config["bias_axes"] == "c"
    clone = layers.EinsumDense.from_config(config)
    assert clone.get_config() == config


# ------------------------------------------------------------------------ Embedding
def test_embedding_looks_up_rows_and_casts_float_indices():
    layer = layers.Embedding(6, 3)
    indices = np.array([[0, 5, 2], [1, 1, 4]], np.int32)
    out = layer(indices)
    table = layer.get_weights()[0]
    assert table.shape == (6, 3) and np.abs(table).max() <= 0.05  # Keras "uniform"
    np.testing.assert_allclose(out, table[indices])
    np.testing.assert_allclose(layer(indices.astype(np.float32)), table[indices])
    x = kg.Input(shape=(3,), dtype="int32")
    assert layer(x).shape == (None, 3, 3) and layer(x).dtype == jnp.float32


def test_embedding_mixed_precision_outputs_compute_dtype():
    layer = layers.Embedding(5, 2, dtype="mixed_bfloat16")
    out = layer(np.array([[1, 2]], np.int32))
    assert layer.weights[0].dtype == jnp.float32 and out.dtype == jnp.bfloat16


def test_embedding_mask_zero_flows_through_graphs():
    layer = layers.Embedding(5, 2, embeddings_initializer="ones", mask_zero=True)
    tokens = np.array([[3, 0, 1, 0]], np.int32)
    np.testing.assert_array_equal(layer.compute_mask(tokens), tokens != 0)
    assert layers.Embedding(5, 2).compute_mask(tokens) is None
    x = kg.Input(shape=(4,), dtype="int32")
    model = kg.Model(x, MaskedSum()(layer(x)))
    np.testing.assert_allclose(model(tokens), [[2.0, 2.0]])
    out, _ = jax.jit(compiler.compile(model).apply)(*compiler.variables(model), tokens)
    np.testing.assert_allclose(out, [[2.0, 2.0]])


def test_embedding_arguments_weights_and_config():
    with pytest.raises(ValueError, match="`input_dim` must be a positive integer"):
        layers.Embedding(0, 3)
    with pytest.raises(ValueError, match="`output_dim` must be a positive integer"):
        layers.Embedding(3, 2.5)
    table = np.arange(6, dtype=np.float32).reshape(3, 2)
    layer = layers.Embedding(3, 2, weights=[table])
    np.testing.assert_allclose(layer(np.array([2, 0])), table[[2, 0]])
    config = layers.Embedding(4, 2, mask_zero=True, embeddings_regularizer="l1").get_config()
    assert {k: config[k] for k in ("input_dim", "output_dim", "embeddings_initializer",
                                   "mask_zero", "embeddings_constraint")} == {
        "input_dim": 4, "output_dim": 2, "embeddings_initializer": "uniform",
        "mask_zero": True, "embeddings_constraint": None}
    assert config["embeddings_regularizer"] == {"class_name": "L1", "config": {"l1": 0.01}}


# ------------------------------------------------------------------------ Lambda
def test_lambda_config_of_a_named_function_needs_safe_mode_false_and_the_function():
    layer = layers.Lambda(_double, name="dbl")
    config = layer.get_config()
    assert config["function"] == {"module": __name__, "name": "_double"}
    with pytest.raises(ValueError, match="safe_mode=False"):
        layers.Lambda.from_config(config)
    with pytest.raises(ValueError, match="arbitrary code execution"):
        layers.Lambda.from_config(config, safe_mode=True)
    with pytest.raises(ValueError, match="not among custom_objects: kgraph never imports"):
        layers.Lambda.from_config(config, safe_mode=False)  # named, never imported
    clone = layers.Lambda.from_config(config, custom_objects={"_double": _double},
                                      safe_mode=False)
    assert clone.function is _double and clone.get_config() == config
    data = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(clone(data), 2 * data)
    direct = layers.Lambda.from_config({**config, "function": _double})  # no import needed
    assert direct.function is _double


def test_lambda_of_a_python_lambda_is_marked_not_deserializable():
    config = layers.Lambda(lambda x: x + 1).get_config()
    assert config["function"]["deserializable"] is False
    with pytest.raises(ValueError, match="arbitrary code execution"):  # safe mode first
        layers.Lambda.from_config(config, safe_mode=True)
    with pytest.raises(ValueError, match="lambda or a nested function"):
        layers.Lambda.from_config(config, safe_mode=False)


def test_lambda_arguments_mask_and_training():
    seen = {}

    def fn(x, mask=None, training=None, scale=1.0):
        seen.update(mask=mask, training=training)
        return x * scale

    layer = layers.Lambda(fn, arguments={"scale": 3.0}, mask=_keep_first_feature_mask)
    data = np.array([[[1.0, 2.0], [-1.0, 0.0]]], np.float32)
    np.testing.assert_allclose(layer(data, mask=np.array([[True, False]]), training=True),
                               3 * data)
    assert seen["training"] is True and seen["mask"].tolist() == [[True, False]]
    np.testing.assert_array_equal(layer.compute_mask(data), [[True, False]])
    x = kg.Input(shape=(2, 2))
    model = kg.Model(x, MaskedSum()(layer(x)))
    np.testing.assert_allclose(model(data), [[3.0, 6.0]])  # second step masked out
    assert layer.get_config()["mask"] == {"module": __name__,
                                          "name": "_keep_first_feature_mask"}


def test_lambda_without_mask_drops_masks_and_output_shape_forms():
    x = kg.Input(shape=(2, 2))
    masked = layers.Masking()(x)
    model = kg.Model(x, MaskedSum()(layers.Lambda(_double)(masked)))
    data = np.array([[[1.0, 1.0], [0.0, 0.0]]], np.float32)
    np.testing.assert_allclose(model(data), [[2.0, 2.0]])
    given = layers.Lambda(lambda t: t[:, :1], output_shape=(1, 2))(x)
    assert given.shape == (None, 1, 2)
    computed = layers.Lambda(lambda t: t.sum(-1), output_shape=lambda s: s[:-1])(x)
    assert computed.shape == (None, 2)
    with pytest.raises(TypeError, match="callable"):
        layers.Lambda("not a function")


# ------------------------------------------------------------------------ Identity, Masking
def test_identity_passes_values_structures_and_masks():
    a, b = kg.Input(shape=(3,)), kg.Input(shape=(2,), dtype="int32")
    out = layers.Identity()([a, b])
    assert [t.shape for t in out] == [(None, 3), (None, 2)] and out[1].dtype == jnp.int32
    x = kg.Input(shape=(2, 2))
    model = kg.Model(x, MaskedSum()(layers.Identity()(layers.Masking()(x))))
    data = np.array([[[1.0, 2.0], [0.0, 0.0], [3.0, 4.0]]], np.float32)[:, :2]
    np.testing.assert_allclose(model(data), [[1.0, 2.0]])


def test_masking_zeroes_masked_steps_and_makes_the_mask():
    layer = layers.Masking(mask_value=-1.0)
    data = np.array([[[1.0, -1.0], [-1.0, -1.0], [0.0, 2.0]]], np.float32)
    expected = data.copy()
    expected[0, 1] = 0.0
    np.testing.assert_allclose(layer(data), expected)
    np.testing.assert_array_equal(layer.compute_mask(data), [[True, False, True]])
    x = kg.Input(shape=(3, 2))
    model = kg.Model(x, MaskedSum()(layer(x)))
    np.testing.assert_allclose(model(data), [[1.0, 1.0]])
    out, _ = jax.jit(compiler.compile(model).apply)(*compiler.variables(model), data)
    np.testing.assert_allclose(out, [[1.0, 1.0]])
    assert layer.get_config()["mask_value"] == -1.0
