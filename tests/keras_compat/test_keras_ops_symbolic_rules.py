"""Keras's ops on KerasTensors and arrays, compared with Keras (the oracle): output specs
where an unknown size must match a known one (``dot``, ``split``, ``concatenate``...),
Keras's result dtypes (``ceil`` of integers, int8 ``matmul``, ``unravel_index``), the op
classes of control flow (``Map``, ``Scan``, ``Cond``...) and of ``keras.src.ops``, and
Keras's argument errors (``unstack``, ``slice``, ``histogram``, ``reshape``)."""

import operator

import keras
import numpy as np
import pytest
from keras.src.ops import core as keras_core
from keras.src.ops import numpy as keras_numpy

import kgraph as kg
from kgraph import ops
from kgraph.src.ops import core as kg_core
from kgraph.src.ops import numpy as kg_numpy
from kgraph.src.ops import operation_utils


def _specs(out):
    if isinstance(out, dict):
        return {k: _specs(v) for k, v in out.items()}
    if isinstance(out, (list, tuple)):
        return [_specs(o) for o in out]
    return (tuple(out.shape), str(out.dtype))


def _both(build):
    """``build(library, KerasTensor)``'s output specs under Keras and under kgraph."""
    return (_specs(build(keras, keras.KerasTensor)), _specs(build(kg, kg.KerasTensor)))


SYMBOLIC = {
    "dot_unknown_contraction": lambda m, T: m.ops.dot(T((None, 3)), T((None, None, 2))),
    "dot_vectors": lambda m, T: m.ops.dot(T((None,)), T((5,))),
    "matmul_batched": lambda m, T: m.ops.matmul(T((None, 3, 4)), T((3, None, 4, 5))),
    "inner": lambda m, T: m.ops.inner(T((None,)), T((3,))),
    "tensordot": lambda m, T: m.ops.tensordot(T((None, 3, 4)), T((3, 4)), axes=[[1, 2], [0, 1]]),
    "split_unknown_axis": lambda m, T: m.ops.split(T((None, 3, 3)), 2),
    "split_indices": lambda m, T: m.ops.split(T((None, 3, 3)), [1, 3], axis=1),
    "hsplit": lambda m, T: m.ops.hsplit(T((3, None, 3)), 3),
    "repeat_list": lambda m, T: m.ops.repeat(T((None, 3)), [1, 2], axis=0),
    "repeat_flat": lambda m, T: m.ops.repeat(T((2, 3)), 2),
    "take": lambda m, T: m.ops.take(T((None, 3, None, 5)), T((6, 7), "int32"), axis=2),
    "take_along_axis": lambda m, T: m.ops.take_along_axis(T((None, 3)), T((1, 3), "int32"), 1),
    "nancumsum_tuple_axis": lambda m, T: m.ops.nancumsum(T((None, 3, 3)), axis=(1,)),
    "argpartition": lambda m, T: m.ops.argpartition(T((None, 3)), 1, axis=1),
    "concatenate": lambda m, T: m.ops.concatenate([T((None, 3)), T((2, None))], axis=1),
    "vstack": lambda m, T: m.ops.vstack([T((None, 3)), T((None, None))]),
    "dstack": lambda m, T: m.ops.dstack([T((None,)), T((None,))]),
    "linspace": lambda m, T: m.ops.linspace(T((None, 3, 4)), T((2, 3, 4)), 10, axis=1),
    "allclose": lambda m, T: m.ops.allclose(T((None, 3)), T((2, None))),
    "cross": lambda m, T: m.ops.cross(T((2, 3, 3)), T((None, 1, 2))),
    "diag": lambda m, T: m.ops.diag(T((None, 3))),
    "diagonal": lambda m, T: m.ops.diagonal(T((None, 3, 3))),
    "einsum": lambda m, T: m.ops.einsum("ij,jk->ikj", T((None, 3)), T((3, 4))),
    "slice_to_end": lambda m, T: m.ops.slice(T((None, 3)), (1, 1), (-1, -1)),
    "unstack": lambda m, T: m.ops.unstack(T((2, None, None)), num=3, axis=1),
    "bitwise_and_floats": lambda m, T: m.ops.bitwise_and(T((None, 3)), T((None, 3))),
    "gcd_floats": lambda m, T: m.ops.gcd(T((None, 3)), T((2, None))),
    "ceil_int": lambda m, T: m.ops.ceil(T((2,), "int16")),
    "matmul_int8": lambda m, T: m.ops.matmul(T((2, 3), "int8"), T((3, 2), "int8")),
    "map": lambda m, T: m.ops.map(lambda x: {"a": x ** 2, "b": x * 10}, T((None, 5))),
    "vectorized_map": lambda m, T: m.ops.vectorized_map(lambda x: x[0] + x[1],
                                                         (T((6, 5)), T((6, 5)))),
    "scan": lambda m, T: m.ops.scan(lambda c, x: (c, c), T((None,)), T((6, None))),
    "scan_length": lambda m, T: m.ops.scan(lambda c, _: (c, c), T(()), None, length=3),
    "associative_scan": lambda m, T: m.ops.associative_scan(
        lambda x, y: (x[0] + y[0], x[1] + y[1]), (T((5, None)), T((5, None))), axis=1),
    "switch": lambda m, T: m.ops.switch(T((), "int32"), [lambda x, y: (x[:, 0], y[0, :])],
                                        T((None, 2)), T((5, None))),
    "cond": lambda m, T: m.ops.cond(T((), "bool"), lambda: m.ops.ones((1, 3)),
                                    lambda: m.ops.zeros((1, 3))),
    "while_loop": lambda m, T: m.ops.while_loop(lambda x: m.ops.sum(x) < 10, lambda x: x + 1,
                                                T((None,))),
    "fori_loop": lambda m, T: m.ops.fori_loop(0, 10, lambda i, x: x + i, T((3, 5, None))),
    "jvp": lambda m, T: m.ops.linalg.jvp(lambda x: m.ops.sin(x) + m.ops.cos(x), (T((None, 7)),),
                                         (T((None, 7)),)),
    "multi_hot": lambda m, T: m.ops.multi_hot(T((None, 3, 1)), 5),
    "conv_unknown_channels": lambda m, T: m.ops.conv(T((2, 10, None)), T((3, 5, 4)),
                                                     data_format="channels_last"),
    "pad_images_unknown_size": lambda m, T: m.ops.image.pad_images(
        T((None, None, 3)), 2, 3, target_height=20, target_width=30),
    "pad_images_unknown_target": lambda m, T: m.ops.image.pad_images(T((None, None, 3)), 2, 3,
                                                                     2, 3),
}


@pytest.mark.parametrize("case", sorted(SYMBOLIC))
def test_symbolic_output_specs_match_keras(case):
    theirs, ours = _both(SYMBOLIC[case])
    assert ours == theirs


EAGER = {
    "ceil_int8": lambda m: m.ops.ceil(np.array([1, 2], "int8")),
    "floor_bool": lambda m: m.ops.floor(np.array([True, False])),
    "matmul_int8": lambda m: m.ops.matmul(np.ones((2, 3), "int8"), np.ones((3, 2), "int8")),
    "einsum_int8": lambda m: m.ops.einsum("ij,jk->ik", np.ones((2, 3), "int8"),
                                          np.ones((3, 2), "int8")),
    "unravel_index_uint8": lambda m: m.ops.unravel_index(np.array([2, 0], "uint8"), (3,))[0],
    "angle_float16": lambda m: m.ops.angle(np.ones((1,), "float16")),
    "saturate_cast_bool": lambda m: m.ops.saturate_cast(np.array([-2.0, 0.5, 3.0]), "bool"),
    "saturate_cast_uint32": lambda m: m.ops.saturate_cast(np.array([-2.0, 5e9]), "uint32"),
    "argmax_negative_zero": lambda m: m.ops.argmax(
        np.array([-1.0, -0.0, 1.401298464324817e-45], "float32")),
    "argpartition_flat": lambda m: m.ops.argpartition(np.array([[3, 4, 2], [1, 3, 4]]), 1,
                                                      axis=None)[:1],
    "slice_to_end": lambda m: m.ops.slice(np.arange(9.0).reshape(3, 3), (1, 1), (-1, -1)),
    "associative_scan": lambda m: m.ops.associative_scan(operator.add, np.arange(5.0),
                                                         reverse=True),
    "scan_reverse": lambda m: m.ops.scan(lambda c, x: (c + x, c + x), np.float32(0),
                                         np.arange(4.0, dtype="float32"), reverse=True)[1],
    "while_loop_max": lambda m: m.ops.while_loop(lambda x: x < 10, lambda x: x + 1,
                                                 np.array(0), maximum_iterations=5),
    "switch_clamped": lambda m: m.ops.switch(100, [lambda x: x + 1, lambda x: x - 1],
                                             np.ones(3)),
    "attention_mixed_dtypes": lambda m: m.ops.dot_product_attention(
        np.ones((2, 3, 3, 8), "float16"), np.ones((2, 3, 3, 8), "float32"),
        np.ones((2, 3, 3, 8), "float32")),
    "multi_hot_rank3": lambda m: m.ops.multi_hot(np.array([[[1], [2], [3]], [[0], [1], [4]]]),
                                                 5, 1),
    "in_top_k_nan": lambda m: m.ops.in_top_k(np.array([1, 0]),
                                             np.array([[0.1, np.nan, 0.5], [0.3, 0.2, 0.5]]), 2),
}


@pytest.mark.parametrize("case", sorted(EAGER))
def test_eager_values_and_dtypes_match_keras(case):
    theirs = np.asarray(EAGER[case](keras))
    ours = np.asarray(EAGER[case](kg))
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.astype("float64"), theirs.astype("float64"))


def test_op_classes_of_control_flow_compute_as_keras():
    xs = np.arange(5, dtype="float32")
    assert np.allclose(kg_core.AssociativeScan()(operator.add, xs),
                       keras_core.AssociativeScan()(operator.add, xs))
    assert np.allclose(kg_core.Map()(lambda x: x ** 2, xs), keras_core.Map()(lambda x: x ** 2, xs))
    assert np.allclose(kg_core.Scan()(lambda c, x: (c + x, c), np.float32(0), xs)[1],
                       keras_core.Scan()(lambda c, x: (c + x, c), np.float32(0), xs)[1])
    assert np.allclose(kg_core.ForiLoop(0, 10, lambda i, x: x + i)(np.array(0)), 45)
    assert np.allclose(kg_core.Switch()(1, [lambda x: x + 1, lambda x: x - 1], xs), xs - 1)
    loop = kg_core.WhileLoop(lambda x: x < 10, lambda x: x + 1, maximum_iterations=5)
    assert int(loop(np.array(0))) == 5
    spec = kg.KerasTensor((2, 2))
    assert kg_core.Cond()._check_output_spec([spec, None], [spec, None])
    assert not kg_core.Cond()._check_output_spec({"a": spec}, {"b": spec})


def test_keras_src_ops_package_holds_every_module_name():
    import kgraph.src.ops as src_ops

    x = np.random.default_rng(0).uniform(size=(2, 3, 4))
    assert src_ops.KerasTensor is kg.KerasTensor
    assert [o.shape for o in src_ops.Unstack(axis=1)(x)] == [(2, 4)] * 3
    assert src_ops.Map is kg_core.Map and src_ops.Sum is kg_numpy.Sum


def test_constructor_operand_classes_trace_symbolically():
    x = np.array([1, 1, 2, 3], "int8")
    theirs = keras_numpy.Bincount(weights=x, minlength=3).symbolic_call(x)
    ours = kg_numpy.Bincount(weights=x, minlength=3).symbolic_call(x)
    assert (ours.shape, str(ours.dtype)) == (theirs.shape, theirs.dtype)
    theirs = keras_numpy.Trapezoid(x=None).symbolic_call(np.ones(4, "uint8"))
    ours = kg_numpy.Trapezoid(x=None).symbolic_call(np.ones(4, "uint8"))
    assert (ours.shape, str(ours.dtype)) == (theirs.shape, theirs.dtype)


def test_control_flow_nodes_run_in_a_model():
    x = kg.Input((10,))
    y = ops.vectorized_map(lambda t: t * 2, x)
    carry, stacked = ops.scan(lambda c, t: (c + t, c), ops.zeros((10,)), y)
    model = kg.Model(x, [carry, stacked])
    data = np.ones((4, 10), "float32")
    carry_value, stacked_value = model(data)
    assert np.allclose(carry_value, 8.0) and stacked_value.shape == (4, 10)


def test_vectorized_map_survives_a_config_round_trip():
    @kg.saving.register_keras_serializable(package="test_symbolic_rules")
    def double(x):
        return x + x

    inputs = kg.Input((10,))
    model = kg.Model(inputs, ops.vectorized_map(double, inputs))
    reloaded = kg.Model.from_config(model.get_config())
    data = np.random.default_rng(0).random((5, 10)).astype("float32")
    assert np.allclose(model(data), reloaded(data))


@pytest.mark.parametrize("call, message", [
    (lambda m, T: m.ops.unstack(T((2, None, None)), axis=1), "Cannot infer argument `num`"),
    (lambda m, T: m.ops.unstack(T((3, 4)), axis=10), "axis 10 is out of bounds"),
    (lambda m, T: m.ops.slice(T((3, 3)), (1, 1), (2, 2, 2)), "dimensions in `inputs` must"),
    (lambda m, T: m.ops.split(T((3, 4)), 2, axis=10), "axis 10 is out of bounds"),
    (lambda m, T: m.ops.swapaxes(T((3, 4)), 5, 0), "axis 5 is out of bounds"),
    (lambda m, T: m.ops.transpose(T((2, 3, 4)), axes=[0, 0, 0]), "valid permutation"),
    (lambda m, T: m.ops.matmul(T((3, 4)), T((2, 3, 4))), "Inner dimensions"),
    (lambda m, T: m.ops.repeat(T((2, 3)), [1, 1, 1], axis=0), None),
    (lambda m, T: m.ops.cond(T((), "bool"), lambda: m.ops.ones((3,)),
                             lambda: m.ops.zeros((4,))), "same kind"),
    (lambda m, T: m.ops.associative_scan(lambda x, y: (x[0] + y[0], x[1] + y[1]),
                                         (T((None, 5)), T((None, 4))), axis=1),
     " first dimension"),
    (lambda m, T: m.ops.histogram(np.ones(8), bins=-5), "non-negative integer"),
    (lambda m, T: m.ops.histogram(np.ones(8), range=(5, 1)), "greater than the first"),
    (lambda m, T: m.ops.histogram(np.ones((3, 4))), "must be 1-dimensional"),
    (lambda m, T: m.ops.reshape(np.zeros(20), (-2, 5)), "non-negative integer"),
    (lambda m, T: m.ops.reshape(np.zeros(20), (-1, -1, 5)), "at most one unknown"),
    (lambda m, T: m.ops.scan(lambda c, x: (c, c), np.float32(0), np.ones(3), unroll=-1),
     "positive integer or boolean"),
    (lambda m, T: m.ops.convert_to_numpy(T((2,))), None),
    (lambda m, T: m.ops.depth_to_space(np.ones((1, 2, 2, 4)), 0), "at least 2"),
    (lambda m, T: m.ops.space_to_depth(np.ones((1, 2, 2, 4)), 1), "at least 2"),
    (lambda m, T: m.ops.ctc_decode(np.ones((1, 3, 4)), np.array([3]), strategy="invalid"),
     "Invalid strategy"),
    (lambda m, T: m.ops.fold(np.ones((1, 2, 3, 4)), (4, 4), 2), "3D"),
    (lambda m, T: m.ops.fft((T((None,)), T((None,)))), "fully-defined"),
    (lambda m, T: m.ops.conv(T((2, 10, 3)), T((3, 5, 4)), data_format="channels_last"),
     "input channels must match the kernel"),
    (lambda m, T: m.ops.depthwise_conv(T((2, 10, 3)), T((3, 5, 1)),
                                       data_format="channels_last"),
     "input channels must match the kernel"),
    (lambda m, T: m.ops.conv_transpose(T((2, 4, 3)), T((2, 4, 5)),
                                       data_format="channels_last"),
     "input channels must match the kernel"),
    (lambda m, T: m.ops.fft2((T((None, None, 3)), T((None, None, 3)))), "fully-defined"),
    (lambda m, T: m.ops.linalg.qr(T((None, 4))), "fully-defined"),
    (lambda m, T: m.ops.image.crop_images(T((None, 10, 3)), 2, 3, 4, 5),
     "height of the images is unknown"),
    (lambda m, T: m.ops.image.pad_images(T((None, None, 3)), -1, 0, target_height=5,
                                         target_width=5), "top_padding must be >= 0"),
])
def test_keras_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call(keras, keras.KerasTensor)
    with pytest.raises(ValueError, match=message):
        call(kg, kg.KerasTensor)


def test_convert_to_numpy_gives_a_writable_copy():
    y = ops.convert_to_numpy(ops.ones((3,)))
    y[0] = 5.0
    assert y[0] == 5.0


def test_operation_utils_match_keras():
    from keras.src.ops import operation_utils as theirs

    cases = [
        ("reduce_shape", ((1, 4, 4, 1), [-2, -3])), ("reduce_shape", ((1, 4, 4, 1), None, True)),
        ("compute_expand_dims_output_shape", ((2, 3, 4), (1, -1))),
        ("compute_pooling_output_shape", ((None, 4, 4, 1), (2, 2), (2, 2))),
        ("compute_pooling_output_shape", ((1, 4, 4, 3), (2, 2), (1, 1), "same")),
        ("compute_conv_output_shape", ((None, 4, 4, 1), 1, (3, 3), (1, 1))),
        ("compute_conv_output_shape", ((1, 3, 4, 4), 2, (3, 3), 2, "valid", "channels_first")),
        ("compute_reshape_output_shape", ((2, 10), (-1, 5), "newshape")),
        ("compute_reshape_output_shape", ((None, 10), (-1, 5), "newshape")),
        ("compute_matmul_output_shape", ((4,), (2, 4, 5))),
        ("compute_transpose_output_shape", ((2, 3, 4), (2, 0, 1))),
        ("compute_take_along_axis_output_shape", ((2, 3), (1, 3), 0)),
    ]
    for name, args in cases:
        assert getattr(operation_utils, name)(*args) == getattr(theirs, name)(*args), name
    with pytest.raises(ValueError, match="zero or negative"):
        operation_utils.compute_pooling_output_shape((1, 5, 5, 3), (20, 20), (20, 20))
    x1, x2 = kg.KerasTensor((2,)), kg.KerasTensor((2,))
    assert operation_utils.get_source_inputs(ops.square(x1 + x2 + 2)) == [x1, x2]


def test_function_checks_its_arguments_and_inputs():
    from kgraph.src.ops.function import Function

    x = kg.KerasTensor((None, 3))
    fn = Function(x, x ** 2)
    assert fn.compute_output_shape((None, 3)) == (None, 3)
    with pytest.raises(ValueError, match="`outputs` argument cannot be empty"):
        Function(x, [])
    with pytest.raises(ValueError, match="`inputs` argument cannot be empty"):
        Function([], x)
    a, b = kg.KerasTensor((2, 3)), kg.KerasTensor((2, 3))
    pair = Function([a, b], [a + b])
    with pytest.raises(ValueError, match="invalid input structure"):
        pair(np.ones((2, 3)))
    with pytest.raises(ValueError, match="incompatible inputs"):
        pair([np.ones((4, 3)), np.ones((2, 3))])


def test_nn_warnings_as_keras():
    with pytest.warns(UserWarning, match="softmax over axis 1 of a tensor of shape"):
        ops.softmax(np.array([[1.0]]), axis=1)
    x = np.arange(5, dtype="float32")
    with pytest.warns(UserWarning, match="`rms_scaling=True`, which is deprecated"):
        ours = ops.layer_normalization(x, rms_scaling=True)
    with pytest.warns(UserWarning):
        theirs = keras.ops.layer_normalization(x, rms_scaling=True)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)


def test_rounding_sorting_and_uniques_as_keras():
    ints = np.array([[123, 234, 345]], "int32")
    np.testing.assert_array_equal(ops.round(ints, decimals=-1),
                                  keras.ops.round(ints, decimals=-1))
    assert int(ops.argsort(np.array(1))[0]) == int(keras.ops.argsort(np.array(1))[0])
    with_nans = np.array([1.0, np.nan, 2.0, np.nan], "float32")
    assert ops.unique(with_nans).shape == keras.ops.unique(with_nans).shape == (4,)
    from kgraph.src.ops.numpy import Ndim, Size

    assert int(Ndim()(np.ones((2, 3)))) == 2 and int(Size()(np.ones((2, 3)))) == 6


@pytest.mark.parametrize("key", [np.s_[:, 17, :], np.s_[..., 5, ...], np.s_[:, :, :, :]])
def test_bad_get_item_keys_are_keras_value_errors_and_numpy_index_errors(key):
    with pytest.raises(ValueError):
        keras.ops.get_item(keras.KerasTensor((None, 5, 16)), key)
    with pytest.raises(ValueError):
        ops.get_item(kg.KerasTensor((None, 5, 16)), key)
    with pytest.raises(IndexError):
        ops.get_item(np.ones((2, 5, 16)), key)
