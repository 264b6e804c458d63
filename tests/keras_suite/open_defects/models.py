"""Keras's cases of ``keras/src/models/`` that fail on kgraph for an open defect."""

OPEN: dict[str, str] = {
    'keras/src/models/cloning_test.py::CloneModelTest::test_cloning_correctness_subclassed':
        "ValueError: clone_model: clone_function apply to functional and Sequential models; 'example_model' is a subclassed model, cloned from its config.",
    'keras/src/models/cloning_test.py::CloneModelTest::test_compiled_model_cloning':
        'AssertionError: True != False',
    'keras/src/models/cloning_test.py::CloneModelTest::test_structured_io_cloning':
        "ValueError: clone_model: input_tensors must be 2 symbolic tensor(s) (kg.Input) for model 'functional', received {'x': <KerasTensor shape=(None, 3), dtype=float32 name=input_layer>, 'y': <KerasTensor shape=(None, 3), dtype=float32 name=input",
    'keras/src/models/functional_test.py::FunctionalTest::test_bad_input_spec':
        'AssertionError: "expects 2 .*input" does not match "Model \'functional_1\' expects a list of 2 inputs [\'a\', \'b\'], received a single ndarray."',
    'keras/src/models/functional_test.py::FunctionalTest::test_basic_flow_dict_io':
        "TypeError: Model inputs must be symbolic tensors made by kg.Input; received 'input_a' (a graph of ops on bare KerasTensors is a kg.Function).",
    'keras/src/models/functional_test.py::FunctionalTest::test_deeply_nested_model':
        'ValueError: Layer "dense_1" expects 1 input(s), but it received 2 input tensors. Inputs received: [Array([[1., 1.],',
    'keras/src/models/functional_test.py::FunctionalTest::test_disconnected_output':
        'AssertionError: "Output with path `output2` is not connected" does not match "Graph disconnected: layer "multiply_1" needs Input "input2" (shape=(None, 2), dtype=float32), which is not among the model\'s inputs ["input1"]. Add it to Model(in',
    'keras/src/models/functional_test.py::FunctionalTest::test_dtype_standardization':
        'AssertionError:',
    'keras/src/models/functional_test.py::FunctionalTest::test_functional_slicing':
        "AssertionError: <Dense name=dense2, built=True> is not an instance of <class 'kgraph.graph.input_layer.InputLayer'>",
    'keras/src/models/functional_test.py::FunctionalTest::test_input_dict_with_extra_field':
        'AssertionError: "Model \'functional\' does not use input key(s) [\'b\']: its inputs are [\'a\']." does not start with "The structure of `inputs` doesn\'t match the expected structure"',
    'keras/src/models/functional_test.py::FunctionalTest::test_invalid_config_deserialization_loop':
        'AssertionError: "loop" does not match "Invalid config at config["layers"][1]: layer \'node_a\' uses the legacy (Keras 2) inbound_nodes format, which is not supported; re-save the model with Keras 3."',
    'keras/src/models/functional_test.py::FunctionalTest::test_invalid_config_deserialization_missing_node':
        'AssertionError: "Missing node: node_b" does not match "Invalid config at config["layers"][1]: layer \'node_a\' uses the legacy (Keras 2) inbound_nodes format, which is not supported; re-save the model with Keras 3."',
    'keras/src/models/functional_test.py::FunctionalTest::test_layer_getters':
        "AttributeError: 'Functional' object has no attribute '_operations'",
    'keras/src/models/functional_test.py::FunctionalTest::test_layers_setter':
        'AssertionError: "`Model.layers` attribute is reserved" does not match "property \'layers\' of \'Functional\' object has no setter"',
    'keras/src/models/functional_test.py::FunctionalTest::test_list_input_with_dict_build':
        'AssertionError: "The structure of `inputs` doesn\'t match the expected structure" does not match "Model \'functional\' expects a dict of inputs with keys [\'IS\', \'IT\'], received list."',
    'keras/src/models/functional_test.py::FunctionalTest::test_optional_and_required_mixed_structures':
        "ValueError: kgraph InputLayer does not support optional=True (InputLayer 'input2'): inputs are dense arrays, and every input of a model is given.",
    'keras/src/models/functional_test.py::FunctionalTest::test_optional_dict_inputs':
        "ValueError: kgraph InputLayer does not support optional=True (InputLayer 'input2'): inputs are dense arrays, and every input of a model is given.",
    'keras/src/models/functional_test.py::FunctionalTest::test_optional_inputs':
        "ValueError: kgraph InputLayer does not support optional=True (InputLayer 'input_layer_1'): inputs are dense arrays, and every input of a model is given.",
    'keras/src/models/functional_test.py::FunctionalTest::test_rank_standardization_failure':
        'AssertionError: "name \'foo\' .* path \'\'" does not match "Input 0 of layer "functional" is incompatible with the layer: expected ndim=2, found ndim=3. Full shape received: (2, 3, 4)"',
    'keras/src/models/functional_test.py::FunctionalTest::test_required_input_none_raises':
        'AssertionError: "not optional" does not match "Layer "functional" expects 2 input(s), but it received 1 input tensors. Inputs received: [Array([[1., 1.],',
    'keras/src/models/functional_test.py::FunctionalTest::test_required_none_raises_in_fit':
        'AssertionError: "not optional" does not match "Layer "functional" expects 1 input(s), but it received 0 input tensors. Inputs received: []"',
    'keras/src/models/functional_test.py::FunctionalTest::test_restored_multi_output_type_tuple':
        'AssertionError: [Array([[-0.2400019 , 0.65400064, -0.38445613, 0.30353323],',
    'keras/src/models/functional_test.py::FunctionalTest::test_warning_for_mismatched_inputs_structure':
        "Failed: DID NOT WARN. No warnings of type (<class 'Warning'>,) were emitted.",
    'keras/src/models/model_test.py::ModelTest::test_export_error':
        "AttributeError: 'Functional' object has no attribute 'export'",
    'keras/src/models/model_test.py::ModelTest::test_functional_deeply_nested_outputs_struct_losses':
        'IndexError: list assignment index out of range',
    'keras/src/models/model_test.py::ModelTest::test_functional_list_outputs_with_custom_compute_loss':
        "AssertionError: Lists differ: ['a_loss', 'loss'] != ['binary_crossentropy_loss', 'loss', 'mean_squared_error_loss']",
    'keras/src/models/model_test.py::ModelTest::test_functional_optional_inputs_generator_optional_none':
        "ValueError: kgraph InputLayer does not support optional=True (InputLayer 'o'): inputs are dense arrays, and every input of a model is given.",
    'keras/src/models/model_test.py::ModelTest::test_functional_optional_inputs_generator_optional_tensor':
        "ValueError: kgraph InputLayer does not support optional=True (InputLayer 'o'): inputs are dense arrays, and every input of a model is given.",
    'keras/src/models/model_test.py::ModelTest::test_functional_optional_inputs_optional_none':
        "ValueError: kgraph InputLayer does not support optional=True (InputLayer 'o'): inputs are dense arrays, and every input of a model is given.",
    'keras/src/models/model_test.py::ModelTest::test_functional_optional_inputs_optional_tensor':
        "ValueError: kgraph InputLayer does not support optional=True (InputLayer 'o'): inputs are dense arrays, and every input of a model is given.",
    'keras/src/models/model_test.py::ModelTest::test_functional_struct_outputs_dict_struct_losses_not_weighted':
        'ValueError: entry not a 2- or 3- tuple',
    'keras/src/models/model_test.py::ModelTest::test_functional_struct_outputs_dict_struct_losses_weighted':
        'ValueError: entry not a 2- or 3- tuple',
    'keras/src/models/model_test.py::ModelTest::test_functional_struct_outputs_namedtuple_struct_losses':
        "ValueError: The two structures don't have the same nested structure: PyTreeDef(CustomNode(namedtuple[Y], [*, *])) and PyTreeDef(*).",
    'keras/src/models/model_test.py::ModelTest::test_functional_struct_outputs_struct_losses0':
        "ValueError: The two structures don't have the same nested structure: PyTreeDef((*, *)) and PyTreeDef(*).",
    'keras/src/models/model_test.py::ModelTest::test_functional_struct_outputs_struct_losses1':
        "ValueError: The two structures don't have the same nested structure: PyTreeDef((*, *)) and PyTreeDef(*).",
    'keras/src/models/model_test.py::ModelTest::test_functional_struct_outputs_struct_losses2':
        'AssertionError: "[Ee]xpected.*tuple" does not match "The two structures don\'t have the same nested structure: PyTreeDef((*, *)) and PyTreeDef(*)."',
    'keras/src/models/model_test.py::ModelTest::test_functional_struct_outputs_struct_losses3':
        'AssertionError: "[Ee]xpected.*tuple" does not match "The two structures don\'t have the same nested structure: PyTreeDef((*, *)) and PyTreeDef(*)."',
    'keras/src/models/model_test.py::ModelTest::test_functional_struct_outputs_struct_losses4':
        'AssertionError: "[Ee]xpected.*list" does not match "The two structures don\'t have the same nested structure: PyTreeDef([*, *]) and PyTreeDef(*)."',
    'keras/src/models/model_test.py::ModelTest::test_functional_struct_outputs_struct_losses5':
        'AssertionError: "[Ee]xpected.*list" does not match "The two structures don\'t have the same nested structure: PyTreeDef([*, *]) and PyTreeDef(*)."',
    'keras/src/models/model_test.py::ModelTest::test_functional_struct_outputs_struct_losses6':
        "ValueError: The two structures don't have the same nested structure: PyTreeDef([*, *]) and PyTreeDef(*).",
    'keras/src/models/model_test.py::ModelTest::test_functional_struct_outputs_struct_losses7':
        "ValueError: The two structures don't have the same nested structure: PyTreeDef([*, *]) and PyTreeDef(*).",
    'keras/src/models/model_test.py::ModelTest::test_get_state_tree_with_duplicate_path':
        'AssertionError: "The following variable path is found twice in the model" does not match "Layer "my_model" has a weight and a sub-layer both named "layer1"; give the sub-layers distinct names."',
    'keras/src/models/model_test.py::ModelTest::test_layers_setter':
        'AssertionError: AttributeError not raised',
    'keras/src/models/model_test.py::ModelTest::test_reviving_functional_from_config_custom_model':
        'AssertionError: 1 != 3',
    'keras/src/models/model_test.py::ModelTest::test_set_state_tree':
        'AssertionError: 1e-05 != Array(0.001, dtype=float32)',
    'keras/src/models/sequential_test.py::SequentialTest::test_bad_layer':
        'TypeError: Layer "bad_layer" (BadLayer) failed while computing its output shape for input shapes [(None, 2)]: SequentialTest.test_bad_layer.<locals>.BadLayer.call() missing 1 required positional argument: \'training\'',
    'keras/src/models/sequential_test.py::SequentialTest::test_basic_flow_deferred':
        "AttributeError: 'Sequential' object has no attribute '_functional'",
    'keras/src/models/sequential_test.py::SequentialTest::test_basic_flow_with_functional_model_as_first_layer':
        "AttributeError: 'Sequential' object has no attribute '_functional'",
    'keras/src/models/sequential_test.py::SequentialTest::test_basic_flow_with_input':
        "AttributeError: 'Sequential' object has no attribute '_functional'",
    'keras/src/models/sequential_test.py::SequentialTest::test_basic_flow_with_sequential_model_as_first_layer':
        "AttributeError: 'Sequential' object has no attribute '_functional'",
    'keras/src/models/sequential_test.py::SequentialTest::test_compute_output_shape':
        'NotImplementedError: Layer Sequential does not have a `compute_output_shape` method implemented.',
    'keras/src/models/sequential_test.py::SequentialTest::test_dict_inputs':
        "ValueError: Sequential model 'sequential' is not built and takes a single input tensor; received dict. Start it with kg.Input(shape=...) or call it on one array.",
    'keras/src/models/sequential_test.py::SequentialTest::test_layers_setter':
        'AssertionError: "Use `add\\(\\)` and `pop\\(\\)`" does not match "`Sequential.layers` is read-only; use add() and pop() to change the layers of the model."',
    'keras/src/models/sequential_test.py::SequentialTest::test_legacy_flow_with_input_shape':
        "AttributeError: 'Sequential' object has no attribute '_functional'",
    'keras/src/models/sequential_test.py::SequentialTest::test_list_inputs':
        "ValueError: Sequential model 'sequential' is not built and takes a single input tensor; received list. Start it with kg.Input(shape=...) or call it on one array.",
    'keras/src/models/sequential_test.py::SequentialTest::test_serialization_with_lambda_layer':
        'kgraph.saving.validation.ConfigError: Invalid config at config["config"] (layer \'lambda\'): Lambda.from_config raised ValueError: Lambda\'s function (keras.src.models.sequential_test.SequentialTest.test_serialization_with_lambda_layer.<locals',
    'keras/src/models/sequential_test.py::SequentialTest::test_shape_inference_failure':
        'NotImplementedError',
    'keras/src/models/variable_mapping_test.py::VariableMappingTest::test_basics':
        "AttributeError: 'Functional' object has no attribute '_get_variable_map'",
}
