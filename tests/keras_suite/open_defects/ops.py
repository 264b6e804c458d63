"""Keras's cases of ``keras/src/ops/`` that fail on kgraph for an open defect."""

OPEN: dict[str, str] = {
    'keras/src/ops/core_test.py::CoreOpsStaticShapeTest::test_convert_to_tensor':
        "AttributeError: 'KerasTensor' object has no attribute 'sparse'",
    'keras/src/ops/image_test.py::ImageOpsCorrectnessTest::test_map_coordinates_constant_padding':
        "TypeError: ops.map_coordinates failed ...: Error interpreting argument ... as an abstract array (TensorFlow eager tensors as an op's inputs)",
    'keras/src/ops/image_test.py::ImageOpsStaticShapeTest::test_gaussian_blur':
        'TypeError: Argument `kernel_size` of ops.gaussian_blur must be a Python value (a KerasTensor kernel_size and sigma)',
    'keras/src/ops/nn_test.py::NNOpsBehaviorTest::test_check_shape_first_dim_mismatch':
        "AttributeError: 'CTCLoss' object has no attribute '_check_shape_first_dim'",
    'keras/src/ops/nn_test.py::NNOpsCorrectnessTest::test_ctc_decode':
        'TypeError: ops.ctc_decode failed on inputs of shapes [(3, 3, 4)]: list indices must be integers or slices, not tuple',
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_ctc_decode_bfloat16':
        'AssertionError:',
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_ctc_decode_float16':
        'AssertionError:',
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_ctc_decode_float32':
        "ValueError: ops.ctc_decode failed on inputs of shapes [(1, 3, 3), (1,)]: ctc_decode: only strategy='greedy' is supported (beam search is not); received strategy='beam_search'.",
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_hard_shrink_bfloat16':
        "ModuleNotFoundError: No module named 'torch'",
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_hard_shrink_float16':
        "ModuleNotFoundError: No module named 'torch'",
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_hard_shrink_float32':
        "ModuleNotFoundError: No module named 'torch'",
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_soft_shrink_bfloat16':
        "ModuleNotFoundError: No module named 'torch'",
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_soft_shrink_float16':
        "ModuleNotFoundError: No module named 'torch'",
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_soft_shrink_float32':
        "ModuleNotFoundError: No module named 'torch'",
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_tanh_shrink_bfloat16':
        "ModuleNotFoundError: No module named 'torch'",
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_tanh_shrink_float16':
        "ModuleNotFoundError: No module named 'torch'",
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_tanh_shrink_float32':
        "ModuleNotFoundError: No module named 'torch'",
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_threshold_bfloat16':
        "ModuleNotFoundError: No module named 'torch'",
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_threshold_float16':
        "ModuleNotFoundError: No module named 'torch'",
    'keras/src/ops/nn_test.py::NNOpsDtypeTest::test_threshold_float32':
        "ModuleNotFoundError: No module named 'torch'",
    'keras/src/ops/nn_test.py::NNOpsDynamicShapeTest::test_batch_normalization':
        'TypeError: Layer "batch_normalization_3" (Operation) failed while computing its output shape for input shapes [(None, 3, 4, 5), (5,), (5,), (3,), (5,)]: cannot reshape array of shape (3,) (size 3) into shape [1, 1, 1, 5] (size 5)',
    'keras/src/ops/nn_test.py::NNOpsDynamicShapeTest::test_ctc_decode':
        'ValueError: Layer "ctc_decode_1" (Operation) failed while computing its output shape for input shapes [(None, 2, 3), (None,)]: ctc_decode: only strategy=\'greedy\' is supported (beam search is not); received strategy=\'beam_search\'.',
    'keras/src/ops/nn_test.py::NNOpsDynamicShapeTest::test_dot_product_attention':
        'ValueError: Layer "dot_product_attention" (Operation) failed while computing its output shape for input shapes [(None, None, 8, 16), (None, None, 6, 16), (None, None, 6, 16)]: The number of query heads must be a multiple of key/value heads,',
    'keras/src/ops/nn_test.py::NNOpsDynamicShapeTest::test_layer_normalization':
        'ValueError: Layer "layer_normalization" (Operation) failed while computing its output shape for input shapes [(None, 8, 16), (None, 16), (None, 16)]: Incompatible shapes for broadcasting: shapes=[(83, 8, 16), (83, 16)]',
    'keras/src/ops/nn_test.py::NNOpsDynamicShapeTest::test_multi_hot':
        'AssertionError: Tuples differ: (None, 3, 5) != (None, 1, 5)',
    'keras/src/ops/nn_test.py::NNOpsDynamicShapeTest::test_one_hot':
        'ValueError: Layer "one_hot_3" (Operation) failed while computing its output shape for input shapes [(None, 3, 1)]: ops.one_hot: sparse=True is not supported (JAX arrays are dense).',
    'keras/src/ops/nn_test.py::NNOpsDynamicShapeTest::test_psnr':
        'TypeError: Layer "psnr" (Operation) failed while computing its output shape for input shapes [(None, 2, 3), (None, 5, 6)]: sub got incompatible shapes for broadcasting: (83, 2, 3), (83, 5, 6).',
    'keras/src/ops/nn_test.py::NNOpsStaticShapeTest::test_ctc_decode':
        'ValueError: Layer "ctc_decode_1" (Operation) failed while computing its output shape for input shapes [(10, 2, 3), (10,)]: ctc_decode: only strategy=\'greedy\' is supported (beam search is not); received strategy=\'beam_search\'.',
    'keras/src/ops/nn_test.py::NNOpsStaticShapeTest::test_ctc_loss':
        'ValueError: Layer "ctc_loss" (Operation) failed while computing its output shape for input shapes [(10, 3, 4), (10, 3), (10,), (10,)]: Expected the input to have rank 3, got 2 instead',
    'keras/src/ops/nn_test.py::NNOpsStaticShapeTest::test_dot_product_attention':
        'ValueError: Layer "dot_product_attention" (Operation) failed while computing its output shape for input shapes [(2, 3, 8, 16), (2, 4, 6, 16), (2, 4, 6, 16)]: The number of query heads must be a multiple of key/value heads, but got 8 vs 6',
    'keras/src/ops/nn_test.py::NNOpsStaticShapeTest::test_layer_normalization':
        'ValueError: Layer "layer_normalization" (Operation) failed while computing its output shape for input shapes [(2, 8, 16), (2, 16), (2, 16)]: Incompatible shapes for broadcasting: shapes=[(2, 8, 16), (2, 16)]',
    'keras/src/ops/nn_test.py::NNOpsStaticShapeTest::test_one_hot':
        'ValueError: Layer "one_hot_3" (Operation) failed while computing its output shape for input shapes [(2, 3, 1)]: ops.one_hot: sparse=True is not supported (JAX arrays are dense).',
    'keras/src/ops/nn_test.py::NNOpsStaticShapeTest::test_polar':
        'ValueError: Operation "polar" cannot broadcast input shapes [(1, 2), (3, 4)]: incompatible sizes [2, 4] at axis -1',
    'keras/src/ops/nn_test.py::NNOpsStaticShapeTest::test_psnr':
        'TypeError: Layer "psnr" (Operation) failed while computing its output shape for input shapes [(1, 2, 3), (5, 6, 7)]: sub got incompatible shapes for broadcasting: (1, 2, 3), (5, 6, 7).',
    'keras/src/ops/nn_test.py::NNOpsStaticShapeTest::test_sparse_categorical_crossentropy':
        'ValueError: Layer "sparse_categorical_crossentropy_1" (Operation) failed while computing its output shape for input shapes [(2, 4), (2, 3, 4)]: Arguments `target` and `output` must have the same shape up until the last dimension: target.sha',
    'keras/src/ops/node_test.py::NodeTest::test_simple_case':
        'AssertionError: False != True',
    'keras/src/ops/node_test.py::NodeTest::test_single_wired_layers':
        'AssertionError: False != True',
    'keras/src/ops/numpy_test.py::NumpyOneInputOpsCorrectnessTest::test_reshape_symbolic_tensor_shape':
        'TypeError: Argument `newshape` of ops.reshape must be a Python value (it is stored in the graph node), not a symbolic tensor: <KerasTensor shape=(2,), dtype=int32>.',
    'keras/src/ops/numpy_test.py::NumpyOneInputOpsCorrectnessTest::test_slogdet':
        'AssertionError: Tuples differ: (2, 4) != ()',
    'keras/src/ops/numpy_test.py::NumpyOneInputOpsDynamicShapeTest::test_broadcast_to':
        'ValueError: Layer "broadcast_to" (Operation) failed while computing its output shape for input shapes [(None, 3)]: Incompatible types for broadcasting: input type=float32[83,3] and requested type=float32[2,3,3]',
    'keras/src/ops/numpy_test.py::NumpyOneInputOpsDynamicShapeTest::test_concatenate':
        'AssertionError: ValueError not raised',
    'keras/src/ops/numpy_test.py::NumpyOneInputOpsDynamicShapeTest::test_concatenate_sparse':
        "TypeError: KerasTensor.__init__() got an unexpected keyword argument 'sparse'",
    'keras/src/ops/numpy_test.py::NumpyOneInputOpsDynamicShapeTest::test_corrcoef':
        'AssertionError: Tuples differ: (3, 3) != (3, None)',
    'keras/src/ops/numpy_test.py::NumpyOneInputOpsDynamicShapeTest::test_ndim':
        "AttributeError: 'int' object has no attribute 'shape'",
    'keras/src/ops/numpy_test.py::NumpyOneInputOpsDynamicShapeTest::test_size':
        "AttributeError: 'NoneType' object has no attribute 'shape'",
    'keras/src/ops/numpy_test.py::NumpyOneInputOpsStaticShapeTest::test_concatenate':
        'AssertionError: Tuples differ: (12,) != (None,)',
    'keras/src/ops/numpy_test.py::NumpyOneInputOpsStaticShapeTest::test_ndim':
        "AttributeError: 'int' object has no attribute 'shape'",
    'keras/src/ops/numpy_test.py::NumpyOneInputOpsStaticShapeTest::test_size':
        "AttributeError: 'int' object has no attribute 'shape'",
    'keras/src/ops/numpy_test.py::NumpyTwoInputOpsDynamicShapeTest::test_einsum':
        'ValueError: Layer "einsum_2" (Operation) failed while computing its output shape for input shapes [(None, 3)]: Size of label \'i\' for operand 0 (83) does not match previous terms (3).',
    'keras/src/ops/numpy_test.py::NumpyTwoInputOpsDynamicShapeTest::test_searchsorted':
        "AssertionError: dtype('int32') != 'int64'",
    'keras/src/ops/numpy_test.py::NumpyTwoInputOpsDynamicShapeTest::test_where':
        "AttributeError: 'tuple' object has no attribute 'shape'",
    'keras/src/ops/numpy_test.py::NumpyTwoInputOpsStaticShapeTest::test_correlate_mode_full':
        "TypeError: 'int' object is not iterable",
    'keras/src/ops/numpy_test.py::NumpyTwoInputOpsStaticShapeTest::test_einsum':
        'ValueError: Layer "einsum_2" (Operation) failed while computing its output shape for input shapes [(2, 3)]: Size of label \'i\' for operand 0 (2) does not match previous terms (3).',
    'keras/src/ops/numpy_test.py::NumpyTwoInputOpsStaticShapeTest::test_matmul_sparse':
        "TypeError: KerasTensor.__init__() got an unexpected keyword argument 'sparse'",
    'keras/src/ops/numpy_test.py::NumpyTwoInputOpsStaticShapeTest::test_where':
        "AttributeError: 'tuple' object has no attribute 'shape'",
    'keras/src/ops/operation_test.py::OperationTest::test_rematerialized_call':
        "AttributeError: property 'quantization_mode' of 'OpWithQuantizedCall' object has no setter",
}
