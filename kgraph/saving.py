"""Serialization: layers and models to configs (Keras 3's formats) and back, safely.

A layer serializes to ``{"module", "class_name", "config", "registered_name"}`` (plus
``"build_config"`` when its input shape is known). A ``Functional`` model's config is Keras
3's functional format: every layer with its ``inbound_nodes`` (the arguments of each of its
calls in this model, KerasTensors written as ``{"class_name": "__keras_tensor__", "config":
{"shape", "dtype", "keras_history": [layer_name, node_index, tensor_index]}}``), then
``input_layers`` / ``output_layers`` in the model's input/output structure.

Deserializing never imports modules or evaluates code from the config: a class is found
among kgraph's own layers, classes registered with ``register_layer`` (Keras's
``register_keras_serializable``), or the ``custom_objects`` given. A model is rebuilt by
constructing those classes and calling them on KerasTensors. Layers whose config carries
code (``Lambda``, or a class with ``unsafe_deserialization = True``) are refused unless
``safe_mode=False``.

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,), name="x")
>>> model = kg.Model(x, kg.layers.Dense(2, name="d")(x) * 2 + 1, name="m")
>>> clone = kg.model_from_json(model.to_json())
>>> [layer.name for layer in clone.layers] == [layer.name for layer in model.layers]
True
"""

from __future__ import annotations

import collections
import copy
import inspect
import json

import numpy as np

from kgraph import call_args
from kgraph.keras_tensor import KerasTensor
from kgraph.layer import Layer

_GLOBAL_CUSTOM_OBJECTS: dict = {}  # registered name -> class
_GLOBAL_CUSTOM_NAMES: dict = {}  # class -> registered name

_UNSAFE_MESSAGE = (
    "Refusing to deserialize {what}: deserializing it would execute arbitrary Python code "
    "stored in the config, which is unsafe if the config comes from an untrusted source. "
    "If you trust its source, pass safe_mode=False (e.g. "
    "kg.model_from_json(json_string, safe_mode=False) or "
    "Functional.from_config(config, safe_mode=False)).")


# --------------------------------------------------------------------- registry
def register_layer(package="Custom", name=None):
    """Register a custom layer class for deserialization (as Keras's
    ``register_keras_serializable``): its registered name is ``"package>name"``.

    Use as ``@register_layer()``, ``@register_layer(package="mine")`` or ``@register_layer``.
    """
    if isinstance(package, type):  # used bare: @register_layer
        return register_layer()(package)

    def decorator(cls):
        if not (isinstance(cls, type) and hasattr(cls, "get_config")):
            raise ValueError(f"register_layer expects a class with get_config(), "
                             f"received {cls!r}.")
        registered_name = f"{package}>{name or cls.__name__}"
        _GLOBAL_CUSTOM_OBJECTS[registered_name] = cls
        _GLOBAL_CUSTOM_NAMES[cls] = registered_name
        return cls

    return decorator


register_keras_serializable = register_layer


def get_registered_name(cls) -> str:
    """``"package>name"`` for a registered class, else the class name (as Keras)."""
    return _GLOBAL_CUSTOM_NAMES.get(cls, cls.__name__)


def get_registered_object(name, custom_objects=None):
    """The class registered (or given in ``custom_objects``) as ``name``, or None."""
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    return _GLOBAL_CUSTOM_OBJECTS.get(name)


def get_custom_objects() -> dict:
    """The global ``{registered_name: class}`` registry (mutable, as Keras's)."""
    return _GLOBAL_CUSTOM_OBJECTS


_builtin_cache: dict = {}


def _builtin_classes() -> dict:
    """kgraph's own layer and model classes by class name (rescanned when the catalog grows)."""
    from kgraph import layers as layers_module
    from kgraph.functional import Functional
    from kgraph.input_layer import InputLayer
    from kgraph.sequential import Sequential

    namespace = vars(layers_module)
    if _builtin_cache.get("size") != len(namespace):
        classes = {name: obj for name, obj in namespace.items()
                   if isinstance(obj, type) and issubclass(obj, Layer) and obj.__name__ == name}
        classes.update(Functional=Functional, Sequential=Sequential, InputLayer=InputLayer)
        _builtin_cache.update(size=len(namespace), classes=classes)
    return _builtin_cache["classes"]


def _builtin_module(cls):
    """``"kgraph.layers"`` / ``"kgraph"`` for kgraph's own classes, else None."""
    from kgraph import layers as layers_module

    if getattr(layers_module, cls.__name__, None) is cls:
        return "kgraph.layers"
    if _builtin_classes().get(cls.__name__) is cls:
        return "kgraph"
    return None


def _is_operation(cls) -> bool:
    from kgraph import ops

    return isinstance(cls, type) and issubclass(cls, ops.Operation)


def _is_unsafe(cls) -> bool:
    if getattr(cls, "unsafe_deserialization", False):
        return True
    return cls.__name__ == "Lambda" and cls.__module__.split(".")[0] == "kgraph"


def _resolve_class(config, custom_objects):
    class_name = config.get("class_name")
    registered_name = config.get("registered_name")
    module = config.get("module")
    custom_objects = custom_objects or {}
    for key in (registered_name, class_name):
        if key is not None and key in custom_objects:
            return custom_objects[key]
    if registered_name is not None and registered_name in _GLOBAL_CUSTOM_OBJECTS:
        return _GLOBAL_CUSTOM_OBJECTS[registered_name]
    builtin_module = module is None or str(module).split(".")[0] in ("kgraph", "keras")
    if registered_name in (None, class_name) and builtin_module:
        cls = _builtin_classes().get(class_name)
        if cls is not None:
            return cls
    raise ValueError(
        f"Could not locate class {class_name!r} (module {module!r}, registered name "
        f"{registered_name!r}). Custom layer classes must be registered with "
        f"@kgraph.saving.register_layer() or passed as custom_objects={{{class_name!r}: "
        f"{class_name}}}. Deserialization never imports modules named in a config.")


# ------------------------------------------------------------------ plain values
def _encode_value(value, what):
    """A node argument / op parameter as JSON-compatible data (Keras's special forms)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, KerasTensor):
        raise TypeError("internal: KerasTensors are encoded by the node serializer")
    if isinstance(value, list):
        return [_encode_value(v, what) for v in value]
    if isinstance(value, tuple):
        return {"class_name": "__tuple__",
                "config": {"value": [_encode_value(v, what) for v in value]}}
    if isinstance(value, dict):
        return {str(k): _encode_value(v, what) for k, v in value.items()}
    if isinstance(value, slice):
        return {"class_name": "__slice__",
                "config": {"start": _encode_value(value.start, what),
                           "stop": _encode_value(value.stop, what),
                           "step": _encode_value(value.step, what)}}
    if value is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(value, bytes):
        return {"class_name": "__bytes__", "config": {"value": value.decode("utf-8")}}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return np.dtype(value).name
    if isinstance(value, np.ndarray):
        return {"class_name": "__numpy__",
                "config": {"value": value.tolist(), "dtype": value.dtype.name}}
    if hasattr(value, "__jax_array__") or type(value).__module__.startswith("jax"):
        array = np.asarray(value)
        return {"class_name": "__tensor__",
                "config": {"value": array.tolist(), "dtype": array.dtype.name}}
    raise TypeError(f"Cannot serialize {type(value).__name__} value {value!r} in {what}: "
                    "only Python scalars, strings, None, lists, tuples, dicts, slices, "
                    "Ellipsis and arrays can be stored in a config.")


def _decode_value(value, resolve_tensor=None, safe_mode=True):
    """Inverse of ``_encode_value``; ``__keras_tensor__`` goes to ``resolve_tensor``."""
    if isinstance(value, list):
        return [_decode_value(v, resolve_tensor, safe_mode) for v in value]
    if not isinstance(value, dict):
        return value
    class_name = value.get("class_name")
    inner = value.get("config")
    if class_name == "__keras_tensor__" and resolve_tensor is not None:
        return resolve_tensor(inner)
    if class_name == "__tuple__":
        return tuple(_decode_value(v, resolve_tensor, safe_mode) for v in inner["value"])
    if class_name == "__slice__":
        return slice(*(_decode_value(inner[k], resolve_tensor, safe_mode)
                       for k in ("start", "stop", "step")))
    if class_name == "__ellipsis__":
        return Ellipsis
    if class_name == "__bytes__":
        return inner["value"].encode("utf-8")
    if class_name == "__numpy__":
        return np.array(inner["value"], dtype=inner["dtype"])
    if class_name == "__tensor__":
        import jax.numpy as jnp

        return jnp.asarray(np.array(inner["value"], dtype=inner["dtype"]))
    if class_name == "__lambda__":
        if safe_mode:
            raise ValueError(_UNSAFE_MESSAGE.format(what="a Python lambda"))
        raise ValueError("Python lambdas stored as bytecode cannot be loaded by kgraph; "
                         "use a named function registered in custom_objects.")
    return {k: _decode_value(v, resolve_tensor, safe_mode) for k, v in value.items()}


def _shape_list(shape):
    return [None if d is None else int(d) for d in shape]


def _shape_struct(value):
    """Input shapes of a call's first argument: a list, or a list/dict of lists."""
    if isinstance(value, KerasTensor):
        return _shape_list(value.shape)
    if isinstance(value, dict):
        return {k: _shape_struct(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shape_struct(v) for v in value]
    return None


def _shape_from_config(value):
    """A build_config shape back to ``build``'s form: tuples, or a list/dict of tuples."""
    if isinstance(value, dict):
        return {k: _shape_from_config(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and all(d is None or isinstance(d, int) for d in value):
        return tuple(value)
    if isinstance(value, (list, tuple)):
        return [_shape_from_config(v) for v in value]
    return value


# ----------------------------------------------------------------------- layers
def _operation_config(layer) -> dict:
    config = layer.get_config()
    if "op" not in config:  # an Operation without the registry contract: name the function
        config = {"name": layer.name, "op": getattr(layer.fn, "__name__", None),
                  "kwargs": dict(getattr(layer, "fn_kwargs", {}))}
    config = dict(config)
    config["kwargs"] = _encode_value(dict(config.get("kwargs") or {}),
                                     f'operation "{layer.name}"')
    return config


def _build_config(layer):
    from kgraph.functional import Functional

    if (not layer.built or isinstance(layer, Functional) or getattr(layer, "is_input_layer", False)
            or _is_operation(type(layer)) or not layer._inbound_nodes):
        return None
    node = layer._inbound_nodes[0]
    shapes = call_args.build_shapes(layer, node.call_args, node.call_kwargs)
    if shapes is not None:  # build(query_shape, value_shape, ...): Keras's shapes_dict
        return {"shapes_dict": json.loads(json.dumps(shapes))}  # tuples as JSON lists
    shapes = _shape_struct(call_args.first_argument(type(layer), node.call_args,
                                                    node.call_kwargs))
    return None if shapes is None else {"input_shape": shapes}


def serialize_layer(layer) -> dict:
    """``{"module", "class_name", "config", "registered_name"[, "build_config"]}``."""
    if not isinstance(layer, Layer):
        raise TypeError(f"serialize_layer expects a kgraph Layer, received "
                        f"{type(layer).__name__}.")
    cls = type(layer)
    module = _builtin_module(cls)
    registered_name = None
    if module is None:
        module, registered_name = cls.__module__, get_registered_name(cls)
    if _is_operation(cls):
        config = _operation_config(layer)
    else:
        config = copy.deepcopy(layer.get_config())
    result = {"module": module, "class_name": cls.__name__, "config": config,
              "registered_name": registered_name}
    build_config = _build_config(layer)
    if build_config is not None:
        result["build_config"] = build_config
    return result


def _normalize_keras_config(config):
    """Accept Keras's serialized DTypePolicy objects where kgraph takes a dtype name."""
    dtype = config.get("dtype")
    if isinstance(dtype, dict) and dtype.get("class_name") in ("DTypePolicy", "DTypePolicyMap"):
        config = {**config, "dtype": (dtype.get("config") or {}).get("name")}
    return config


_from_config_params: dict = {}


def call_from_config(cls, config, custom_objects=None, safe_mode=True):
    """``cls.from_config`` with custom_objects / safe_mode when it accepts them."""
    params = _from_config_params.get(cls)
    if params is None:
        params = _from_config_params[cls] = frozenset(
            inspect.signature(cls.from_config).parameters)
    kwargs = {}
    if "custom_objects" in params:
        kwargs["custom_objects"] = custom_objects
    if "safe_mode" in params:
        kwargs["safe_mode"] = safe_mode
    return cls.from_config(config, **kwargs)


def _operation_from_config(cls, config):
    """An operation from its config: its registered ``op`` name and decoded ``kwargs``."""
    config = dict(config)
    config["kwargs"] = _decode_value(config.get("kwargs") or {})
    return cls.from_config(config)


def deserialize_layer(config, custom_objects=None, safe_mode=True, build=True):
    """The layer (or model) described by ``config`` (from ``serialize_layer``).

    Classes come from kgraph, ``register_layer`` or ``custom_objects`` only. With
    ``safe_mode=True`` (default) layers that would run code from the config (``Lambda``)
    are refused. ``build``: build the layer from its ``build_config`` (input shape), so
    that ``set_weights`` works at once; a model rebuilding its graph skips it (calling the
    layer builds it).
    """
    if isinstance(config, str):
        config = {"class_name": config, "config": {}, "registered_name": None}
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"A layer config must be a dict with a 'class_name' key (from "
                         f"serialize_layer), received {config!r}.")
    cls = _resolve_class(config, custom_objects)
    inner = copy.deepcopy(config.get("config") or {})
    if safe_mode and _is_unsafe(cls):
        raise ValueError(_UNSAFE_MESSAGE.format(
            what=f'layer "{inner.get("name", "?")}" of class {cls.__name__}'))
    if not (isinstance(cls, type) and issubclass(cls, Layer)):
        raise ValueError(f"{config['class_name']!r} resolved to {cls!r}, which is not a "
                         "kgraph Layer.")
    if _is_operation(cls):
        layer = _operation_from_config(cls, inner)
    else:
        layer = call_from_config(cls, _normalize_keras_config(inner), custom_objects,
                                  safe_mode)
    build_config = (config.get("build_config") or {}) if build else {}
    if not layer.built and build_config.get("input_shape") is not None:
        layer.build(_shape_from_config(build_config["input_shape"]))
        layer.built = True
    elif not layer.built and build_config.get("shapes_dict"):
        layer.build(**{k: _shape_from_config(v) for k, v in build_config["shapes_dict"].items()})
        layer.built = True
    return layer


serialize_keras_object = serialize_layer
deserialize_keras_object = deserialize_layer


# ------------------------------------------------------------ functional format
def _offset(layer) -> int:
    """Keras numbers a nested Functional's nodes from 1 in input/output_layers."""
    from kgraph.functional import Functional
    from kgraph.sequential import Sequential

    return 1 if isinstance(layer, Functional) and not isinstance(layer, Sequential) else 0


def functional_get_config(model) -> dict:
    """``model``'s config in Keras 3's functional format (see the module docstring)."""
    own = {id(node) for node in model._nodes}
    for tensor in model.inputs:
        history = tensor._keras_history
        own.add(id(history.layer._inbound_nodes[history.node_index]))
    new_index = {}  # (id(layer), original node index) -> index among this model's nodes
    for layer in model._layers:
        kept = 0
        for i, node in enumerate(layer._inbound_nodes):
            if id(node) in own:
                new_index[(id(layer), i)] = kept
                kept += 1

    def tensor_config(tensor):
        layer, node_index, tensor_index = tensor._keras_history
        return {"class_name": "__keras_tensor__",
                "config": {"shape": _shape_list(tensor.shape), "dtype": tensor.dtype.name,
                           "keras_history": [layer.name, new_index[(id(layer), node_index)],
                                             tensor_index]}}

    def encode(value, what):
        if isinstance(value, KerasTensor):
            return tensor_config(value)
        if isinstance(value, (list, tuple)) and any(
                isinstance(v, KerasTensor) for v in _leaves(value)):
            return [encode(v, what) for v in value]  # tensor containers: lists, as Keras
        if isinstance(value, dict):
            return {str(k): encode(v, what) for k, v in value.items()}
        return _encode_value(value, what)

    layer_configs = []
    for layer in model._layers:
        nodes = []
        for i, node in enumerate(layer._inbound_nodes):
            if id(node) not in own or not node._keras_inputs:
                continue
            what = f'the call of layer "{layer.name}"'
            nodes.append({"args": [encode(a, what) for a in node.call_args],
                          "kwargs": {str(k): encode(v, what)
                                     for k, v in node.call_kwargs.items()}})
        layer_config = serialize_layer(layer)
        layer_config["name"] = layer.name
        layer_config["inbound_nodes"] = nodes
        layer_configs.append(layer_config)

    def io_config(tensor):
        layer, node_index, tensor_index = tensor._keras_history
        return [layer.name, new_index[(id(layer), node_index)] + _offset(layer), tensor_index]

    return {"name": model.name, "trainable": model.trainable, "layers": layer_configs,
            "input_layers": _map_structure(io_config, model._inputs_struct),
            "output_layers": _map_structure(io_config, model._outputs_struct)}


def _leaves(value):
    stack, out = [value], []
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        else:
            out.append(v)
    return out


def _map_structure(fn, struct):
    if isinstance(struct, dict):
        return {k: _map_structure(fn, v) for k, v in struct.items()}
    if isinstance(struct, (list, tuple)):
        return [_map_structure(fn, v) for v in struct]
    return fn(struct)


def _is_tensor_ref(value) -> bool:
    return (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)
            and isinstance(value[1], int) and isinstance(value[2], int))


def _node_refs(node_data) -> list:
    """The (layer_name, node_index) pairs a node's arguments refer to."""
    refs, stack = [], [node_data.get("args", []), node_data.get("kwargs", {})]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            if value.get("class_name") == "__keras_tensor__":
                history = value["config"]["keras_history"]
                refs.append((history[0], history[1]))
            else:
                stack.extend(value.values())
    return refs


def functional_from_config(cls, config, custom_objects=None, safe_mode=True):
    """Rebuild a Functional from ``functional_get_config``'s output (or Keras 3's).

    Layers are constructed from their configs, then called on KerasTensors in dependency
    order: a work list in which a node waits for the one node it is missing, so the
    rebuild is linear in the size of the graph and uses no recursion per layer.
    """
    for key in ("layers", "input_layers", "output_layers"):
        if key not in config:
            raise ValueError(f"A Functional config needs the key {key!r}; received keys "
                             f"{sorted(config)}.")
    created, order, pending = {}, [], {}
    for layer_data in config["layers"]:
        name = layer_data.get("name") or (layer_data.get("config") or {}).get("name")
        if name in created:
            raise ValueError(f"Invalid Functional config: two layers are named {name!r}.")
        layer_config = {k: v for k, v in layer_data.items() if k not in ("name", "inbound_nodes")}
        created[name] = deserialize_layer(layer_config, custom_objects, safe_mode, build=False)
        order.append(name)
        nodes = list(layer_data.get("inbound_nodes") or [])
        if nodes and isinstance(nodes[0], list):
            raise ValueError(f"Layer {name!r} uses the legacy (Keras 2) inbound_nodes format, "
                             "which is not supported; re-save the model with Keras 3.")
        pending[name] = [(node, _node_refs(node)) for node in nodes]

    def resolve(tensor_config):
        layer_name, node_index, tensor_index = tensor_config["keras_history"]
        return created[layer_name]._inbound_nodes[node_index].outputs[tensor_index]

    def available(layer_name, node_index) -> bool:
        if layer_name not in created:
            raise ValueError(f"Invalid Functional config: a node refers to the unknown "
                             f"layer {layer_name!r}.")
        return len(created[layer_name]._inbound_nodes) > node_index

    position = dict.fromkeys(order, 0)  # next node of each layer to create
    ref_position = dict.fromkeys(order, 0)  # next argument of that node to check
    waiting = collections.defaultdict(list)  # (layer_name, node_index) -> waiting layers
    queue = collections.deque(order)
    while queue:
        name = queue.popleft()
        layer, nodes = created[name], pending[name]
        while position[name] < len(nodes):
            node_data, refs = nodes[position[name]]
            blocked = False
            while ref_position[name] < len(refs):
                ref = refs[ref_position[name]]
                if not available(*ref):
                    waiting[ref].append(name)
                    blocked = True
                    break
                ref_position[name] += 1
            if blocked:
                break
            args = _decode_value(node_data.get("args", []), resolve, safe_mode)
            kwargs = _decode_value(node_data.get("kwargs", {}), resolve, safe_mode)
            layer(*args, **kwargs)
            position[name] += 1
            ref_position[name] = 0
            queue.extend(waiting.pop((name, len(layer._inbound_nodes) - 1), ()))
    unresolved = [f"{name}[{position[name]}]" for name in order
                  if position[name] < len(pending[name])]
    if unresolved:
        raise ValueError("Invalid Functional config: the graph has a cycle or refers to "
                         f"nodes that are never created; unresolved layer calls: "
                         f"{unresolved[:10]}{' ...' if len(unresolved) > 10 else ''}.")

    def io_tensor(ref):
        layer_name, node_index, tensor_index = ref
        if layer_name not in created:
            raise ValueError(f"Invalid Functional config: unknown layer {layer_name!r} in "
                             "input_layers/output_layers.")
        layer = created[layer_name]
        return layer._inbound_nodes[node_index - _offset(layer)].outputs[tensor_index]

    def io_structure(struct):
        if _is_tensor_ref(struct):
            return io_tensor(struct)
        if isinstance(struct, dict):
            return {k: io_structure(v) for k, v in struct.items()}
        if isinstance(struct, (list, tuple)):
            return [io_structure(v) for v in struct]
        raise ValueError(f"Invalid Functional config: bad input/output entry {struct!r}.")

    inputs = io_structure(config["input_layers"])
    outputs = io_structure(config["output_layers"])
    trainable = config.get("trainable")
    return cls(inputs=inputs, outputs=outputs, name=config.get("name"),
               trainable=True if trainable is None else trainable)


# ------------------------------------------------------------------------- JSON
def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.dtype):
        return value.name
    raise TypeError(f"{type(value).__name__} value {value!r} in a layer config is not JSON "
                    "serializable; get_config() must return JSON-compatible values.")


def to_json(model, **kwargs) -> str:
    """``model``'s serialized form as a JSON string (``kwargs`` go to ``json.dumps``)."""
    return json.dumps(serialize_layer(model), default=_json_default, **kwargs)


def model_from_json(json_string, custom_objects=None, safe_mode=True):
    """The model described by ``model.to_json()`` (new layers, fresh weights).

    Classes must be kgraph's, registered with ``register_layer``, or in ``custom_objects``.
    ``safe_mode=True`` refuses layers that would execute code stored in the JSON.
    """
    return deserialize_layer(json.loads(json_string), custom_objects=custom_objects,
                             safe_mode=safe_mode)


def model_from_config(config, custom_objects=None, safe_mode=True):
    """The model from ``serialize_layer(model)`` (a dict with class_name and config)."""
    return deserialize_layer(config, custom_objects=custom_objects, safe_mode=safe_mode)
