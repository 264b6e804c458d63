"""``import kgraph as keras``: Keras 3's module layout, aliases and small utilities, checked
against Keras itself where numbers or structures must match."""

import subprocess
import sys

import jax
import jax.numpy as jnp
import keras
import numpy as np
import pytest

import kgraph as kg


def test_kgraph_and_its_keras_modules_import_no_runtime_until_a_model_is_compiled(tmp_path):
    code = ("import sys, numpy as np, kgraph as kg; "
            "from kgraph.losses import MeanSquaredError; from kgraph.metrics import Mean; "
            "from kgraph.callbacks import EarlyStopping; kg.optimizers.Adam(); "
            "x = kg.Input((2,)); model = kg.Model(x, kg.layers.Dense(1)(x)); "
            "model.save_weights('w.weights.h5'); "
            "assert 'runtime' not in sys.modules and 'compiler' not in sys.modules; "
            "model.compile('adam', 'mse'); assert 'runtime' in sys.modules; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path)
    assert out.stdout.strip() == "ok", out.stderr


def test_runtime_modules_are_kgraphs_and_top_level_classes_resolve():
    import runtime
    from runtime.losses import MeanSquaredError  # the modules' former home still imports

    assert kg.losses.MeanSquaredError is runtime.losses.MeanSquaredError is MeanSquaredError
    assert kg.metrics.Mean is runtime.metrics.Mean
    assert kg.callbacks.EarlyStopping is runtime.callbacks.EarlyStopping
    assert kg.callbacks.BackupAndRestore is runtime.BackupAndRestore
    assert kg.Loss is runtime.losses.Loss and kg.Metric is runtime.metrics.Metric
    assert kg.optimizers.schedules is runtime.optimizers.schedules
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        kg.nonexistent  # noqa: B018


@pytest.mark.parametrize("alias, name", [
    ("MaxPool2D", "MaxPooling2D"), ("AvgPool1D", "AveragePooling1D"),
    ("GlobalAvgPool2D", "GlobalAveragePooling2D"), ("GlobalMaxPool1D", "GlobalMaxPooling1D"),
    ("Convolution2D", "Conv2D"), ("Convolution2DTranspose", "Conv2DTranspose"),
    ("SeparableConvolution2D", "SeparableConv2D")])
def test_layer_aliases_are_the_same_classes_as_in_keras(alias, name):
    assert getattr(kg.layers, alias) is getattr(kg.layers, name)
    assert getattr(keras.layers, alias) is getattr(keras.layers, name)


@pytest.mark.parametrize("helper, layer, kwargs", [
    ("add", "Add", {}), ("subtract", "Subtract", {}), ("multiply", "Multiply", {}),
    ("average", "Average", {}), ("maximum", "Maximum", {}), ("minimum", "Minimum", {}),
    ("concatenate", "Concatenate", {"axis": -1}), ("dot", "Dot", {"axes": 1})])
def test_functional_merge_helpers_build_the_layer(helper, layer, kwargs):
    a, b = kg.layers.Input(shape=(3,)), kg.Input(shape=(3,))
    out = getattr(kg.layers, helper)([a, b], name=f"my_{helper}", **kwargs)
    made = out._keras_history.layer
    assert type(made) is getattr(kg.layers, layer) and made.name == f"my_{helper}"
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected = getattr(keras.layers, helper)([x, x + 1], **kwargs)
    model = kg.Model([a, b], out)
    np.testing.assert_allclose(model([x, x + 1]), np.asarray(expected), rtol=1e-6)


def test_config_image_data_format_is_the_default_of_layers_made_afterwards():
    try:
        kg.config.set_image_data_format("channels_first")
        conv = kg.layers.Conv2D(2, 3)
        assert conv.data_format == "channels_first"
        assert conv(jnp.ones((1, 1, 5, 5))).shape == (1, 2, 3, 3)
    finally:
        kg.config.set_image_data_format("channels_last")
    assert kg.layers.Conv2D(2, 3).data_format == "channels_last"
    with pytest.raises(ValueError, match="channels_first"):
        kg.config.set_image_data_format("NHWC")


def test_floatx_sets_the_dtype_of_layers_made_afterwards():
    try:
        kg.config.set_floatx("float16")
        assert kg.backend.floatx() == "float16"
        dense = kg.layers.Dense(2)
        dense(jnp.ones((1, 3), jnp.float16))
        assert dense.kernel.dtype == jnp.float16
    finally:
        kg.config.set_floatx("float32")
    with pytest.raises(ValueError, match="Unknown `floatx`"):
        kg.config.set_floatx("int8")


def test_epsilon_is_settable_and_used():
    try:
        kg.backend.set_epsilon(1e-3)
        assert kg.config.epsilon() == 1e-3
    finally:
        kg.backend.set_epsilon(1e-7)


def test_clear_session_restarts_automatic_names():
    kg.backend.clear_session()
    first = kg.layers.Dense(1).name
    kg.layers.Dense(1)
    kg.backend.clear_session()
    assert kg.layers.Dense(1).name == first == "dense"
    assert kg.backend.get_uid("x") == 1 and kg.backend.get_uid("x") == 2


def test_backend_dtype_helpers_match_keras():
    for dtype in ["float32", "bfloat16", "int8", "uint32", "bool"]:
        assert kg.backend.standardize_dtype(dtype) == keras.backend.standardize_dtype(dtype)
        assert kg.backend.is_float_dtype(dtype) == keras.backend.is_float_dtype(dtype)
        assert kg.backend.is_int_dtype(dtype) == keras.backend.is_int_dtype(dtype)
    assert kg.backend.result_type("int32", "float32") == keras.backend.result_type(
        "int32", "float32")
    assert kg.backend.backend() == "jax" and kg.config.backend() == "jax"


@pytest.mark.parametrize("structure", [
    {"b": [1, 2], "a": None}, (1, (2, [3, {"z": 4, "y": 5}])), [None, (None,)], 7])
def test_tree_matches_keras_tree(structure):
    assert kg.tree.flatten(structure) == keras.tree.flatten(structure)
    assert kg.tree.is_nested(structure) == keras.tree.is_nested(structure)
    plus = lambda x: None if x is None else x + 1  # noqa: E731
    assert kg.tree.map_structure(plus, structure) == keras.tree.map_structure(plus, structure)
    flat = list(range(len(keras.tree.flatten(structure))))
    assert kg.tree.pack_sequence_as(structure, flat) == keras.tree.pack_sequence_as(
        structure, flat)
    assert kg.tree.lists_to_tuples(structure) == keras.tree.lists_to_tuples(structure)
    ours = [(tuple(p), v) for p, v in kg.tree.flatten_with_path(structure)]
    theirs = [(tuple(p), v) for p, v in keras.tree.flatten_with_path(structure)]
    assert ours == theirs


def test_tree_structure_errors():
    with pytest.raises(ValueError, match="same nested structure"):
        kg.tree.assert_same_structure([1, 2], [1, [2]])
    with pytest.raises(ValueError, match="3 leaves"):
        kg.tree.pack_sequence_as([0, 0, 0], [1, 2])
    assert kg.tree.traverse(lambda x: kg.tree.MAP_TO_NONE if x == 2 else None,
                            [1, [2, 3]]) == [1, [None, 3]]
    assert kg.tree.map_structure_up_to([0, 0], lambda a: len(a), [[1, 2], [3]]) == [2, 1]


def test_clone_model_functional_gives_new_layers_and_the_same_architecture():
    a = kg.Input(shape=(3,), name="a")
    shared = kg.layers.Dense(4, name="shared")
    out = kg.layers.Dense(2, name="head")(kg.layers.concatenate([shared(a), shared(a * 2)]))
    model = kg.Model(a, out, name="m")
    clone = kg.models.clone_model(model)
    assert clone.name == "m" and [l.name for l in clone.layers] == [l.name for l in
                                                                   model.layers]
    assert all(c is not o for c, o in zip(clone.layers[1:], model.layers[1:]))
    assert clone.count_params() == model.count_params()
    clone.set_weights(model.get_weights())
    x = np.random.default_rng(0).normal(size=(2, 3)).astype(np.float32)
    np.testing.assert_allclose(clone(x), model(x), rtol=1e-6)
    # the shared layer stays shared in the clone
    assert len(clone.get_layer("shared")._inbound_nodes) == 2


def test_clone_model_options():
    x = kg.Input(shape=(3,))
    model = kg.Model(x, kg.layers.Dense(2, name="d")(kg.layers.Dense(4, name="e")(x)))
    same = kg.models.clone_model(model, clone_function=lambda layer: layer)
    assert same.get_layer("d") is model.get_layer("d")
    renamed = kg.models.clone_model(
        model, clone_function=lambda layer: type(layer).from_config(
            {**layer.get_config(), "name": layer.name + "_copy"}))
    assert [l.name for l in renamed.layers[1:]] == ["e_copy", "d_copy"]
    new_input = kg.Input(shape=(3,), name="new_input")
    rebuilt = kg.models.clone_model(model, input_tensors=new_input)
    assert rebuilt.inputs[0] is new_input
    seen = []
    kg.models.clone_model(model, call_function=lambda layer, *a, **k: (
        seen.append(layer.name), layer(*a, **k))[1])
    assert seen == ["e", "d"]
    with pytest.raises(ValueError, match="input_tensors"):
        kg.models.clone_model(model, input_tensors=[new_input, new_input])


def test_clone_model_sequential_and_recursive():
    inner = kg.Sequential([kg.Input(shape=(3,)), kg.layers.Dense(2)], name="inner")
    outer = kg.Sequential([kg.Input(shape=(3,)), inner, kg.layers.Dense(1)], name="outer")
    clone = kg.models.clone_model(outer)
    assert type(clone) is kg.Sequential and clone.count_params() == outer.count_params()
    assert clone.layers[0] is not inner
    deep = kg.models.clone_model(outer, clone_function=lambda layer: layer, recursive=True)
    assert deep.layers[0] is not inner and deep.layers[0].layers[0] is inner.layers[0]


def test_initializers_take_keras_call_form_and_keras_style_classes():
    a = kg.initializers.GlorotUniform(seed=3)(shape=(4, 5))
    b = kg.initializers.GlorotUniform(seed=3)((4, 5), dtype="float32")
    np.testing.assert_array_equal(a, b)
    assert kg.initializers.glorot_uniform is kg.initializers.GlorotUniform

    class Sevens(kg.initializers.Initializer):
        def __call__(self, shape, dtype=None):
            return jnp.full(shape, 7.0, dtype)

    def fives(shape, dtype=None):
        return jnp.full(shape, 5.0, dtype)

    x = kg.Input(shape=(2,))
    y = kg.layers.Dense(3, kernel_initializer=Sevens(), bias_initializer=fives)(x)
    import compiler

    params, _ = compiler.compile(kg.Model(x, y)).init(jax.random.PRNGKey(0))
    (dense,) = params.values()
    assert np.all(dense["kernel"] == 7.0) and np.all(dense["bias"] == 5.0)


def test_regularizer_and_constraint_aliases_and_new_classes_match_keras():
    assert kg.regularizers.l2(1e-4).get_config() == {"l2": 1e-4}
    w = np.random.default_rng(1).normal(size=(4, 3)).astype(np.float32)
    for mode in ("rows", "columns"):
        ours = kg.regularizers.OrthogonalRegularizer(0.5, mode)(jnp.asarray(w))
        theirs = keras.regularizers.OrthogonalRegularizer(0.5, mode)(jnp.asarray(w))
        np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-5)
    ours = kg.constraints.MinMaxNorm(0.5, 1.5, rate=0.7, axis=0)(jnp.asarray(w))
    theirs = keras.constraints.MinMaxNorm(0.5, 1.5, rate=0.7, axis=0)(w)
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-5)
    config = kg.regularizers.serialize(kg.regularizers.OrthogonalRegularizer(0.2, "columns"))
    assert kg.regularizers.deserialize(config).get_config() == {"factor": 0.2,
                                                                "mode": "columns"}
    assert kg.constraints.deserialize(kg.constraints.serialize(
        kg.constraints.min_max_norm(0.1, 2.0))).max_value == 2.0


def test_activation_aliases_and_threshold_match_keras():
    x = np.linspace(-3, 3, 13).astype(np.float32)
    np.testing.assert_allclose(kg.activations.threshold(x, 0.5, -1.0),
                               np.asarray(keras.activations.threshold(x, 0.5, -1.0)))
    assert kg.activations.swish is kg.activations.silu
    assert kg.activations.hard_swish is kg.activations.hard_silu


def test_loss_serialization_and_functions():
    loss = kg.losses.Huber(delta=2.0)
    assert kg.losses.deserialize(kg.losses.serialize(loss)).get_config() == loss.get_config()
    assert kg.losses.get("mse") is kg.losses.mean_squared_error  # as Keras's: the function
    assert keras.losses.get("mse").__name__ == "mean_squared_error"
    assert type(kg.losses.get("MeanSquaredError")) is kg.losses.MeanSquaredError
    y, p = np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)
    np.testing.assert_allclose(kg.losses.kl_divergence(y, p + 0.5),
                               np.asarray(keras.losses.kl_divergence(y, p + 0.5)), rtol=1e-6)


def test_dtype_policies_and_mixed_precision_modules():
    policy = kg.dtype_policies.get("mixed_bfloat16")
    assert policy.compute_dtype == jnp.bfloat16 and policy.variable_dtype == jnp.float32
    config = keras.dtype_policies.serialize(keras.dtype_policies.DTypePolicy("float16"))
    assert kg.dtype_policies.deserialize(config).name == "float16"
    try:
        kg.mixed_precision.set_global_policy("mixed_float16")
        assert kg.layers.Dense(2).compute_dtype == jnp.float16
    finally:
        kg.mixed_precision.set_global_policy("float32")


def test_device_and_version():
    with kg.device("cpu:0"):
        assert jnp.ones(2).devices() == {jax.devices("cpu")[0]}
    with pytest.raises(ValueError, match="no 'tpu' devices"):
        kg.device("tpu:0")
    assert kg.version() == kg.__version__


def test_unsafe_deserialization_switch_lets_lambda_configs_load():
    config = {"class_name": "Lambda", "config": {"function": {"module": "numpy",
                                                              "name": "abs"}}}
    from kgraph.layers import Lambda

    with pytest.raises(ValueError, match="safe_mode"):
        Lambda.from_config(dict(config["config"]))
    try:
        kg.config.enable_unsafe_deserialization()
        with pytest.raises(ValueError, match="not among custom_objects: kgraph never imports"):
            Lambda.from_config(dict(config["config"]))  # trusted, yet never imported
        layer = Lambda.from_config(dict(config["config"]), custom_objects={"abs": np.abs})
        assert float(layer(jnp.array(-2.0))) == 2.0
    finally:
        kg.config._UNSAFE_DESERIALIZATION = False


def test_custom_object_scope_lets_configs_name_unregistered_classes():
    class Scaled(kg.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    x = kg.Input(shape=(2,))
    config = kg.Model(x, Scaled(3.0)(x)).to_json()
    with pytest.raises(ValueError, match="Could not locate class 'Scaled'"):
        kg.models.model_from_json(config)
    with kg.saving.custom_object_scope({"Scaled": Scaled}):
        model = kg.models.model_from_json(config)
    assert float(model(np.ones((1, 2), np.float32))[0, 0]) == 3.0
    assert kg.saving.get_registered_object("Scaled") is None


def test_variables_answer_kerass_questions():
    dense = kg.layers.Dense(2)
    dense(np.ones((1, 3), np.float32))
    assert dense.variables == dense.weights
    assert dense.trainable_variables == dense.trainable_weights
    assert kg.layers.BatchNormalization().non_trainable_variables == []
    bias = dense.weights[1]
    bias.assign_add(np.ones(2))
    bias.assign_sub(np.full(2, 0.5))
    np.testing.assert_array_equal(np.asarray(bias), [0.5, 0.5])
    assert bias.ndim == 1 and bias.numpy().tolist() == [0.5, 0.5]
    np.testing.assert_array_equal(dense.bias, [0.5, 0.5])


def test_layer_internals_libraries_use_match_keras():
    """``_flatten_layers`` (every KerasHub backbone calls it), ``variable_dtype`` and
    ``quantization_mode``, as Keras's."""
    found = {}
    for K in (keras, kg):
        inner = K.Sequential([K.layers.Dense(2, name="a"), K.layers.Dense(2, name="b")],
                             name="inner")
        x = K.Input(shape=(3,), name="x")
        model = K.Model(x, inner(K.layers.Dense(3, name="first")(x)), name="outer")
        found[K] = ([layer.name for layer in model._flatten_layers()][:6],
                    [layer.name for layer in model._flatten_layers(False, False)],
                    model.layers[1].variable_dtype, model.layers[1].quantization_mode)
    assert found[kg] == found[keras]


@pytest.mark.parametrize("args,kwargs", [
    ((np.array([1, 2]),), {}), ((1.0,), {}), (("zeros",), {"shape": (2,)}),
    ((np.ones((2, 3), "float32"),), {"trainable": False, "name": "w"}),
    (("ones",), {"shape": (2,), "dtype": "int32", "name": "c"}),
])
def test_variables_are_made_as_keras_makes_them(args, kwargs):
    ours, theirs = kg.Variable(*args, **kwargs), keras.Variable(*args, **kwargs)
    assert (ours.shape, ours.dtype.name, ours.trainable) == (
        tuple(theirs.shape), theirs.dtype, theirs.trainable)
    # an unnamed one: Keras numbers them across the process, kgraph does not
    assert ours.name == (theirs.name if "name" in kwargs else "variable")
    np.testing.assert_array_equal(np.asarray(ours.value), np.asarray(theirs.value))


def test_a_variable_from_an_initializer_needs_a_shape():
    with pytest.raises(ValueError, match="needs a shape"):
        kg.Variable("zeros")


def test_model_input_and_output_shapes_as_keras():
    found = {}
    for K in (keras, kg):
        x, t = K.Input(shape=(3,)), K.Input(shape=(2, 5))
        one = K.Model(x, K.layers.Dense(2)(x))
        two = K.Model([x, t], [K.layers.Dense(4)(x), K.layers.Flatten()(t)])
        found[K] = (one.input_shape, one.output_shape, two.input_shape, two.output_shape)
    assert found[kg] == found[keras]
