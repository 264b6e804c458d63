"""``ops.ctc_decode`` (greedy and beam search), ``ctc_loss``'s batch checks, and the
normalization and cross-entropy ops' argument rules, compared with Keras (JAX backend)."""

import jax.numpy as jnp
import keras
import numpy as np
import pytest
from keras.src.ops import nn as keras_nn

import kgraph as kg
from kgraph import ops
from kgraph.ops import operation_classes


def _ctc_case(seed, batch=3, time=6, classes=5):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(batch, time, classes)).astype("float32")
    lengths = rng.integers(1, time + 1, batch).astype("int32")
    return logits, lengths


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("mask_index", [0, 2, None])
@pytest.mark.parametrize("beam_width,top_paths", [(4, 2), (3, 3), (10, 1)])
def test_ctc_beam_search_equals_keras(seed, mask_index, beam_width, top_paths):
    logits, lengths = _ctc_case(seed)
    kwargs = dict(strategy="beam_search", beam_width=beam_width, top_paths=top_paths,
                  mask_index=mask_index)
    ours = ops.ctc_decode(logits, lengths, **kwargs)
    theirs = keras.ops.ctc_decode(logits, lengths, **kwargs)
    np.testing.assert_array_equal(np.asarray(ours[0]), np.asarray(theirs[0]))
    np.testing.assert_allclose(np.asarray(ours[1]), np.asarray(theirs[1]), rtol=1e-5,
                               atol=1e-5)
    assert ours[0].dtype == jnp.int32 and ours[1].dtype == jnp.float32


@pytest.mark.parametrize("merge_repeated", [True, False])
@pytest.mark.parametrize("mask_index", [0, None])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_ctc_greedy_equals_keras(merge_repeated, mask_index, dtype):
    logits, lengths = _ctc_case(3, classes=3)
    logits = logits.astype(dtype)
    kwargs = dict(merge_repeated=merge_repeated, mask_index=mask_index)
    ours, theirs = (m.ops.ctc_decode(logits, lengths, **kwargs) for m in (kg, keras))
    np.testing.assert_array_equal(np.asarray(ours[0]), np.asarray(theirs[0]))
    np.testing.assert_allclose(np.asarray(ours[1]), np.asarray(theirs[1]), rtol=1e-5)
    assert str(ours[1].dtype) == str(theirs[1].dtype) == "float32"


@pytest.mark.parametrize("strategy,top_paths", [("greedy", 3), ("beam_search", 3)])
def test_ctc_decode_symbolic_spec_equals_keras(strategy, top_paths):
    def specs(m):
        out = m.ops.ctc_decode(m.KerasTensor((None, 4, 3), "float16"), m.KerasTensor((None,)),
                               strategy=strategy, top_paths=top_paths)
        return [(tuple(t.shape), str(t.dtype)) for t in out]

    assert specs(kg) == specs(keras)


def test_ctc_loss_refuses_batch_mismatch_as_keras():
    cls = operation_classes.operation_class("ctc_loss")
    with pytest.raises(ValueError, match="must have the same first dimension"):
        cls(mask_index=-1)._check_shape_first_dim("labels", (2, 3), "logits", (3, 4, 5))
    with pytest.raises(ValueError, match="`target` and `output` must have the same first"):
        ops.ctc_loss(kg.KerasTensor((2, 3), "int32"), kg.KerasTensor((3, 4, 5)),
                     kg.KerasTensor((2,), "int32"), kg.KerasTensor((3,), "int32"))
    out = ops.ctc_loss(kg.KerasTensor((None, 3), "int32"), kg.KerasTensor((4, 6, 5)),
                       kg.KerasTensor((None,), "int32"), kg.KerasTensor((4,), "int32"))
    assert out.shape == (4,)


@pytest.mark.parametrize("wrong", ["mean", "offset", "scale"])
def test_batch_normalization_refuses_vectors_of_another_length(wrong):
    shapes = {"mean": (5,), "variance": (5,), "offset": (5,), "scale": (5,), wrong: (3,)}
    x = np.ones((2, 3, 4, 5), "float32")
    for operands in ([x] + [np.ones(shapes[n], "float32") for n in shapes],
                     [kg.KerasTensor((None, 3, 4, 5))] + [kg.KerasTensor(shapes[n])
                                                         for n in shapes]):
        x_, mean, variance, offset, scale = operands
        with pytest.raises(ValueError, match=f"`{wrong}` must be a vector of length"):
            ops.batch_normalization(x_, mean, variance, axis=-1, offset=offset, scale=scale)


@pytest.mark.parametrize("axis,param_shape", [(1, (8,)), ([1, 2], (8, 16)), (-1, (16,))])
def test_layer_normalization_lays_vectors_along_axis_as_keras(axis, param_shape):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 8, 16)).astype("float32")
    gamma, beta = (rng.normal(size=param_shape).astype("float32") for _ in range(2))
    ours = ops.layer_normalization(x, gamma, beta, axis=axis)
    theirs = keras.ops.layer_normalization(x, gamma, beta, axis=axis)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), atol=2e-6)


def test_sparse_categorical_crossentropy_takes_class_axis_anywhere():
    rng = np.random.default_rng(0)
    target = rng.integers(0, 3, (2, 4))
    output = rng.random((2, 3, 4)).astype("float32")
    ours = ops.sparse_categorical_crossentropy(target, output, axis=1)
    last = keras.ops.sparse_categorical_crossentropy(target, np.moveaxis(output, 1, -1))
    np.testing.assert_allclose(np.asarray(ours), np.asarray(last), rtol=1e-6)
    spec = keras_nn.SparseCategoricalCrossentropy(axis=1).compute_output_spec(
        keras.KerasTensor((2, 4), "int32"), keras.KerasTensor((2, 3, 4)))
    assert ops.sparse_categorical_crossentropy(
        kg.KerasTensor((2, 4), "int32"), kg.KerasTensor((2, 3, 4)), axis=1).shape == spec.shape
    with pytest.raises(ValueError):
        ops.sparse_categorical_crossentropy(target, output, axis=3)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("name,args", [("tanh_shrink", ()), ("hard_shrink", ()),
                                       ("soft_shrink", ()), ("threshold", (0.0, 0.0))])
def test_shrink_ops_keep_the_dtype_as_keras(name, args, dtype):
    ours = getattr(ops, name)(ops.ones((1,), dtype=dtype), *args)
    theirs = getattr(keras.ops, name)(keras.ops.ones((1,), dtype=dtype), *args)
    assert str(ours.dtype) == str(theirs.dtype) == dtype


def test_psnr_refuses_other_shapes_as_keras():
    x1, x2 = np.ones((2, 3), "float32"), np.zeros((3,), "float32")
    for m in (keras, kg):  # no broadcasting: Keras's ValueError
        with pytest.raises(ValueError, match="must match for PSNR calculation"):
            m.ops.psnr(x1, x2, 1.0)
    with pytest.raises(ValueError, match="must match for PSNR calculation"):
        ops.psnr(kg.KerasTensor((1, 2, 3)), kg.KerasTensor((5, 6, 7)), 224)
    assert ops.psnr(kg.KerasTensor((None, 2, 3)), kg.KerasTensor((None, 2, 3)), 1.0).shape == ()
