"""Keras's cases of ``keras/src/saving/`` that fail on kgraph for an open defect."""

OPEN: dict[str, str] = {
    'keras/src/saving/saving_api_test.py::LoadModelTests::test_basic_load_float64':
        "ValueError: params['dense/kernel'] of model 'sequential': expected shape (3, 5) and dtype float64, received shape (3, 5) and dtype float32.",
    'keras/src/saving/saving_api_test.py::SaveModelTests::test_objects_to_skip_with_functional_subclass_attribute_layer':
        'AssertionError: <Dense name=decoder, built=True> not found in [<Backbone name=backbone, built=True>, <InputLayer name=input_layer, built=True>, <Dense name=encoder, built=True>]',
    'keras/src/saving/saving_lib_test.py::SavingBattleTest::test_legacy_load_skips_missing_nested_containers':
        'AssertionError: False is not true : Backward-compat fixture missing at /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/keras/src/saving/test_data/pre_pr22362_nested_container.keras',
    'keras/src/saving/saving_lib_test.py::SavingBattleTest::test_redefinition_of_trackable':
        "kgraph.saving.errors.LoadError: /tmp/tmp9ct42m6i/normal_model.weights.h5: unexpected dataset 'dense/vars/0'; the model has no such weight (was the file saved from another model?).",
    'keras/src/saving/saving_lib_test.py::SavingNpzIOStoreTest::test_npz_io_store_loads_normal_array':
        "AttributeError: kgraph has no 'NpzIOStore' under Keras's internal path 'keras.src.saving.saving_lib' (looked in kgraph.saving.keras_file, kgraph.saving.archive, kgraph.src.saving.saving_lib, kgraph.src.saving, kgraph.saving).",
    'keras/src/saving/saving_lib_test.py::SavingNpzIOStoreTest::test_npz_io_store_rejects_shape_bomb':
        "AttributeError: kgraph has no 'NpzIOStore' under Keras's internal path 'keras.src.saving.saving_lib' (looked in kgraph.saving.keras_file, kgraph.saving.archive, kgraph.src.saving.saving_lib, kgraph.src.saving, kgraph.saving).",
    'keras/src/saving/saving_lib_test.py::SavingTest::test_weights_sharding_efficientnet_b0_10':
        'ValueError: Layer "normalization" (Normalization) has no statistics yet: call `adapt(data)` on it before using it (or pass `mean` and `variance` to the constructor, or set its weights).',
    'keras/src/saving/saving_lib_test.py::SavingTest::test_weights_sharding_efficientnet_b0_512':
        'ValueError: Layer "normalization" (Normalization) has no statistics yet: call `adapt(data)` on it before using it (or pass `mean` and `variance` to the constructor, or set its weights).',
    'keras/src/saving/serialization_lib_test.py::SerializationLibTest::test_functional_subclass':
        'ValueError: Input 0 of layer "plain_functional_subclass" is incompatible with the layer: expected shape=(3, 2), found shape=(2, 2)',
}
