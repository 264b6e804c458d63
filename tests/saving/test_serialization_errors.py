"""Malformed and hostile configs: a ValueError naming the config path (or layer), what was
expected and what was received; never an IndexError, KeyError, TypeError or RecursionError
from inside the rebuild, and nothing built before the config is checked."""

import copy
import json
import re
import sys

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import kgraph as kg
from kgraph import layers, saving
from kgraph.saving import validation
from kgraph.saving.validation import MAX_CONFIG_DEPTH, ConfigError


def _chain_config():
    """x -> Dense d -> Dense e, as a Functional config: layers [x, d, e]."""
    x = kg.Input(shape=(2,), name="x")
    model = kg.Model(x, layers.Dense(2, name="e")(layers.Dense(2, name="d")(x)), name="m")
    return model.get_config()


def _set(path, value):
    """A mutation setting ``config<path>`` (a tuple of keys) to ``value``."""
    def mutate(config):
        *parents, last = path
        for key in parents:
            config = config[key]
        config[last] = value
    return mutate


def _append(path, value):
    def mutate(config):
        for key in path:
            config = config[key]
        config.append(value)
    return mutate


def _delete(path):
    def mutate(config):
        *parents, last = path
        for key in parents:
            config = config[key]
        del config[last]
    return mutate


def _where(*keys) -> str:
    """The message's spelling of a config path, as a regex."""
    return re.escape("config" + "".join(f'["{k}"]' if isinstance(k, str) else f"[{k}]"
                                        for k in keys))


D_ARG = ("layers", 1, "inbound_nodes", 0, "args", 0)  # d's call: its KerasTensor argument
HISTORY = D_ARG + ("config", "keras_history")
X_CONFIG = ("layers", 0, "config")
NUMPY = {"class_name": "__numpy__", "config": {"value": [1.0], "dtype": "float32"}}

# (id, mutation, regexes the message must contain)
CASES = [
    ("node index out of range", _set(HISTORY, ["x", 1, 0]),
     [_where(*HISTORY), "layer 'd'", "call index below 1", "received 1"]),
    ("tensor index out of range", _set(HISTORY, ["x", 0, 3]),
     [_where(*HISTORY), "tensor index below 1", "layer 'x'", "received 3"]),
    ("negative node index", _set(HISTORY, ["x", -1, 0]),
     [_where(*HISTORY), "non-negative integer indices", r"\['x', -1, 0\]"]),
    ("bool index", _set(HISTORY, ["x", True, 0]), [_where(*HISTORY), "True"]),
    ("keras_history a string", _set(HISTORY, "x"),
     [_where(*HISTORY), r"\[layer_name, node_index, tensor_index\]", "str 'x'"]),
    ("keras_history too short", _set(HISTORY, ["x", 0]), [_where(*HISTORY), r"\['x', 0\]"]),
    ("keras_history missing", _delete(HISTORY), [_where(*HISTORY), "NoneType"]),
    ("tensor config not a dict", _set(D_ARG + ("config",), 7), [_where(*HISTORY), "None"]),
    ("unknown layer", _set(HISTORY, ["ghost", 0, 0]),
     [_where(*HISTORY), "unknown layer 'ghost'"]),
    ("ref to a layer never called", _set(HISTORY, ["e", 0, 0]), ["cycle", r"d\[0\]"]),
    ("negative tensor shape", _set(D_ARG + ("config", "shape"), [None, -1]),
     [_where(*D_ARG, "config", "shape"), "non-negative integers", r"\[None, -1\]"]),
    ("output node out of range", _set(("output_layers",), ["e", 5, 0]),
     [_where("output_layers"), "call index of layer 'e' from 0 to 0", "received 5"]),
    ("output tensor out of range", _set(("output_layers",), ["e", 0, 2]),
     [_where("output_layers"), "tensor index below 1", "received 2"]),
    ("output negative", _set(("output_layers",), [["e", -1, 0]]),
     [_where("output_layers", 0), "non-negative"]),
    ("output unknown layer", _set(("input_layers",), ["nope", 0, 0]),
     [_where("input_layers"), "unknown layer 'nope'"]),
    ("output not a ref", _set(("output_layers",), 42),
     [_where("output_layers"), r"\[layer_name, node_index, tensor_index\] triple", "int 42"]),
    ("no outputs", _set(("output_layers",), {}),
     [re.escape("Invalid config at config:"), "at least one input and one output"]),
    ("layers missing", _delete(("layers",)), ["needs the key 'layers'"]),
    ("layers not a list", _set(("layers",), {"x": 1}),
     [_where("layers"), "a list of layer configs", "dict"]),
    ("layer entry not a dict", _set(("layers", 2), "Dense"),
     [_where("layers", 2), "a layer config", "str 'Dense'"]),
    ("class_name missing", _delete(("layers", 1, "class_name")),
     [_where("layers", 1, "class_name"), "layer 'd'", "class name"]),
    ("class_name not a string", _set(("layers", 1, "class_name"), 3),
     [_where("layers", 1, "class_name"), "int 3"]),
    ("config not a dict", _set(("layers", 1, "config"), [1]),
     [_where("layers", 1, "config"), "constructor arguments", r"list \[1\]"]),
    ("module not a string", _set(("layers", 1, "module"), 5), [_where("layers", 1, "module")]),
    ("name not a string", _set(("layers", 2, "name"), 5),
     [_where("layers", 2, "name"), "int 5"]),
    ("duplicate names", _set(("layers", 2, "name"), "d"), ["two layers are named 'd'"]),
    ("inbound_nodes not a list", _set(("layers", 1, "inbound_nodes"), {}),
     [_where("layers", 1, "inbound_nodes"), "a list of calls", "dict"]),
    ("node not a dict", _set(("layers", 1, "inbound_nodes", 0), "call"),
     [_where("layers", 1, "inbound_nodes", 0), "'args' and 'kwargs'", "str 'call'"]),
    ("legacy node too short", _set(("layers", 1, "inbound_nodes"), [[["x", 0]]]),
     [_where("layers", 1, "inbound_nodes", 0) + r"\[0\]", "layer 'd'", "tensor_index"]),
    ("legacy node unknown layer", _set(("layers", 1, "inbound_nodes"), [[["ghost", 0, 0]]]),
     ["Missing node: ghost", "layer 'd'"]),
    ("args not a list", _set(("layers", 1, "inbound_nodes", 0, "args"), {}),
     [_where("layers", 1, "inbound_nodes", 0, "args"), "a list of arguments"]),
    ("kwargs not a dict", _set(("layers", 1, "inbound_nodes", 0, "kwargs"), []),
     [_where("layers", 1, "inbound_nodes", 0, "kwargs"), "keyword arguments"]),
    ("trainable not a bool", _set(("trainable",), "yes"), [_where("trainable"), "str 'yes'"]),
    ("model name not a string", _set(("name",), ["m"]), [_where("name")]),
    ("shared_object_id not an int", _set(("layers", 1, "shared_object_id"), "a"),
     [_where("layers", 1, "shared_object_id")]),
    ("batch_shape negative", _set(X_CONFIG + ("batch_shape",), [None, -2]),
     [_where(*X_CONFIG, "batch_shape"), "layer 'x'", r"\[None, -2\]"]),
    ("batch_shape not integer", _set(X_CONFIG + ("batch_shape",), [None, 2.5]),
     [_where(*X_CONFIG, "batch_shape"), "layer 'x'", "2.5"]),
    ("batch_shape a string", _set(X_CONFIG + ("batch_shape",), "big"),
     [_where(*X_CONFIG, "batch_shape"), "str 'big'"]),
    ("batch_shape bool dim", _set(X_CONFIG + ("batch_shape",), [None, True]),
     [_where(*X_CONFIG, "batch_shape"), "True"]),
    ("build_config negative", _set(("layers", 1, "build_config"), {"input_shape": [None, -4]}),
     [_where("layers", 1, "build_config", "input_shape"), "layer 'd'", "-4"]),
    ("build_config not a dict", _set(("layers", 1, "build_config"), [2]),
     [_where("layers", 1, "build_config")]),
    ("unknown constructor argument", _set(("layers", 1, "config", "bogus"), 1),
     [_where("layers", 1), "layer 'd'", "Dense.from_config raised TypeError", "bogus"]),
    ("bad constructor value", _set(("layers", 1, "config", "units"), "many"),
     [_where("layers", 1), "layer 'd'", "units"]),
    ("numpy dtype object", _append(D_ARG[:-1], {**NUMPY, "config": {
        "value": [1], "dtype": "object"}}),
     [_where(*D_ARG[:-1], 1, "config", "dtype"), "numeric or bool dtype", "'object'"]),
    ("numpy ragged value", _append(D_ARG[:-1], {**NUMPY, "config": {
        "value": [[1], [1, 2]], "dtype": "float32"}}),
     [_where(*D_ARG[:-1], 1, "config", "value"), "list of float32 numbers"]),
    ("tuple without value", _append(D_ARG[:-1], {"class_name": "__tuple__", "config": {}}),
     [_where(*D_ARG[:-1], 1, "config", "value"), "tuple's items"]),
    ("slice of strings", _append(D_ARG[:-1], {"class_name": "__slice__", "config": {
        "start": "a", "stop": None, "step": None}}),
     [_where(*D_ARG[:-1], 1, "config"), "integers, arrays or None"]),
    ("deeply nested value", _set(("layers", 1, "config", "junk"),
                                 json.loads("[" * 400 + "]" * 400)),
     [_where("layers", 1, "config", "junk") + r"\[0\]", "MAX_CONFIG_DEPTH=256"]),
]


@pytest.mark.parametrize("mutate, patterns", [case[1:] for case in CASES],
                         ids=[case[0] for case in CASES])
def test_malformed_functional_config_raises_value_error_naming_the_place(mutate, patterns):
    config = _chain_config()
    mutate(config)
    with pytest.raises(ValueError) as info:
        kg.Functional.from_config(config)
    assert isinstance(info.value, ConfigError)
    message = str(info.value)
    for pattern in patterns:
        assert re.search(pattern, message), f"{pattern!r} not in {message!r}"


def test_nothing_is_built_before_the_whole_config_is_checked(monkeypatch):
    config = _chain_config()
    config["layers"][2]["config"]["units"] = 10**9  # a huge kernel, never built...
    config["output_layers"] = ["e", 0, -1]  # ...because the config is invalid
    monkeypatch.setattr(saving.layer_config, "call_from_config", _never)
    with pytest.raises(ValueError, match=_where("output_layers")):
        kg.Functional.from_config(config)


def _never(*args, **kwargs):
    raise AssertionError("a layer was constructed before the config was checked")


def test_errors_in_nested_models_name_the_full_path():
    i = kg.Input(shape=(2,), name="inner_in")
    inner = kg.Model(i, layers.Dense(2, name="inner_d")(i), name="inner")
    x = kg.Input(shape=(2,), name="x")
    model = kg.Model(x, inner(layers.Dense(2, name="pre")(x)), name="outer")
    text = json.loads(model.to_json())
    (position,) = [k for k, e in enumerate(text["config"]["layers"]) if e["name"] == "inner"]
    nested = text["config"]["layers"][position]["config"]
    nested["layers"][1]["inbound_nodes"][0]["args"][0]["config"]["keras_history"] = [
        "inner_in", 0, 9]
    with pytest.raises(ValueError) as info:
        kg.model_from_json(json.dumps(text))
    expected = _where("config", "layers", position, "config", "layers", 1, "inbound_nodes", 0,
                      "args", 0, "config", "keras_history")
    assert re.search(expected, str(info.value)) and "received 9" in str(info.value)
    nested["layers"][1]["inbound_nodes"][0]["args"][0]["config"]["keras_history"] = [
        "inner_in", 0, 0]
    nested["layers"][0]["config"]["batch_shape"] = [None, -1]
    with pytest.raises(ValueError, match=_where("config", "layers", position, "config",
                                                "layers", 0, "config", "batch_shape")):
        kg.model_from_json(json.dumps(text))


def test_shared_object_id_of_another_class_is_refused():
    config = _chain_config()
    config["layers"][0]["shared_object_id"] = 1
    config["layers"][1]["shared_object_id"] = 1  # x (an InputLayer) and d (a Dense)
    with pytest.raises(ValueError, match=_where("layers", 1, "shared_object_id")
                       + ".*the id of a Dense.*received str 'InputLayer'"):
        kg.Functional.from_config(config)


@pytest.mark.parametrize("bad, pattern", [
    (42, "a layer config.*int 42"),
    ({"config": {}}, re.escape('config["class_name"]') + ".*class name"),
    ({"class_name": "Dense", "config": {"units": 2}, "build_config": {"input_shape": [None, -1]}},
     re.escape('config["build_config"]["input_shape"]')),
    ({"class_name": "InputLayer", "config": {"batch_shape": [None, -7], "name": "img"}},
     re.escape('config["config"]["batch_shape"]') + r" \(layer 'img'\)"),
    ({"class_name": "Sequential", "config": {"name": "s", "layers": [{"class_name": 1}]}},
     re.escape('config["config"]["layers"][0]["class_name"]')),
    ({"class_name": "Sequential", "config": {"name": "s", "layers": [],
                                             "build_input_shape": [None, -3]}},
     re.escape('config["config"]["build_input_shape"]')),
])
def test_malformed_layer_configs(bad, pattern):
    with pytest.raises(ValueError, match=pattern):
        saving.deserialize_layer(bad)
    with pytest.raises(ValueError, match=pattern):
        kg.model_from_json(json.dumps(bad))


def test_deep_json_is_refused_before_parsing():
    deep = "[" * 100_000 + "]" * 100_000  # deeper than Python's JSON parser can go
    with pytest.raises(ValueError, match="expected arrays and objects nested at most "
                                         "MAX_CONFIG_DEPTH=256 .*received 100000 levels"):
        kg.model_from_json(deep)
    objects = '{"a": ' * 50_000 + "1" + "}" * 50_000
    with pytest.raises(ValueError, match="MAX_CONFIG_DEPTH"):
        kg.model_from_json(objects)
    brackets_in_strings = json.dumps({"class_name": "Dense", "config": {
        "units": 2, "name": "[" * 1000}})  # brackets inside strings do not count
    assert kg.model_from_json(brackets_in_strings).name == "[" * 1000


def test_deep_config_dicts_and_self_references_are_refused():
    deep = node = {}
    for _ in range(10_000):
        node["config"] = {}
        node = node["config"]
    with pytest.raises(ValueError, match="MAX_CONFIG_DEPTH"):
        saving.deserialize_layer({"class_name": "Dense", "config": deep})
    loop = {"class_name": "Dense", "config": {"units": 2}}
    loop["config"]["again"] = loop
    with pytest.raises(ValueError, match="expected dicts and lists nested at most .* "
                                         "a container holding itself"):
        saving.deserialize_layer(loop)
    with pytest.raises(ValueError, match="MAX_CONFIG_DEPTH"):
        kg.Functional.from_config({"layers": [deep], "input_layers": [],
                                   "output_layers": []})


def test_configs_at_the_depth_limit_give_value_errors_not_recursion_errors():
    limit = sys.getrecursionlimit()
    assert limit >= 1000
    junk = value = []
    for _ in range(MAX_CONFIG_DEPTH - 4):  # total depth exactly the limit
        value.append([])
        value = value[0]
    config = {"class_name": "Dense", "config": {"units": 2, "junk": junk}}
    validation.check_depth(config)  # within the bound
    with pytest.raises(ValueError, match="unexpected keyword"):
        kg.model_from_json(json.dumps(config))


def test_a_model_nested_many_levels_deep_still_round_trips():
    x = kg.Input(shape=(2,))
    model = kg.Model(x, layers.Dense(2)(x))
    for _ in range(60):  # about 190 levels of JSON nesting, under MAX_CONFIG_DEPTH
        x = kg.Input(shape=(2,))
        model = kg.Model(x, model(x))
    clone = kg.model_from_json(model.to_json())
    clone.set_weights(model.get_weights())
    data = np.ones((1, 2), np.float32)
    np.testing.assert_allclose(clone(data), model(data), rtol=1e-6)


def test_model_from_json_rejects_non_strings_and_invalid_json():
    with pytest.raises(TypeError, match="expects a JSON string"):
        kg.model_from_json({"class_name": "Dense"})
    with pytest.raises(ValueError):
        kg.model_from_json("{not json")


def test_valid_configs_are_not_changed_by_the_checks():
    config = _chain_config()
    before = copy.deepcopy(config)
    kg.Functional.from_config(config)
    assert config == before


class Split(kg.Layer):
    """Keeps ``1 / parts`` of its input: ``parts=0`` in a config divides by zero."""

    def __init__(self, parts=1, **kwargs):
        super().__init__(**kwargs)
        self.parts, self.fraction = parts, 1 / parts

    def call(self, inputs):
        return inputs * self.fraction

    def get_config(self):
        return {**super().get_config(), "parts": self.parts}


def test_errors_from_a_layers_own_code_name_the_layer_and_call():
    x = kg.Input(shape=(2,), name="x")
    y = kg.Input(shape=(2,), name="y")
    model = kg.Model([x, y], layers.Add(name="add")([Split(2, name="split")(x), y]))
    config = model.get_config()
    (split,) = [k for k, e in enumerate(config["layers"]) if e["name"] == "split"]
    (add,) = [k for k, e in enumerate(config["layers"]) if e["name"] == "add"]
    broken = copy.deepcopy(config)
    broken["layers"][split]["config"]["parts"] = 0
    with pytest.raises(ValueError, match=_where("layers", split) + r" \(layer 'split'\): "
                       "Split.from_config raised ZeroDivisionError"):
        kg.Functional.from_config(broken, custom_objects={"Split": Split})
    broken = copy.deepcopy(config)
    broken["layers"][0]["config"]["batch_shape"] = [None, 3]  # x no longer adds to y
    with pytest.raises(ValueError, match=_where("layers", add, "inbound_nodes", 0)
                       + r" \(layer 'add'\): calling the layer raised ValueError"):
        kg.Functional.from_config(broken, custom_objects={"Split": Split})


def _fuzz_config():
    shared = layers.Dense(3, name="shared")
    i = kg.Input(shape=(3,), name="inner_in")
    inner = kg.Model(i, [layers.Dense(3, name="inner_d")(shared(i)), i[:, :2] * 2.0],
                     name="inner")
    x = kg.Input(shape=(3,), name="x")
    h = layers.Dense(3, name="pre")(x)
    a, b = inner(h)
    seq = kg.Sequential([layers.Dense(2, name="s1")], name="seq")
    outputs = [layers.Add(name="add")([a, shared(h)]), seq(b), kg.ops.reshape(b, (-1, 2, 1))]
    return json.loads(kg.Model(x, outputs, name="outer").to_json())


_JUNK = [None, -1, 0, 2, 10**12, 2.5, True, "x", "shared", [], {}, [None], ["x", 0, 0],
         ["shared", 1, 0], ["inner", 2, 1], {"class_name": "__keras_tensor__", "config": {}},
         {"class_name": "__tuple__", "config": {"value": 3}}, {"class_name": "Dense"},
         [[1, 2], [3]]]


def _places(value):
    """Every (container, key) in a JSON value, found iteratively."""
    found, stack = [], [value]
    while stack:
        value = stack.pop()
        keys = value.keys() if isinstance(value, dict) else range(len(value))
        for key in keys:
            found.append((value, key))
            if isinstance(value[key], (dict, list)):
                stack.append(value[key])
    return found


@settings(max_examples=150, deadline=None, derandomize=True)
@given(data=st.data())
def test_any_damaged_config_builds_or_raises_a_value_error(data):
    config = _fuzz_config()
    for _ in range(data.draw(st.integers(1, 2))):
        container, key = data.draw(st.sampled_from(_places(config)))
        if isinstance(container, dict) and data.draw(st.booleans()):
            del container[key]
        else:
            container[key] = copy.deepcopy(data.draw(st.sampled_from(_JUNK)))
    try:
        kg.model_from_json(json.dumps(config))
    except ConfigError:
        pass
