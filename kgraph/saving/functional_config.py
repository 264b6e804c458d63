"""A ``Functional`` model's config in Keras 3's functional format, and the model back from it.

The config lists every layer with its ``inbound_nodes`` (the arguments of each of its
calls in this model, KerasTensors written as ``{"class_name": "__keras_tensor__", "config":
{"shape", "dtype", "keras_history": [layer_name, node_index, tensor_index]}}``), then
``input_layers`` / ``output_layers`` in the model's input/output structure.

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,), name="x")
>>> model = kg.Model(x, kg.layers.Dense(2, name="d")(x))
>>> config = functional_get_config(model)
>>> config["input_layers"], config["output_layers"]
(['x', 0, 0], ['d', 0, 0])
>>> [layer.name for layer in functional_from_config(kg.Functional, config).layers]
['x', 'd']
"""

from __future__ import annotations

import collections

from kgraph.base import catalog
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.saving import scope, validation
from kgraph.saving.layer_config import (REBUILD_ERRORS, deserialize_layer, rebuild_error,
                                        serialize_layer)
from kgraph.saving.validation import ConfigError, item
from kgraph.saving.values import decode_value, encode_value, shape_list

__all__ = ["functional_from_config", "functional_get_config"]


def _offset(layer) -> int:
    """Keras numbers a nested Functional's nodes from 1 in input/output_layers."""
    return 1 if (catalog.is_instance(layer, "Functional")
                 and not catalog.is_instance(layer, "Sequential")) else 0


@scope.sharing
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
                "config": {"shape": shape_list(tensor.shape), "dtype": tensor.dtype.name,
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
        return encode_value(value, what)

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


def functional_from_config(cls, config, custom_objects=None, safe_mode=True):
    """Rebuild a Functional from ``functional_get_config``'s output (or Keras 3's).

    The config is checked first (``validation.parse_functional_config``). Layers are
    constructed from their configs, then called on KerasTensors in dependency order: a work
    list in which a node waits for the one node it is missing, so the rebuild is linear in
    the size of the graph and uses no recursion per layer. A layer shared with a nested
    model (``shared_object_id``) is built once; ``node_index`` counts this model's calls.
    """
    with scope.loading(config, "functional", safe_mode) as path:
        plans = validation.parse_functional_config(config, path)
        created, calls, owner = {}, {}, {}
        for plan in plans:
            layer = deserialize_layer(plan.config, custom_objects, safe_mode, build=False,
                                      path=plan.path)
            if id(layer) in owner:
                raise ConfigError(f"Invalid config at {plan.path}: layers {owner[id(layer)]!r} "
                                  f"and {plan.name!r} are one shared object; a model lists each "
                                  "layer once.")
            owner[id(layer)] = plan.name
            created[plan.name] = layer
            # this model's calls of the layer: an InputLayer's own node, then the rebuilt ones
            calls[plan.name] = list(layer._inbound_nodes[:1]) if not plan.nodes and getattr(
                layer, "is_input_layer", False) else []
        _call_layers(plans, created, calls, safe_mode)
        inputs = _io_tensors(config["input_layers"], f'{path}["input_layers"]', created, calls)
        outputs = _io_tensors(config["output_layers"], f'{path}["output_layers"]', created,
                              calls)
        trainable = config.get("trainable")
        try:
            return cls(inputs=inputs, outputs=outputs, name=config.get("name"),
                       trainable=True if trainable is None else trainable)
        except REBUILD_ERRORS as err:
            raise rebuild_error(path, None, f"building the model {config.get('name')!r} from "
                                "its input_layers and output_layers", err) from err


def _call_layers(plans, created, calls, safe_mode):
    """Make every listed call, each once its KerasTensor arguments exist."""

    def resolve(tensor_config, where):
        layer_name, node_index, tensor_index = tensor_config["keras_history"]
        return _output(calls[layer_name][node_index], tensor_index,
                       f'{where}["config"]["keras_history"]', layer_name)

    position = {plan.name: 0 for plan in plans}  # next call of each layer to make
    ref_position = dict(position)  # next argument of that call to check
    waiting = collections.defaultdict(list)  # (layer_name, node_index) -> waiting plans
    queue = collections.deque(plans)
    while queue:
        plan = queue.popleft()
        name, layer = plan.name, created[plan.name]
        while position[name] < len(plan.nodes):
            node = plan.nodes[position[name]]
            blocked = False
            while ref_position[name] < len(node.refs):
                ref_name, ref_index = ref = node.refs[ref_position[name]]
                if len(calls[ref_name]) <= ref_index:
                    waiting[ref].append(plan)
                    blocked = True
                    break
                ref_position[name] += 1
            if blocked:
                break
            args = decode_value(node.data.get("args", []), resolve, safe_mode,
                                f'{node.path}["args"]')
            kwargs = decode_value(node.data.get("kwargs", {}), resolve, safe_mode,
                                  f'{node.path}["kwargs"]')
            count = len(layer._inbound_nodes)
            try:
                layer(*args, **kwargs)
            except ConfigError:
                raise
            except REBUILD_ERRORS as err:
                raise rebuild_error(node.path, name, "calling the layer", err) from err
            if len(layer._inbound_nodes) != count + 1:
                raise ConfigError(f"Invalid config at {node.path} (layer {name!r}): calling "
                                  "the layer on the listed arguments made no graph node.")
            calls[name].append(layer._inbound_nodes[-1])
            position[name] += 1
            ref_position[name] = 0
            queue.extend(waiting.pop((name, len(calls[name]) - 1), ()))
    unresolved = [f"{plan.name}[{position[plan.name]}]" for plan in plans
                  if position[plan.name] < len(plan.nodes)]
    if unresolved:
        raise ConfigError("Invalid config: the graph has a cycle (a loop); unresolved layer calls: "
                          f"{unresolved[:10]}{' ...' if len(unresolved) > 10 else ''} (first at "
                          f"{next(p.path for p in plans if position[p.name] < len(p.nodes))}).")


def _output(node, tensor_index, where, layer_name):
    if tensor_index >= len(node.outputs):
        raise ConfigError(f"Invalid config at {where}: expected a tensor index below "
                          f"{len(node.outputs)} (the number of outputs of that call of layer "
                          f"{layer_name!r}), received {tensor_index}.")
    return node.outputs[tensor_index]


def _io_tensors(struct, path, created, calls):
    """``input_layers`` / ``output_layers`` (checked refs) as this model's KerasTensors."""
    if validation.is_tensor_ref(struct):
        layer_name, node_index, tensor_index = struct
        own = calls[layer_name]
        index = node_index - _offset(created[layer_name])
        if not 0 <= index < len(own):
            first = _offset(created[layer_name])
            raise ConfigError(f"Invalid config at {path}: expected a call index of layer "
                              f"{layer_name!r} from {first} to {first + len(own) - 1}, "
                              f"received {node_index}.")
        return _output(own[index], tensor_index, path, layer_name)
    if isinstance(struct, dict):
        return {k: _io_tensors(v, item(path, k), created, calls) for k, v in struct.items()}
    return [_io_tensors(v, f"{path}[{i}]", created, calls) for i, v in enumerate(struct)]
