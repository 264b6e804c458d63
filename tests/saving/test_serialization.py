"""Model serialization in Keras 3's formats: get_config / from_config, to_json /
model_from_json, the layer registry and safe mode."""


import json
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
from tests.support.helpers import tree_equal
import kgraph as kg
from kgraph.base import catalog
from kgraph import layers, saving


def _json(config):
    return json.loads(json.dumps(config))


def _data(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _round_trip(model, inputs, **kwargs):
    """Rebuild ``model`` from its JSON; check config equality and outputs after copying
    the weights. Returns the clone."""
    text = model.to_json()
    clone = kg.model_from_json(text, **kwargs)
    assert type(clone) is type(model) and clone is not model
    assert _json(clone.get_config()) == _json(model.get_config())
    assert json.loads(clone.to_json()) == json.loads(text)
    assert {id(v) for v in clone.weights}.isdisjoint({id(v) for v in model.weights})
    _randomize(model)
    clone.set_weights(model.get_weights())
    expected, got = _run(model, inputs), _run(clone, inputs)
    for a, b in zip(_leaves(expected), _leaves(got)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-6)
    return clone


def _randomize(model, seed=0):
    """Give every weight a random value (drawn by NumPy: no initializer compiles)."""
    rng = np.random.default_rng(seed)
    model.set_weights([rng.uniform(0.1, 1.0, v.shape).astype(v.dtype) for v in model.weights])


def _run(model, inputs):
    """The model's outputs through its compiled program (one XLA compile per model)."""
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    return jax.jit(program.apply)(params, state, inputs)[0]


def _leaves(tree):
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in _leaves(tree[key])]
    if isinstance(tree, (list, tuple)):
        return [leaf for value in tree for leaf in _leaves(value)]
    return [tree]


# ------------------------------------------------------------------ the format
def test_chain_config_is_keras_functional_format():
    x = kg.Input(shape=(3,), name="x")
    h = layers.Dense(4, activation="relu", name="hidden")(x)
    model = kg.Model(x, layers.Dense(2, name="out")(h), name="chain")
    config = model.get_config()
    assert set(config) == {"name", "trainable", "layers", "input_layers", "output_layers"}
    assert config["name"] == "chain" and config["trainable"] is True
    assert [entry["name"] for entry in config["layers"]] == ["x", "hidden", "out"]
    x_entry, hidden = config["layers"][0], config["layers"][1]
    assert x_entry == {"module": "kgraph.layers", "class_name": "InputLayer",
                       "config": {"batch_shape": [None, 3], "dtype": "float32",
                                  "sparse": False, "ragged": False, "name": "x",
                                  "optional": False},
                       "registered_name": None, "name": "x", "inbound_nodes": []}
    assert hidden["class_name"] == "Dense" and hidden["config"]["units"] == 4
    assert hidden["config"]["activation"] == "relu"
    assert hidden["build_config"] == {"input_shape": [None, 3]}
    assert hidden["inbound_nodes"] == [{"args": [{"class_name": "__keras_tensor__", "config": {
        "shape": [None, 3], "dtype": "float32", "keras_history": ["x", 0, 0]}}], "kwargs": {}}]
    assert config["input_layers"] == ["x", 0, 0] and config["output_layers"] == ["out", 0, 0]
    assert _json(config) == config  # JSON-native values only


def test_chain_round_trip():
    x = kg.Input(shape=(3,), name="x")
    h = layers.Dense(4, activation="relu")(x)
    h = layers.BatchNormalization()(h)
    h = layers.Dropout(0.5)(h)
    model = kg.Model(x, layers.Dense(2)(h))
    clone = _round_trip(model, _data(5, 3))
    assert [layer.name for layer in clone.layers] == [layer.name for layer in model.layers]
    params, state = compiler.variables(clone)  # BatchNorm statistics are state, as before
    assert set(state["batch_normalization"]) == {"moving_mean", "moving_variance"}


def test_shared_layers_at_different_depths_round_trip():
    # A(B(A(x))) and a layer called on two inputs: node indices > 0 in the config.
    x1, x2 = kg.Input(shape=(4,), name="x1"), kg.Input(shape=(4,), name="x2")
    a, b = layers.Dense(4, name="a"), layers.Dense(4, name="b")
    y = a(b(a(x1)))
    z = a(x2)
    model = kg.Model([x1, x2], [y, z], name="shared")
    config = model.get_config()
    (a_entry,) = [e for e in config["layers"] if e["name"] == "a"]
    histories = [node["args"][0]["config"]["keras_history"] for node in a_entry["inbound_nodes"]]
    assert histories == [["x1", 0, 0], ["b", 0, 0], ["x2", 0, 0]]
    assert config["output_layers"] == [["a", 1, 0], ["a", 2, 0]]
    clone = _round_trip(model, [_data(2, 4), _data(2, 4, seed=1)])
    assert len(clone.get_layer("a")._inbound_nodes) == 3


def test_node_indices_count_only_this_models_calls():
    x = kg.Input(shape=(4,), name="x")
    shared = layers.Dense(4, name="shared")
    shared(kg.Input(shape=(4,)))  # a call that belongs to no model below
    model = kg.Model(x, shared(x))
    assert model.get_config()["output_layers"] == ["shared", 0, 0]
    _round_trip(model, _data(2, 4))


def test_nested_model_round_trip_and_keras_node_numbering():
    i = kg.Input(shape=(3,), name="inner_in")
    inner = kg.Model(i, layers.Dense(2, name="inner_dense")(i), name="inner")
    x = kg.Input(shape=(3,), name="x")
    first, second = inner(x), inner(layers.Dense(3, name="pre")(x))
    model = kg.Model(x, [first, layers.Dense(1, name="post")(second)], name="outer")
    config = model.get_config()
    (inner_entry,) = [e for e in config["layers"] if e["name"] == "inner"]
    assert inner_entry["class_name"] == "Functional"
    assert [e["name"] for e in inner_entry["config"]["layers"]] == ["inner_in", "inner_dense"]
    assert len(inner_entry["inbound_nodes"]) == 2
    # Keras counts a nested Functional's nodes from 1 in output_layers, from 0 in node args.
    assert config["output_layers"][0] == ["inner", 1, 0]
    (post,) = [e for e in config["layers"] if e["name"] == "post"]
    assert post["inbound_nodes"][0]["args"][0]["config"]["keras_history"] == ["inner", 1, 0]
    clone = _round_trip(model, _data(2, 3))
    assert isinstance(clone.get_layer("inner"), kg.Functional)
    params, _ = compiler.variables(clone)
    assert set(params["inner"]) == {"inner_dense"}


def test_multi_input_multi_output_dicts_round_trip():
    a, b = kg.Input(shape=(4,), name="a"), kg.Input(shape=(2,), name="b")
    h = layers.Concatenate(name="cat")([a, b])
    h = layers.Dense(5, activation="tanh", name="trunk")(h)
    outputs = {"score": layers.Dense(1, name="score")(h),
               "parts": [layers.Dense(2, name="p1")(h), layers.Dense(3, name="p2")(h)]}
    model = kg.Model({"a": a, "b": b}, outputs, name="multi")
    config = model.get_config()
    assert config["input_layers"] == {"a": ["a", 0, 0], "b": ["b", 0, 0]}
    assert config["output_layers"] == {"score": ["score", 0, 0],
                                       "parts": [["p1", 0, 0], ["p2", 0, 0]]}
    (cat,) = [e for e in config["layers"] if e["name"] == "cat"]
    assert [t["config"]["keras_history"] for t in cat["inbound_nodes"][0]["args"][0]] == [
        ["a", 0, 0], ["b", 0, 0]]
    clone = _round_trip(model, {"a": _data(3, 4), "b": _data(3, 2)})
    result = _run(clone, {"a": _data(3, 4), "b": _data(3, 2)})
    assert set(result) == {"score", "parts"} and isinstance(result["parts"], list)


def test_graph_with_operations_round_trip():
    x = kg.Input(shape=(4,), name="x")
    h = layers.Dense(4, name="d")(x)
    y = (h * 2 + 1)[:, 1:3] - np.array([0.5, -0.5], np.float32)
    model = kg.Model(x, y, name="ops_graph")
    config = model.get_config()
    ops_entries = [e for e in config["layers"] if e["class_name"] == "Operation"]
    assert [e["config"]["op"] for e in ops_entries] == ["multiply", "add", "get_item",
                                                        "subtract"]
    (multiply,) = [e for e in ops_entries if e["config"]["op"] == "multiply"]
    assert multiply["inbound_nodes"][0]["args"][1] == 2  # constants stay in the node args
    (sub,) = [e for e in ops_entries if e["config"]["op"] == "subtract"]
    assert sub["inbound_nodes"][0]["args"][1] == {
        "class_name": "__numpy__", "config": {"value": [0.5, -0.5], "dtype": "float32"}}
    x_np = _data(3, 4)
    clone = _round_trip(model, x_np)
    kernel, bias = (np.asarray(w) for w in model.get_layer("d").get_weights())
    np.testing.assert_allclose(clone(x_np), ((x_np @ kernel + bias) * 2 + 1)[:, 1:3]
                               - np.array([0.5, -0.5]), rtol=1e-5, atol=1e-6)


def test_op_parameters_with_tuples_slices_and_ellipsis_round_trip():
    x = kg.Input(shape=(4, 3), name="x")
    total = kg.ops.sum(x, axis=(1,))
    flat = kg.ops.reshape(x, (-1, 12))
    first = x[..., 0]
    model = kg.Model(x, [total, flat, kg.ops.concatenate([total, first], axis=-1)])
    config = model.get_config()
    (get_item,) = [e for e in config["layers"] if e["config"].get("op") == "get_item"]
    key = get_item["config"]["kwargs"]["key"]
    assert key == {"class_name": "__tuple__", "config": {"value": [
        {"class_name": "__ellipsis__", "config": {}}, 0]}}
    (concat,) = [e for e in config["layers"] if e["config"].get("op") == "concatenate"]
    assert len(concat["inbound_nodes"][0]["args"][0]) == 2  # a list of two tensors
    _round_trip(model, _data(2, 4, 3))


def test_convolutional_network_round_trip():
    x = kg.Input(shape=(8, 8, 3), name="image")
    h = layers.Conv2D(4, 3, padding="same", activation="relu")(x)
    h = layers.BatchNormalization()(h)
    h = layers.MaxPooling2D()(h)
    h = layers.GlobalAveragePooling2D()(h)
    model = kg.Model(x, layers.Dense(2, activation="softmax")(layers.Dropout(0.2)(h)))
    _round_trip(model, _data(2, 8, 8, 3))


def test_sequential_round_trip_built_and_unbuilt():
    model = kg.Sequential([kg.Input(shape=(4,)), layers.Dense(8, activation="relu"),
                           layers.Dropout(0.1), layers.Dense(2)], name="seq")
    config = model.get_config()
    assert config["name"] == "seq" and config["build_input_shape"] == [None, 4]
    assert [e["class_name"] for e in config["layers"]] == ["InputLayer", "Dense", "Dropout",
                                                           "Dense"]
    assert all("inbound_nodes" not in e for e in config["layers"])
    clone = _round_trip(model, _data(3, 4))
    assert isinstance(clone, kg.Sequential) and clone.built
    lazy = kg.Sequential([layers.Dense(3, name="only")], name="lazy")
    lazy_config = lazy.get_config()
    assert "build_input_shape" not in lazy_config
    lazy_clone = kg.model_from_json(lazy.to_json())
    assert not lazy_clone.built and _json(lazy_clone.get_config()) == _json(lazy_config)
    assert lazy_clone(_data(2, 5)).shape == (2, 3)


def test_sequential_nested_in_functional_round_trip():
    block = kg.Sequential([layers.Dense(4, name="b1"), layers.Dense(4, name="b2")],
                          name="block")
    x = kg.Input(shape=(3,), name="x")
    model = kg.Model(x, layers.Add(name="sum")([block(x), block(x)]))
    config = model.get_config()
    assert config["output_layers"] == ["sum", 0, 0]
    (block_entry,) = [e for e in config["layers"] if e["name"] == "block"]
    assert block_entry["class_name"] == "Sequential" and len(block_entry["inbound_nodes"]) == 2
    _round_trip(model, _data(2, 3))


def test_frozen_layers_and_dtype_policies_survive():
    x = kg.Input(shape=(3,), name="x")
    frozen = layers.Dense(4, name="frozen", trainable=False)
    model = kg.Model(x, layers.Dense(2, name="half", dtype="mixed_bfloat16")(frozen(x)))
    clone = kg.model_from_json(model.to_json())
    assert not clone.get_layer("frozen").trainable
    assert clone.get_layer("half").compute_dtype == jnp.bfloat16
    params, state = compiler.variables(clone)
    assert set(params) == {"half"} and set(state) == {"frozen"}


# ------------------------------------------------- layers shared across nesting levels
def _shared_with_nested():
    """A Dense used inside a nested model and directly in the outer one."""
    shared = layers.Dense(3, name="shared")
    i = kg.Input(shape=(3,), name="inner_in")
    inner = kg.Model(i, layers.Dense(3, name="inner_d")(shared(i)), name="inner")
    x = kg.Input(shape=(3,), name="x")
    h = layers.Dense(3, name="pre")(x)
    y = layers.Add(name="add")([inner(h), shared(h)])
    return kg.Model(x, layers.Dense(2, name="post")(y), name="outer"), _data(2, 3)


def _shared_by_sibling_models():
    """One Dense in two nested models side by side (and nowhere else)."""
    d = layers.Dense(2, name="d")
    i1, i2 = kg.Input(shape=(2,), name="i1"), kg.Input(shape=(2,), name="i2")
    m1 = kg.Model(i1, d(i1), name="m1")
    m2 = kg.Model(i2, layers.Dense(2, name="m2_d")(d(i2)), name="m2")
    x1, x2 = kg.Input(shape=(2,), name="x1"), kg.Input(shape=(2,), name="x2")
    model = kg.Model([x1, x2], layers.Concatenate(name="cat")([m1(x1), m2(x2)]), name="pair")
    return model, [_data(2, 2), _data(2, 2, seed=1)]


def _shared_input_layer():
    """The nested model is built on the outer model's own Input."""
    x = kg.Input(shape=(3,), name="x")
    e = layers.Dense(3, name="e")
    inner = kg.Model(x, e(x), name="inner")
    return kg.Model(x, [inner(x), e(inner(x))], name="outer"), _data(2, 3)


def _shared_nested_model_three_levels():
    """A nested model used directly and inside another nested model, plus a Dense shared
    by the innermost model and the outer graph (called twice there)."""
    deep = layers.Dense(3, name="deep")
    i = kg.Input(shape=(3,), name="i")
    block = kg.Model(i, deep(i), name="block")
    j = kg.Input(shape=(3,), name="j")
    wrap = kg.Model(j, layers.Dense(3, name="w")(block(j)), name="wrap")
    x = kg.Input(shape=(3,), name="x")
    outputs = [layers.Add(name="add")([wrap(x), block(x)]), deep(deep(x))]
    return kg.Model(x, outputs, name="outer"), _data(2, 3)


def _shared_with_nested_sequential():
    d = layers.Dense(3, name="sd")
    seq = kg.Sequential([kg.Input(shape=(3,)), d, layers.Dense(3, name="s2")], name="seq")
    x = kg.Input(shape=(3,), name="x")
    return kg.Model(x, layers.Add(name="add")([seq(x), d(x)]), name="outer"), _data(2, 3)


def _all_layers(model):
    """``{id: layer}`` of every layer reachable through nested models."""
    found, stack = {}, [model]
    while stack:
        for layer in stack.pop().layers:
            if id(layer) not in found:
                found[id(layer)] = layer
                stack.extend([layer] if hasattr(layer, "layers") else [])
    return found


@pytest.mark.parametrize("build", [_shared_with_nested, _shared_by_sibling_models,
                                   _shared_input_layer, _shared_nested_model_three_levels,
                                   _shared_with_nested_sequential])
def test_layers_shared_across_nesting_levels_are_rebuilt_shared(build, key):
    model, inputs = build()
    program = compiler.compile(model)
    from_config = kg.Functional.from_config(model.get_config())
    from_json = _round_trip(model, inputs)  # same configs, same outputs with copied weights
    for clone in (from_config, from_json):
        originals, copies = _all_layers(model), _all_layers(clone)
        assert sorted(l.name for l in copies.values()) == sorted(
            l.name for l in originals.values())  # each layer once: shared, not duplicated
        assert len(clone.weights) == len(model.weights)
        assert tree_equal(compiler.compile(clone).init(key), program.init(key))
    from_config.set_weights(model.get_weights())
    expected, _ = program.apply(*compiler.variables(model), inputs)
    got, _ = compiler.compile(from_config).apply(*compiler.variables(from_config), inputs)
    assert tree_equal(got, expected)


def test_shared_layers_carry_keras_shared_object_ids():
    model, _ = _shared_with_nested()
    config = model.get_config()
    entries = {e["name"]: e for e in config["layers"]}
    inner_entries = {e["name"]: e for e in entries["inner"]["config"]["layers"]}
    assert entries["shared"]["shared_object_id"] == 1
    assert inner_entries["shared"]["shared_object_id"] == 1
    marked = [name for name, e in {**entries, **inner_entries}.items()
              if "shared_object_id" in e]
    assert marked == ["shared"]  # nothing else, and not the model itself
    assert "shared_object_id" not in json.loads(model.to_json())
    assert model.get_config() == config  # ids are numbered, not memory addresses
    clone = kg.Functional.from_config(config)
    assert clone.get_layer("shared") is clone.get_layer("inner").get_layer("shared")
    assert len(clone.get_layer("shared")._inbound_nodes) == 2  # inner call, outer call
    # without the ids (a config written by other tools) the layers are rebuilt separately
    del entries["shared"]["shared_object_id"], inner_entries["shared"]["shared_object_id"]
    apart = kg.Functional.from_config(config)
    assert apart.get_layer("shared") is not apart.get_layer("inner").get_layer("shared")


# -------------------------------------------------------- deep graphs, bad configs
def test_thousand_layer_chain_rebuilds_iteratively_in_any_layer_order():
    x = kg.Input(shape=(2,), name="x")
    h = x
    for _ in range(1000):
        h = layers.Dense(2)(h)
    model = kg.Model(x, h)
    config = model.get_config()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # a recursion per layer would fail
    try:
        start = time.perf_counter()
        clone = kg.Functional.from_config(config)
        elapsed = time.perf_counter() - start
        shuffled = dict(config, layers=config["layers"][::-1])  # worst order: outputs first
        clone_reversed = kg.Functional.from_config(shuffled)
    finally:
        sys.setrecursionlimit(limit)
    assert elapsed < 10
    assert len(clone.layers) == 1001 and len(clone_reversed.layers) == 1001
    assert clone.get_config() == config
    assert [layer.name for layer in clone_reversed.layers] == [l.name for l in model.layers]


def test_invalid_configs_raise_clear_errors():
    x = kg.Input(shape=(2,), name="x")
    model = kg.Model(x, layers.Dense(2, name="d")(x))
    config = model.get_config()
    cyclic = json.loads(json.dumps(config))
    cyclic["layers"][1]["inbound_nodes"][0]["args"][0]["config"]["keras_history"] = ["d", 0, 0]
    with pytest.raises(ValueError, match="cycle.*d\\[0\\]"):
        kg.Functional.from_config(cyclic)
    unknown = json.loads(json.dumps(config))
    unknown["layers"][1]["inbound_nodes"][0]["args"][0]["config"]["keras_history"] = [
        "ghost", 0, 0]
    with pytest.raises(ValueError, match="unknown layer 'ghost'"):
        kg.Functional.from_config(unknown)
    with pytest.raises(ValueError, match="needs the key 'layers'"):
        kg.Functional.from_config({"name": "m"})


# ------------------------------------------------------- registry and safe mode
class Scale(kg.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, inputs):
        return inputs * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def _scale_model():
    x = kg.Input(shape=(2,), name="x")
    return kg.Model(x, Scale(3.0, name="scale")(x))


def test_custom_class_needs_registration_or_custom_objects():
    model = _scale_model()
    (entry,) = [e for e in model.get_config()["layers"] if e["name"] == "scale"]
    assert entry["module"] == __name__ and entry["registered_name"] == "Scale"
    text = model.to_json()
    with pytest.raises(ValueError, match="Could not locate class 'Scale'.*register_layer.*"
                                         "custom_objects"):
        kg.model_from_json(text)
    clone = kg.model_from_json(text, custom_objects={"Scale": Scale})
    assert isinstance(clone.get_layer("scale"), Scale)
    np.testing.assert_allclose(clone(np.ones((1, 2), np.float32)), 3.0)


def test_registered_class_round_trips(monkeypatch):
    monkeypatch.setattr(catalog, "_GLOBAL_CUSTOM_OBJECTS", {})
    monkeypatch.setattr(catalog, "_GLOBAL_CUSTOM_NAMES", {})

    @kg.register_layer(package="my_pkg")
    class Shift(kg.Layer):
        def __init__(self, amount=1.0, **kwargs):
            super().__init__(**kwargs)
            self.amount = amount

        def call(self, inputs):
            return inputs + self.amount

        def get_config(self):
            return {**super().get_config(), "amount": self.amount}

    assert saving.get_registered_name(Shift) == "my_pkg>Shift"
    assert saving.get_registered_object("my_pkg>Shift") is Shift
    x = kg.Input(shape=(2,), name="x")
    model = kg.Model(x, Shift(5.0, name="shift")(x))
    (entry,) = [e for e in model.get_config()["layers"] if e["name"] == "shift"]
    assert entry["registered_name"] == "my_pkg>Shift"
    clone = _round_trip(model, np.zeros((1, 2), np.float32))
    np.testing.assert_allclose(clone(np.zeros((1, 2), np.float32)), 5.0)


def test_deserialization_never_imports_modules_named_in_a_config():
    config = {"module": "kgraph_test_never_imported_module", "class_name": "Evil",
              "config": {}, "registered_name": "Evil"}
    with pytest.raises(ValueError, match="Could not locate class 'Evil'.*never imports"):
        saving.deserialize_layer(config)
    assert "kgraph_test_never_imported_module" not in sys.modules
    # a kgraph class name with a foreign module is not taken for the built-in class
    foreign = {"module": "somewhere.else", "class_name": "Dense", "config": {"units": 2},
               "registered_name": "Dense"}
    with pytest.raises(ValueError, match="Could not locate class 'Dense'"):
        saving.deserialize_layer(foreign)


def square_plus_one(x):
    return x * x + 1.0


def test_lambda_is_refused_in_safe_mode_and_allowed_when_trusted():
    x = kg.Input(shape=(2,), name="x")
    model = kg.Model(x, layers.Lambda(square_plus_one, name="fn")(x))
    text = model.to_json()
    with pytest.raises(ValueError, match='Refusing to deserialize layer "fn" of class Lambda: '
                                         "deserializing it carries a potential risk of "
                                         "arbitrary code execution"
                                         ".*safe_mode=False"):
        kg.model_from_json(text)
    clone = kg.model_from_json(text, custom_objects={"square_plus_one": square_plus_one},
                               safe_mode=False)
    np.testing.assert_allclose(clone(np.full((1, 2), 2.0, np.float32)), 5.0)


def test_classes_flagged_unsafe_are_refused_in_safe_mode():
    class RunsCode(Scale):
        unsafe_deserialization = True

    x = kg.Input(shape=(2,), name="x")
    model = kg.Model(x, RunsCode(name="runner")(x))
    text = model.to_json()
    with pytest.raises(ValueError, match='layer "runner" of class RunsCode.*arbitrary.*'
                                         "safe_mode=False"):
        kg.model_from_json(text, custom_objects={"RunsCode": RunsCode})
    clone = kg.model_from_json(text, custom_objects={"RunsCode": RunsCode}, safe_mode=False)
    assert isinstance(clone.get_layer("runner"), RunsCode)
    code = {"class_name": "__lambda__", "config": {"value": "bytecode"}}
    with pytest.raises(ValueError, match="Python lambda.*arbitrary.*safe_mode=False"):
        saving._decode_value({"args": [code], "kwargs": {}})


def test_serialize_and_deserialize_single_layers():
    dense = layers.Dense(3, name="solo")
    dense(kg.Input(shape=(5,)))
    config = saving.serialize_layer(dense)
    assert set(config) == {"module", "class_name", "config", "registered_name", "build_config"}
    again = saving.deserialize_layer(_json(config))
    assert again.built and again.kernel.shape == (5, 3)  # built from build_config
    again.set_weights(dense.get_weights())
    x = _data(2, 5)
    np.testing.assert_allclose(again(x), dense(x), rtol=1e-6)
    assert saving.deserialize_layer("Flatten").__class__ is layers.Flatten
    with pytest.raises(TypeError, match="expects a kgraph Layer"):
        saving.serialize_layer("Dense")


def test_input_layer_reads_keras_configs():
    keras_style = {"batch_shape": [None, 7], "dtype": {"module": "keras", "class_name":
                   "DTypePolicy", "config": {"name": "float32"}, "registered_name": None},
                   "sparse": False, "ragged": False, "name": "img", "optional": False}
    layer = kg.InputLayer.from_config(keras_style)
    assert layer.batch_shape == (None, 7) and layer.name == "img"
    with pytest.raises(ValueError, match="sparse=True"):
        kg.InputLayer.from_config(dict(keras_style, sparse=True))
    assert kg.Input(batch_shape=(4, 2)).shape == (4, 2)


def test_config_structure_matches_keras():
    keras = pytest.importorskip("keras")
    keras.backend.clear_session()  # Keras's automatic names ("multiply") restart, as ours

    def build(lib, L):
        a, b = lib.Input(shape=(4,), name="a"), lib.Input(shape=(4,), name="b")
        shared = L.Dense(3, name="shared")
        i = lib.Input(shape=(3,), name="inner_in")
        inner = lib.Model(i, L.Dense(2, name="inner_d")(i), name="inner")
        ha, hb = shared(a), shared(b)
        hc = shared(L.Dense(4, name="pre")(ha))
        o1, o2 = inner(ha), inner(hc)
        cat = L.Concatenate(name="cat")([o1, o2, hb])
        y = L.Add(name="addl")([cat * 2, cat])
        return lib.Model({"a": a, "b": b}, {"y": y, "o2": o2, "o1": o1}, name="m")

    def structure(config):
        def strip(value):
            if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
                c = value["config"]
                return ("tensor", tuple(c["keras_history"]), tuple(c["shape"]), c["dtype"])
            if isinstance(value, list):
                return [strip(v) for v in value]
            if isinstance(value, dict):  # Keras records mask=None for nested models
                return {k: strip(v) for k, v in value.items() if k != "mask"}
            return value

        return ({e["name"]: (strip(e["inbound_nodes"]), structure(e["config"])
                             if e["class_name"] == "Functional" else None)
                 for e in config["layers"]},
                config["input_layers"], config["output_layers"])

    ours = structure(_json(build(kg, layers).get_config()))
    theirs = structure(_json(build(keras, keras.layers).get_config()))
    assert ours == theirs


def test_a_sequential_rebuilt_from_its_config_keeps_a_layer_shared_with_a_nested_one():
    shared = layers.Dense(3, name="shared")
    inner = kg.Sequential([kg.Input(shape=(3,)), shared], name="inner")
    outer = kg.Sequential([kg.Input(shape=(3,)), inner, shared, layers.Dense(2)], name="outer")
    clone = kg.Sequential.from_config(outer.get_config())
    assert len(clone.weights) == len(outer.weights) == 4
    assert clone.layers[0].layers[0] is clone.layers[1]
    clone.set_weights(outer.get_weights())
    x = jnp.ones((2, 3))
    np.testing.assert_allclose(clone(x), outer(x), rtol=1e-6)
