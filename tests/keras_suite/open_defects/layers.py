"""Keras's cases of ``keras/src/layers/`` that fail on kgraph for an open defect."""

OPEN: dict[str, str] = {
    'keras/src/layers/convolutional/conv_test.py::ConvBasicTest::test_lora_weight_name':
        'AssertionError:',
    'keras/src/layers/core/dense_test.py::DenseTest::test_lora_weight_name':
        'AssertionError:',
    'keras/src/layers/layer_test.py::LayerTest::test_custom_layer_add_weight_in_build_name':
        'AssertionError: False is not true',
    'keras/src/layers/layer_test.py::LayerTest::test_layer_variable_tracking_correct':
        'AssertionError:',
}
