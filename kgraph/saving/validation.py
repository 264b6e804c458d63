"""Checks on configs before anything is built: structure, types, indices, shapes, depth.

A config comes from a file that may be damaged or hostile. Every check here is iterative
and runs before a layer is constructed, so a malformed config raises a ``ConfigError`` (a
``ValueError``) that names the config path (``config["layers"][3]["inbound_nodes"][0]``),
what was expected and what was received, instead of an IndexError, KeyError, TypeError or
RecursionError from deep inside the rebuild.

>>> check_shape([None, -3], 'config["config"]["batch_shape"]')
Traceback (most recent call last):
...
kgraph.saving.validation.ConfigError: Invalid config at config["config"]["batch_shape"]: \
expected a shape: a list of non-negative integers or None, received list [None, -3].
"""

from __future__ import annotations

import json
import re
import reprlib
from typing import NamedTuple

import numpy as np

__all__ = [
    "ConfigError", "ConfigTypeError", "LayerPlan", "MAX_CONFIG_DEPTH", "NodePlan", "check_config_tree",
    "check_depth", "check_json_depth", "check_layer_config", "check_no_file_references",
    "check_shape", "check_shape_structure", "describe", "fail", "is_index", "is_tensor_ref",
    "item", "layer_name", "nested_configs", "parse_functional_config"
]


MAX_CONFIG_DEPTH = 256
"""Deepest nesting of dicts and lists accepted in a config or JSON string. A model nested
ten models deep is about 40 levels deep; past this bound Python's recursive decoders
(``json``, ``copy.deepcopy``, nested ``from_config`` calls) would risk a RecursionError."""

_DEPTH_EXPECTED = (f"MAX_CONFIG_DEPTH={MAX_CONFIG_DEPTH} levels deep (a model nested ten "
                   "models deep is about 40; a Keras or kgraph model config is far below it)")
_INPUT_LAYER_SHAPES = ("batch_shape", "batch_input_shape", "shape")
_WRAPPED_LAYER_KEYS = ("layer", "backward_layer")


class ConfigError(ValueError):
    """A malformed model or layer config; the message names where and what is wrong."""


class ConfigTypeError(ConfigError, TypeError):
    """A ``ConfigError`` from a ``TypeError`` raised by a layer's own code while it was
    rebuilt (Keras raises a TypeError there): a ValueError and a TypeError."""


_repr = reprlib.Repr()
_repr.maxlevel, _repr.maxstring, _repr.maxother = 3, 60, 60
_repr.maxlist = _repr.maxdict = _repr.maxtuple = 6


def describe(value) -> str:
    """A short, bounded description of a received value (its type and a truncated repr)."""
    return f"{type(value).__name__} {_repr.repr(value)}"


def fail(path, expected, received, layer=None):
    where = f"{path} (layer {layer!r})" if layer is not None else path
    raise ConfigError(f"Invalid config at {where}: expected {expected}, received "
                      f"{describe(received)}.")


def item(path, key) -> str:
    """``path`` followed by ``[key]``, written as in Python: ``config["layers"][3]``."""
    return f"{path}[{json.dumps(key) if isinstance(key, str) else key}]"


def is_index(value) -> bool:
    """A non-negative int (bools excluded)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# ------------------------------------------------------------------------ depth
def check_depth(value, path="config") -> None:
    """Raise if dicts/lists nest deeper than ``MAX_CONFIG_DEPTH`` (or contain themselves)."""
    stack = [(root := value, 1)] if isinstance(value, (dict, list, tuple)) else []
    while stack:
        value, depth = stack.pop()
        if depth > MAX_CONFIG_DEPTH:
            raise ConfigError(f"Invalid config at {_deep_path(root, path)}: expected dicts "
                              f"and lists nested at most {_DEPTH_EXPECTED}, received deeper "
                              "nesting (or a container holding itself).")
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, (dict, list, tuple)))


def _deep_path(value, path, shown=8):
    """The path (first ``shown`` keys) to the first container past ``MAX_CONFIG_DEPTH``."""
    stack = [(value, 1, [])]
    while stack:
        value, depth, keys = stack.pop()
        if depth > MAX_CONFIG_DEPTH:
            return path + "".join(keys[:shown]) + ("..." if len(keys) > shown else "")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        stack.extend((child, depth + 1, keys + [item("", k)])
                     for k, child in items if isinstance(child, (dict, list, tuple)))
    return path


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


def check_json_depth(text) -> None:
    """Raise if JSON text nests deeper than ``MAX_CONFIG_DEPTH``, without parsing it."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    brackets = np.frombuffer(_JSON_STRING.sub("", text).encode("utf-8"), np.uint8)
    steps = (np.isin(brackets, (ord("["), ord("{"))).astype(np.int64)
             - np.isin(brackets, (ord("]"), ord("}"))))
    deepest = int(np.cumsum(steps).max()) if steps.size else 0
    if deepest > MAX_CONFIG_DEPTH:
        raise ConfigError(f"Invalid JSON: expected arrays and objects nested at most "
                          f"{_DEPTH_EXPECTED}, received {deepest} levels.")


# ----------------------------------------------------------------------- shapes
_SHAPE = "a shape: a list of non-negative integers or None"


def check_shape(shape, path, layer=None):
    """``shape`` must be a list of dims, each None or a non-negative int."""
    if not isinstance(shape, (list, tuple)) or not all(d is None or is_index(d) for d in shape):
        fail(path, _SHAPE, shape, layer)


def check_shape_structure(value, path, layer=None):
    """A shape, or a (nested) list/dict of shapes (``build_config``'s ``input_shape``)."""
    stack = [(value, path)]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            stack.extend((v, item(path, k)) for k, v in value.items())
        elif isinstance(value, (list, tuple)) and any(isinstance(v, (list, tuple, dict))
                                                      for v in value):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value) if v is not None)
        else:
            check_shape(value, path, layer)


# ----------------------------------------------------------------------- layers
def layer_name(entry):
    """A layer entry's name (the functional format's ``name``, else its config's)."""
    name = entry.get("name")
    if name is None and isinstance(entry.get("config"), dict):
        name = entry["config"].get("name")
    return name


def check_layer_config(entry, path) -> None:
    """The keys every serialized layer has: class_name, config, module, build_config, ..."""
    if not isinstance(entry, dict):
        fail(path, "a layer config: a dict with 'class_name' and 'config' keys", entry)
    if "class_name" not in entry and "config" not in entry:  # Keras's words
        raise ConfigError(f"Invalid config at {path}: Expected a dictionary containing a "
                          f"'config' key. Received: config={_repr.repr(entry)}")
    name = layer_name(entry)
    name = name if isinstance(name, str) else None
    class_name = entry.get("class_name")
    if not isinstance(class_name, str) or not class_name:
        fail(f'{path}["class_name"]', "the layer's class name (a string)", class_name, name)
    for key in ("module", "registered_name"):
        if entry.get(key) is not None and not isinstance(entry[key], str):
            fail(f'{path}["{key}"]', "a string or None", entry[key], name)
    inner = entry.get("config")
    if inner is not None and not isinstance(inner, dict):
        fail(f'{path}["config"]', "a dict of the layer's constructor arguments", inner, name)
    if "shared_object_id" in entry and not is_index(entry["shared_object_id"]):
        fail(f'{path}["shared_object_id"]', "a non-negative integer", entry["shared_object_id"],
             name)
    build_config = entry.get("build_config")
    if build_config is not None:
        if not isinstance(build_config, dict):
            fail(f'{path}["build_config"]', "a dict with 'input_shape' or 'shapes_dict'",
                 build_config, name)
        if build_config.get("input_shape") is not None:
            check_shape_structure(build_config["input_shape"],
                                  f'{path}["build_config"]["input_shape"]', name)
        shapes = build_config.get("shapes_dict")
        if shapes is not None and not isinstance(shapes, dict):
            fail(f'{path}["build_config"]["shapes_dict"]', "a dict of shapes", shapes, name)
        if shapes:
            check_shape_structure(shapes, f'{path}["build_config"]["shapes_dict"]', name)
    if class_name == "InputLayer" and inner:
        for key in _INPUT_LAYER_SHAPES:
            shape = inner.get(key)
            if shape is not None:  # Input(shape=3) means (3,)
                check_shape([shape] if is_index(shape) else shape,
                            f'{path}["config"]["{key}"]', name)
    if inner and inner.get("build_input_shape") is not None:  # Sequential
        check_shape(inner["build_input_shape"], f'{path}["config"]["build_input_shape"]', name)


def nested_configs(entry, path):
    """``(kind, config, path)`` of the model and wrapped-layer configs inside a layer entry."""
    inner = entry.get("config")
    if not isinstance(inner, dict):
        return []
    inner_path = f'{path}["config"]'
    if all(key in inner for key in ("layers", "input_layers", "output_layers")):
        return [("functional", inner, inner_path)]
    found = []
    if entry.get("class_name") == "Sequential" and not ("name" in inner and "layers" in inner):
        raise ConfigError(f"Invalid config at {inner_path}: A Sequential model configuration "
                          "must be a dictionary containing the 'name' and 'layers' keys. "
                          f"Received: config={_repr.repr(inner)}")
    if "layers" in inner:  # Sequential
        if not isinstance(inner["layers"], list):
            fail(f'{inner_path}["layers"]', "a list of layer configs", inner["layers"],
                 layer_name(entry))
        found += [("layer", e, f'{inner_path}["layers"][{i}]')
                  for i, e in enumerate(inner["layers"])]
    found += [("layer", inner[key], f'{inner_path}["{key}"]') for key in _WRAPPED_LAYER_KEYS
              if isinstance(inner.get(key), dict) and "class_name" in inner[key]]
    return found


# ------------------------------------------------------------ functional format
class NodePlan(NamedTuple):
    path: str
    data: dict
    refs: list  # (layer_name, node_index) of each KerasTensor argument


class LayerPlan(NamedTuple):
    name: str
    path: str
    config: dict  # the entry without "name" and "inbound_nodes"
    nodes: list  # NodePlan per call


def _tensor_refs(node, path, layer):
    """``(layer_name, node_index, tensor_index, path)`` of a node's KerasTensor arguments."""
    refs, stack = [], [(node.get("kwargs", {}), f'{path}["kwargs"]'),
                       (node.get("args", []), f'{path}["args"]')]
    while stack:
        value, where = stack.pop()
        if isinstance(value, list):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(value))))
        elif isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
            tensor = value.get("config")
            history = tensor.get("keras_history") if isinstance(tensor, dict) else None
            if not (isinstance(history, list) and len(history) == 3
                    and isinstance(history[0], str) and is_index(history[1])
                    and is_index(history[2])):
                fail(f'{where}["config"]["keras_history"]', "[layer_name, node_index, "
                     "tensor_index] with non-negative integer indices", history, layer)
            if tensor.get("shape") is not None:
                check_shape(tensor["shape"], f'{where}["config"]["shape"]', layer)
            refs.append((*history, f'{where}["config"]["keras_history"]'))
        elif isinstance(value, dict):
            stack.extend((v, item(where, k)) for k, v in value.items())
    return refs


def _from_legacy_node(node, path, layer) -> dict:
    """A call in Keras 2's form, ``[[layer_name, node_index, tensor_index(, kwargs)],
    ...]``, as Keras 3's ``{"args": [tensors], "kwargs": kwargs}`` (one input: itself)."""
    if not isinstance(node, list) or not node:
        fail(path, "a call: a list of [layer_name, node_index, tensor_index, kwargs]", node,
             layer)
    tensors, kwargs = [], {}
    for i, ref in enumerate(node):
        if not (isinstance(ref, list) and len(ref) in (3, 4)):
            fail(f"{path}[{i}]", "[layer_name, node_index, tensor_index] or with kwargs",
                 ref, layer)
        kwargs = ref[3] if len(ref) == 4 else {}
        tensors.append({"class_name": "__keras_tensor__",
                        "config": {"keras_history": list(ref[:3])}})
    return {"args": [tensors[0] if len(tensors) == 1 else tensors], "kwargs": kwargs}


def parse_functional_config(config, path) -> list:
    """Check a functional config (one level) and return its ``LayerPlan`` list.

    Every KerasTensor argument must name a layer of this config and one of that layer's
    calls listed here (an InputLayer has its one call).
    """
    if not isinstance(config, dict):
        fail(path, "a Functional config dict", config)
    for key in ("layers", "input_layers", "output_layers"):
        if key not in config:
            raise ConfigError(f"Invalid config at {path}: a Functional config needs the key "
                              f"{key!r}; received keys {sorted(map(str, config))[:20]}.")
    if config.get("name") is not None and not isinstance(config["name"], str):
        fail(f'{path}["name"]', "the model's name (a string)", config["name"])
    if config.get("trainable") is not None and not isinstance(config["trainable"], bool):
        fail(f'{path}["trainable"]', "True or False", config["trainable"])
    if not isinstance(config["layers"], list):
        fail(f'{path}["layers"]', "a list of layer configs", config["layers"])
    plans, calls, tensor_refs = [], {}, []
    for i, entry in enumerate(config["layers"]):
        entry_path = f'{path}["layers"][{i}]'
        check_layer_config(entry, entry_path)
        name = layer_name(entry)
        if not isinstance(name, str) or not name:
            fail(f'{entry_path}["name"]', "the layer's name (a string)", name)
        if name in calls:
            raise ConfigError(f"Invalid config at {entry_path}: two layers are named {name!r}.")
        nodes = entry.get("inbound_nodes")
        nodes = [] if nodes is None else nodes
        if not isinstance(nodes, list):
            fail(f'{entry_path}["inbound_nodes"]', "a list of calls", nodes, name)
        if nodes and isinstance(nodes[0], list):
            nodes = [_from_legacy_node(node, f'{entry_path}["inbound_nodes"][{j}]', name)
                     for j, node in enumerate(nodes)]
        node_plans = []
        for j, node in enumerate(nodes):
            node_path = f'{entry_path}["inbound_nodes"][{j}]'
            if not isinstance(node, dict):
                fail(node_path, "a call: a dict with 'args' and 'kwargs'", node, name)
            if not isinstance(node.get("args", []), list):
                fail(f'{node_path}["args"]', "a list of arguments", node["args"], name)
            if not isinstance(node.get("kwargs", {}), dict):
                fail(f'{node_path}["kwargs"]', "a dict of keyword arguments", node["kwargs"],
                     name)
            refs = _tensor_refs(node, node_path, name)
            tensor_refs.extend((ref, name) for ref in refs)
            node_plans.append(NodePlan(node_path, node, [ref[:2] for ref in refs]))
        calls[name] = len(nodes) or int(entry["class_name"] == "InputLayer")
        layer_config = {k: v for k, v in entry.items() if k not in ("name", "inbound_nodes")}
        plans.append(LayerPlan(name, entry_path, layer_config, node_plans))
    for (ref_name, node_index, _, where), name in tensor_refs:
        if ref_name not in calls:
            raise ConfigError(f"Invalid config at {where}: Missing node: {ref_name} (layer "
                              f"{name!r} refers to the unknown layer {ref_name!r}); this "
                              f"config's layers are {list(calls)[:20]}.")
        if node_index >= calls[ref_name]:
            raise ConfigError(f"Invalid config at {where} (layer {name!r}): expected a call "
                              f"index below {calls[ref_name]} (the number of calls of layer "
                              f"{ref_name!r} in this config), received {node_index}.")
    for key in ("input_layers", "output_layers"):
        _check_io(config[key], f'{path}["{key}"]', calls)
    return plans


def is_tensor_ref(value) -> bool:
    return isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)


def _check_io(struct, path, calls):
    """``input_layers`` / ``output_layers``: [layer_name, node_index, tensor_index] leaves."""
    stack = [(struct, path)]
    while stack:
        value, where = stack.pop()
        if is_tensor_ref(value):
            if not (is_index(value[1]) and is_index(value[2])):
                fail(where, "[layer_name, node_index, tensor_index] with non-negative integer "
                     "indices", value)
            if value[0] not in calls:
                raise ConfigError(f"Invalid config at {where}: unknown layer {value[0]!r} in "
                                  f"input_layers/output_layers; this config's layers are "
                                  f"{list(calls)[:20]}.")
        elif isinstance(value, dict):
            stack.extend((v, item(where, k)) for k, v in value.items())
        elif isinstance(value, list) and value:
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(value))
        else:
            fail(where, "a [layer_name, node_index, tensor_index] triple, or a non-empty "
                 "list or dict of them", value)


def check_config_tree(config, path, kind) -> None:
    """Check ``config`` (a ``"layer"`` entry or a ``"functional"`` config) and every model
    and wrapped-layer config nested in it, iteratively, before anything is built."""
    check_depth(config, path)
    stack = [(kind, config, path)]
    while stack:
        kind, config, path = stack.pop()
        if kind == "functional":
            for plan in parse_functional_config(config, path):
                stack.extend(nested_configs(plan.config, plan.path))
        elif not isinstance(config, str):
            check_layer_config(config, path)
            stack.extend(nested_configs(config, path))


_URL_OR_PATH = re.compile(  # a URL, a file: URI, or an absolute, home or relative path
    r"^([a-zA-Z][a-zA-Z0-9+.-]*://|file:|~/|/[^/\s]|\.{1,2}[/\\]|[a-zA-Z]:[/\\])")
_FILE_KEYS = ("vocabulary", "idf_weights", "filepath", "file_path", "path", "url", "origin",
              "fname")


def check_no_file_references(config, path="config") -> None:
    """Refuse file paths and URLs in a config: loading never opens what a file names.

    Keras reads a string ``vocabulary`` (``StringLookup``, ``TextVectorization``) as a
    file path, and wrappers such as ``TFSMLayer`` load the path they are given; kgraph
    refuses such strings, and any string that looks like a path or a URL, naming where.
    """
    stack = [(config, path)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                here = f'{where}["{key}"]'
                if isinstance(item, str) and (key in _FILE_KEYS or _URL_OR_PATH.match(item)):
                    raise ConfigError(f"Invalid config at {here}: {_repr.repr(item)} names a "
                                      "file or URL; loading never reads files or URLs named "
                                      "in a config (give vocabularies as lists).")
                stack.append((item, here))
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(value))
